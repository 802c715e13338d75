"""Benchmark: ingest throughput and search latency at 95 and ~4,965 papers (bundled + ICLR + ICML 2024).

    .venv/bin/python -m evals.bench_retrieval [--store DIR] [--json OUT]

Uses its own Chroma folder (default: a temp dir), the default embedding model, no LLM.
Prints a Markdown table; figures are wall-clock on this machine.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "data" / "corpora"


def _questions() -> list[str]:
    rows = [json.loads(l) for l in open(ROOT / "evals" / "datasets" / "seed_questions.jsonl", encoding="utf-8")]
    return [r["question"] for r in rows if r.get("lang") == "en" and not r.get("history")]


def _latency(pipeline, questions, filters=None, repeat=2) -> dict:
    pipeline.search(questions[0], filters, translate=False)  # warm caches (BM25 view, model)
    times = []
    for _ in range(repeat):
        for q in questions:
            start = time.perf_counter()
            pipeline.search(q, filters, translate=False)
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {"n": len(times), "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[int(len(times) * 0.95) - 1], 1)}


def _cli_reingest(store: Path) -> float:
    env = {"RAGQA_VECTORSTORE_DIR": str(store), "PATH": str(Path(sys.executable).parent)}
    start = time.perf_counter()
    subprocess.run([str(Path(sys.executable).parent / "ragqa"), "ingest", "--quiet"], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return round(time.perf_counter() - start, 2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from ragqa.query.request import Filters

    store = args.store or Path(tempfile.mkdtemp(prefix="ragqa-bench-"))
    pipeline = Pipeline(Settings(vectorstore_dir=store))
    pipeline.embedder.get_text_embedding("warm up")
    questions = _questions()
    out: dict = {"store": str(store), "questions": len(questions)}

    report, _ = pipeline.load()
    start = time.perf_counter()
    result = pipeline.ingest(report, progress=False)
    secs = time.perf_counter() - start
    out["bundled_ingest"] = {"papers": result.papers, "chunks": result.chunks, "seconds": round(secs, 2),
                             "papers_per_s": round(result.papers / secs, 1)}
    start = time.perf_counter()
    again = pipeline.ingest(pipeline.load()[0], progress=False)
    out["bundled_reingest"] = {"embedded": again.embedded_chunks, "in_process_s": round(time.perf_counter() - start, 2),
                               "cli_wall_s": _cli_reingest(store)}
    out["search_95"] = _latency(pipeline, questions)

    big = [CORPORA / "iclr2024.jsonl", CORPORA / "icml2024.jsonl"]
    report, errors = pipeline.load(big)
    start = time.perf_counter()
    result = pipeline.ingest(report, progress=True)
    secs = time.perf_counter() - start
    out["big_ingest"] = {"papers": result.papers, "new_papers": result.new_papers, "chunks": result.chunks,
                         "seconds": round(secs, 1), "papers_per_s": round(result.new_papers / secs, 1)}
    pipeline = Pipeline(pipeline.settings, embedder=pipeline.embedder)  # fresh searcher over the big index
    stats = pipeline.index().stats()
    out["papers_total"], out["chunks_total"] = stats["papers"], stats["chunks"]
    out["search_big"] = _latency(pipeline, questions)
    out["search_big_venue_filter"] = _latency(pipeline, questions, Filters(venue="ICLR 2024"), repeat=1)
    out["search_big_author_filter"] = _latency(pipeline, questions, Filters(author="bengio"), repeat=1)
    start = time.perf_counter()
    again = pipeline.ingest(pipeline.load()[0], progress=False)
    out["big_reingest_bundled"] = {"embedded": again.embedded_chunks,
                                   "in_process_s": round(time.perf_counter() - start, 2),
                                   "cli_wall_s": _cli_reingest(store)}

    print(json.dumps(out, indent=1))
    print("\n| measure | 95 papers | %d papers |\n|---|---|---|" % out["papers_total"])
    print(f"| ingest throughput (papers/s, embedding included) | {out['bundled_ingest']['papers_per_s']} | "
          f"{out['big_ingest']['papers_per_s']} |")
    print("| re-ingest unchanged bundled corpus, in process / `ragqa ingest` wall (s) | "
          f"{out['bundled_reingest']['in_process_s']} / {out['bundled_reingest']['cli_wall_s']} | "
          f"{out['big_reingest_bundled']['in_process_s']} / {out['big_reingest_bundled']['cli_wall_s']} |")
    for key, name in (("search", "search p50 / p95 (ms), hybrid, no filter"),):
        print(f"| {name} | {out['search_95']['p50_ms']} / {out['search_95']['p95_ms']} | {out['search_big']['p50_ms']} "
              f"/ {out['search_big']['p95_ms']} |")
    print(f"| search p50 / p95 (ms), venue filter | - | {out['search_big_venue_filter']['p50_ms']} / "
          f"{out['search_big_venue_filter']['p95_ms']} |")
    print(f"| search p50 / p95 (ms), author filter | - | {out['search_big_author_filter']['p50_ms']} / "
          f"{out['search_big_author_filter']['p95_ms']} |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
