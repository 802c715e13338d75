"""Embedding backends compared on real abstracts: model load time, chunks/s over 200-token chunks
(ICLR 2024 abstracts, as ingest cuts them), query latency, and cosine of each backend's vectors to
torch fp32's. Usage: python -m evals.bench_embed [--n 400] [--bf16]
(--bf16 adds RAGQA_EMBED_BACKEND=torch-bf16, fast only on CPUs with AMX).
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "corpora" / "iclr2024.jsonl"
QUERIES = ["Which papers study sparse autoencoders?", "how to make diffusion sampling faster"] * 10


def chunks(n: int) -> list[str]:
    import tiktoken

    import ragqa  # noqa: F401  (points tiktoken at its packaged encoding, offline)

    rows = [json.loads(line)["abstract"] for line in CORPUS.read_text("utf-8").splitlines()]
    random.Random(0).shuffle(rows)
    enc = tiktoken.get_encoding("cl100k_base")
    return [enc.decode(enc.encode(t)[:200]) for t in rows[:n]]


def measure(embedder_factory, texts: list[str]) -> tuple[dict, np.ndarray]:
    start = time.perf_counter()
    embedder = embedder_factory()
    embedder.get_query_embedding("warm up")
    load = time.perf_counter() - start
    start = time.perf_counter()
    vectors = np.array(embedder.get_text_embedding_batch(texts))
    rate = len(texts) / (time.perf_counter() - start)
    start = time.perf_counter()
    for q in QUERIES:
        embedder.get_query_embedding(q)
    query_ms = (time.perf_counter() - start) / len(QUERIES) * 1000
    return {"load_s": round(load, 2), "chunks_per_s": round(rate, 1), "query_ms": round(query_ms, 1)}, vectors


def main(argv: list[str] | None = None) -> int:
    from ragqa.config import Settings
    from ragqa.models.weights import load_embedder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--bf16", action="store_true")
    args = parser.parse_args(argv)
    texts = chunks(args.n)
    results, vectors = {}, {}
    for backend in ("torch", "onnx"):
        results[backend], vectors[backend] = measure(lambda: load_embedder(Settings(embed_backend=backend)), texts)
    if args.bf16:
        results["torch-bf16"], vectors["torch-bf16"] = measure(
            lambda: load_embedder(Settings(embed_backend="torch-bf16")), texts)
    for name in results:
        cos = (vectors[name] * vectors["torch"]).sum(axis=1) / (
            np.linalg.norm(vectors[name], axis=1) * np.linalg.norm(vectors["torch"], axis=1))
        results[name]["cosine_to_torch_min"] = round(float(cos.min()), 5)
    print(json.dumps({"chunks": len(texts), **results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
