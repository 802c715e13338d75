"""Check (not a stage): rebuild a store's lexical index with this code, from its chunks, and compare it with the saved
one array by array; report the build's time and the process's peak RSS before the saved index is read.

    RAGQA_VECTORSTORE_DIR=<store> RAGQA_EMBED_MODEL=<its embedder, e.g. hash> \
        python -m evals.experiments.lexical_rebuild

Nothing is written. Result on 2026-12-04 (2-core AMD EPYC Zen 4; alongside a 2-thread experiment), the paged build
(`ragqa/store/lexical.py`) against indexes saved by bm25s's own build: the bundled store (181 chunks) identical; the 1M
store of `evals.bench_scale` (1,935,345 chunks, 130,055,258 scores) identical scores, indices, indptr, vocabulary and
chunk ids, 578 s, peak 5.68 GB, of which Chroma's vector segment, loaded by the first read of the collection, is 3.3 GB.
"""
from __future__ import annotations

import os
import resource
import time

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


def main() -> dict:
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline

    index = Pipeline(Settings()).index()
    start = time.perf_counter()
    built = index.build_lexical()
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the saved index is read
    saved = index.lexical()
    if saved is None or built is None:
        raise SystemExit("no saved lexical index for this generation of the collection (or no chunks): "
                         "nothing to compare")
    same = {key: bool(np.array_equal(np.asarray(built.bm25.scores[key]), np.asarray(saved.bm25.scores[key])))
            for key in ("data", "indices", "indptr")}
    return {"chunks": len(built.chunk_ids), "scores": int(len(built.bm25.scores["data"])), "identical": same,
            "same_vocabulary": built.bm25.vocab_dict == saved.bm25.vocab_dict,
            "same_chunk_ids": built.chunk_ids == saved.chunk_ids,
            "build_s": round(took, 1), "build_peak_rss_mb": round(peak, 1)}


if __name__ == "__main__":
    print(main())
