"""Check (not a stage): the memory Chroma's vector index takes in a process that reads a collection, by vector width, to
carry the 1M figures (256-d hashing embedder) over to MiniLM's 384-d vectors.

    python -m evals.experiments.chroma_width --vectors 195000 --dims 256 384 --work /tmp/chroma-width

Per width: a fresh embedded collection (cosine, Chroma's defaults) of random vectors, then a new process that opens it
and runs one query (which loads the index), reporting its RSS before and after. Result on 2026-12-05 (2-core Intel
Xeon, Emerald Rapids): 195,000 vectors took 276-278 MB at 256-d and 371-373 MB at 384-d over three reads: ~460 bytes
plus 4 per dimension a vector.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
_NAME = "vectors"


def _client(path: Path):
    import chromadb
    from chromadb.config import Settings

    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


def build(path: Path, dim: int, n: int) -> None:
    import numpy as np

    collection = _client(path).get_or_create_collection(_NAME, metadata={"hnsw:space": "cosine"})
    rng = np.random.default_rng(0)
    for start in range(collection.count(), n, 5000):
        count = min(5000, n - start)
        collection.add(ids=[f"c{i}" for i in range(start, start + count)],
                       embeddings=rng.standard_normal((count, dim)).astype(np.float32))


def _rss_mb() -> int:
    with open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS")).split()[1]) // 1024


def load(path: Path, dim: int) -> dict:
    collection = _client(path).get_collection(_NAME)
    opened = _rss_mb()
    collection.query(query_embeddings=[[1.0] + [0.0] * (dim - 1)], n_results=3)
    return {"dim": dim, "vectors": collection.count(), "opened_mb": opened, "index_mb": _rss_mb() - opened}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(prog="python -m evals.experiments.chroma_width")
    parser.add_argument("--vectors", type=int, default=195_000)
    parser.add_argument("--dims", type=int, nargs="+", default=[256, 384])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--load", type=int, help=argparse.SUPPRESS)  # the child process: one width, read back
    args = parser.parse_args(argv)
    if args.load:
        print(json.dumps(load(args.work / f"d{args.load}", args.load)))
        return []
    results = []
    for dim in args.dims:
        build(args.work / f"d{dim}", dim, args.vectors)
        child = subprocess.run([sys.executable, "-m", "evals.experiments.chroma_width", "--work", str(args.work),
                                "--load", str(dim)], capture_output=True, text=True, check=True)
        results.append(json.loads(child.stdout))
    return results


if __name__ == "__main__":
    for row in main():
        print(json.dumps(row))
