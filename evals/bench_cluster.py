"""Load test of the served deployment (scripts/serve-cluster): for each worker count, start the
cluster, then N concurrent gradio_client sessions (one per user, users spread over the workers
round-robin) each ask `--questions` questions in turn; report failed requests, latency percentiles
and throughput. Usage:
  python -m evals.bench_cluster --workers 1 2 --users 1 4 8 [--fake-llm] [--questions 4] [--out F]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

from ragqa.cluster import start

from .metrics import percentile

QUESTIONS = [
    "graph neural network with distributed-order fractional derivatives",
    "Is there work on making sparse autoencoders cheaper at huge widths?",
    "Which papers propose new ways to evaluate interpretability methods?",
    "How do vision transformers get rid of high-norm artifact tokens?",
    "Which venue has the most oral papers?",
    "What did David Bau publish here?",
]


def _session(url: str, questions: list[str], out: list, lock: threading.Lock) -> None:
    try:
        from gradio_client import Client

        client = Client(url, verbose=False)
    except BaseException as exc:  # a worker that cannot be reached fails every request of the session
        with lock:
            out += [{"ok": False, "error": f"connect: {type(exc).__name__}: {str(exc)[:120]}"}] * len(questions)
        return
    for q in questions:
        start = time.perf_counter()
        try:
            job = client.submit(q, [], "Any", "Any", "Any", "all", 10, False, api_name="/respond")
            outputs = job.result(timeout=600)
            chat = outputs[0]
            text = str(chat[-1]["content"]) if chat else ""
            ok = bool(text) and not text.startswith("⚠️")
            row = {"ok": ok, "seconds": time.perf_counter() - start, "question": q,
                   "cited": bool(re.search(r"\\*\[1\\*\]", text))}  # the chat's Markdown escapes its brackets
            if not ok:
                row["error"] = text[:160]
        except Exception as exc:
            row = {"ok": False, "seconds": time.perf_counter() - start, "question": q,
                   "error": f"{type(exc).__name__}: {str(exc)[:160]}"}
        with lock:
            out.append(row)


def run_load(urls: list[str], users: int, per_user: int) -> dict:
    out: list[dict] = []
    lock = threading.Lock()
    threads = [threading.Thread(target=_session, args=(urls[i % len(urls)],
                                                       [QUESTIONS[(i + j) % len(QUESTIONS)] for j in range(per_user)],
                                                       out, lock)) for i in range(users)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    times = [r["seconds"] for r in out if r.get("ok")]
    return {"users": users, "requests": len(out), "failed": sum(not r["ok"] for r in out),
            "cited": sum(bool(r.get("cited")) for r in out),
            "errors": sorted({r.get("error", "") for r in out if not r["ok"]})[:3],
            "latency_p50_s": percentile(times, 0.5), "latency_p95_s": percentile(times, 0.95),
            "throughput_per_min": round(len(times) / wall * 60, 2), "wall_s": round(wall, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--users", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--questions", type=int, default=3, help="questions each user asks, one after another")
    parser.add_argument("--fake-llm", action="store_true")
    parser.add_argument("--base-port", type=int, default=7960)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    results = []
    for workers in args.workers:
        with tempfile.TemporaryDirectory(prefix="ragqa-cluster-") as tmp:
            fake = [sys.executable, "-m", "evals.fake_llm", "--port", "{port}"] if args.fake_llm else None
            cluster = start(Path(tmp), workers, args.base_port, args.base_port + 100, args.base_port + 101, fake,
                            None if args.fake_llm else _gguf(), log=lambda m: print(m, file=sys.stderr),
                            model="fake" if args.fake_llm else "qwen")
            try:
                run_load(cluster.urls, 1, 1)  # every worker loads its models before the clock starts
                for url in cluster.urls[1:]:
                    run_load([url], 1, 1)
                for users in args.users:
                    row = {"workers": workers, "llm": "fake" if args.fake_llm else "qwen2.5-1.5b",
                           **run_load(cluster.urls, users, args.questions)}
                    results.append(row)
                    print(json.dumps(row), flush=True)
            finally:
                cluster.stop()
    if args.out:
        args.out.write_text(json.dumps({"command": "python -m evals.bench_cluster " + " ".join(argv or sys.argv[1:]),
                                        "cpus": os.cpu_count(), "results": results}, indent=1) + "\n")
    return 0


def _gguf():
    from ragqa.config import Settings
    from ragqa.models.weights import check_gguf

    return check_gguf(Settings(), Settings().llm_model)


if __name__ == "__main__":
    raise SystemExit(main())
