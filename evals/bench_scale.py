"""Benchmark: cost against collection size. Synthetic papers recombined from the real ICLR/ICML 2024
abstracts (two halves of two different abstracts, unique ids, so texts differ), indexed with the
hashing embedder (the embedding model is not what is measured), into a fresh embedded store per size.

    .venv/bin/python -m evals.bench_scale --sizes 10000 100000 [--out evals/reports/scale.json]   (+ scale.png)
    .venv/bin/python -m evals.bench_scale --plot evals/reports/scale-*.json --out evals/reports/scale.png

Per size: ingest throughput and peak memory, cold start of `ragqa search` (a new process, to its first result), its peak
memory, hybrid search p50/p95 without and with a venue filter (in one warm process), the name check of questions
that name a method (p50 and worst), the answerability features of a question's candidates (the first question,
then p50) with the process's peak memory before and after them, and store size.
`--server`: the same against a `chroma run` server started for it (its own store; catalog and lexical
index in the work folder), as the served deployment uses it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "data" / "corpora"
QUESTIONS = ["sparse autoencoders for interpretability", "diffusion model sampling quality",
             "robust reinforcement learning", "graph neural networks for molecules", "federated learning with privacy",
             "in-context learning in transformers", "protein structure prediction", "contrastive learning for vision",
             "causal discovery from data", "LLM alignment"]
# questions that name a method, for the name index's look-ups (names.py): mentioned, introduced, or in no paper
NAMED = ["What reward model did InstructGPT use?", "Which paper introduced GPT-4?", "the LoRA paper",
         "How does Stable Diffusion compare with ResNet-50 features?", "Is XyzNet-9 any good?"]


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def write_corpus(path: Path, n: int, seed: int = 0) -> None:
    rows = [json.loads(line) for name in ("iclr2024.jsonl", "icml2024.jsonl")
            for line in (CORPORA / name).open(encoding="utf-8")]
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            a, b = rng.choice(rows), rng.choice(rows)
            sa, sb = _sentences(a["abstract"]), _sentences(b["abstract"])
            text = " ".join(sa[: max(1, len(sa) // 2)] + sb[len(sb) // 2:]) + f" (variant {i})"
            out.write(json.dumps({"id": f"s{i}", "title": a["title"], "authors": a["authors"][:3] + b["authors"][:2],
                                  "abstract": text, "venue": rng.choice(["ICLR", "ICML", "NeurIPS", "arXiv cs.LG"]),
                                  "year": rng.choice([2023, 2024, 2025])}) + "\n")


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _timed_search(env: dict) -> dict:
    """A cold `ragqa search` in a new process: wall time to its first result and peak RSS."""
    cmd = ["/usr/bin/time", "-f", "%M %e", str(Path(sys.executable).with_name("ragqa")), "search", QUESTIONS[0],
           "--k", "5", "--json"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    rss_kb, wall = done.stderr.strip().splitlines()[-1].split()
    return {"cold_search_s": float(wall), "cold_search_peak_rss_mb": round(int(rss_kb) / 1024, 1),
            "ok": done.returncode == 0}


def _warm_latencies(env: dict) -> dict:
    code = f"""
import json, time
from ragqa.pipeline import Pipeline
from ragqa.query.request import Filters
p = Pipeline(); p.search("warm up", translate=False)
qs = {QUESTIONS!r}
out = {{}}
for name, f in (("search", None), ("search_venue_filter", Filters(venue="ICML 2024"))):
    ts = []
    for q in qs * 3:
        a = time.perf_counter(); p.search(q, f, k=10, translate=False); ts.append(time.perf_counter() - a)
    ts.sort()
    out[name + "_p50_ms"] = round(ts[len(ts) // 2] * 1000, 1); \
out[name + "_p95_ms"] = round(ts[int(len(ts) * 0.95) - 1] * 1000, 1)
ts = []
for q in {NAMED!r} * 3:
    a = time.perf_counter(); p.searcher.missing_name(q); ts.append(time.perf_counter() - a)
ts.sort()
out["name_check_p50_ms"] = round(ts[len(ts) // 2] * 1000, 1); out["name_check_max_ms"] = round(ts[-1] * 1000, 1)
import resource
from ragqa.answer.answerability import candidates_for
out["search_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
ts = []
for q in qs * 2:
    r = p.search(q, k=p.settings.judge_k, translate=False)
    qv = p.embedder.get_query_embedding(r.query)
    a = time.perf_counter(); candidates_for(p.searcher, r, qv); ts.append(time.perf_counter() - a)
out["features_first_ms"] = round(ts[0] * 1000, 1)
ts = sorted(ts[1:])
out["features_p50_ms"] = round(ts[len(ts) // 2] * 1000, 1)
out["features_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {"error": done.stderr[-300:]}


def _chroma_server(folder: Path):
    """A `chroma run` on a free loopback port -> (process, port)."""
    import socket

    from ragqa.cluster import _wait_port, chroma_command

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    folder.mkdir(parents=True, exist_ok=True)
    log = open(folder / "chroma.log", "ab")
    proc = subprocess.Popen(chroma_command(folder, port), stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"}, start_new_session=True)
    _wait_port(port, proc, 90)
    return proc, port


def measure(n: int, work: Path, reuse: bool = False, server: bool = False) -> dict:
    corpus, store = work / f"corpus-{n}.jsonl", work / (f"server-store-{n}" if server else f"store-{n}")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RAGQA_EMBED_MODEL": "hash", "RAGQA_VECTORSTORE_DIR": str(store),
           "RAGQA_DATA_DIR": str(work / "no-data")}
    proc = None
    if server:
        proc, port = _chroma_server(store)
        env.update(RAGQA_CHROMA_HOST="127.0.0.1", RAGQA_CHROMA_PORT=str(port))
    try:
        result = _measure(n, corpus, store, env, reuse)
    finally:
        if proc is not None:
            os.killpg(proc.pid, 15)
            proc.wait(30)
    return {"store": "chroma server" if server else "embedded", **result}


def _measure(n: int, corpus: Path, store: Path, env: dict, reuse: bool) -> dict:
    # search figures only, on the store an earlier run built
    if reuse and store.is_dir() and any(store.glob("*.catalog.sqlite")):
        result = {"papers": n, "reused_store": True, "store_mb": round(_du(store) / 2**20, 1)}
        result.update(_timed_search(env))
        result.update(_warm_latencies(env))
        return result
    if not corpus.exists():
        write_corpus(corpus, n)
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", str(Path(sys.executable).with_name("ragqa")), "ingest",
                           "--quiet", str(corpus)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    chunks = re.search(r"(\d+) chunks", done.stdout)
    result = {"papers": n, "ingest_s": round(seconds, 1), "ingest_papers_per_s": round(n / seconds, 1),
              "ingest_peak_rss_mb": round(int(done.stderr.strip().splitlines()[-1]) / 1024, 1),
              "chunks": int(chunks.group(1)) if chunks else None, "store_mb": round(_du(store) / 2**20, 1)}
    result.update(_timed_search(env))
    result.update(_warm_latencies(env))
    return result


PANELS = (("ingest", "papers/s", ["ingest_papers_per_s"]), ("ingest memory", "peak RSS, MB", ["ingest_peak_rss_mb"]),
          ("cold `ragqa search`", "s", ["cold_search_s"]),
          ("reader memory", "peak RSS, MB", ["cold_search_peak_rss_mb", "features_peak_rss_mb"]),
          ("warm hybrid search", "ms", ["search_p50_ms", "search_p95_ms", "search_venue_filter_p50_ms"]),
          ("store", "MB", ["store_mb"]))


def plot(results: list[dict], path: Path) -> list[str]:
    """Cost against collection size, one panel per cost (size on a log axis), one line per store kind and field,
    written to `path`; -> the lines drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for ax, (title, unit, fields) in zip(axes.flat, PANELS):
        for store in sorted({r.get("store", "embedded") for r in results}):
            for name in fields:
                points = sorted((r["papers"], r[name]) for r in results
                                if r.get("store", "embedded") == store and r.get(name))
                if points:
                    ax.plot(*zip(*points), marker="o", label=f"{name} ({store})")
        ax.set(title=title, xlabel="papers", ylabel=unit)
        if ax.lines:
            ax.set(xscale="log", ylim=(0, None))
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "not measured in these reports", ha="center", va="center", transform=ax.transAxes)
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(f"ragqa cost against collection size ({os.cpu_count()} cores, hashing embedder)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [line.get_label() for ax in axes.flat for line in ax.lines]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for corpora and stores (default: a temp folder)")
    parser.add_argument("--reuse", action="store_true",
                        help="a store already in --work is measured as is (search only, no ingest)")
    parser.add_argument("--server", action="store_true",
                        help="index into and search a chroma server started for the run")
    parser.add_argument("--plot", type=Path, nargs="+", metavar="REPORT",
                        help="only plot these reports' results together (into --out, a .png), measuring nothing")
    args = parser.parse_args(argv)
    if args.plot:
        rows = [r for report in args.plot for r in json.loads(report.read_text())["results"]]
        path = args.out or Path("scale.png")
        plot(rows, path)
        print(path)
        return 0
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}", file=sys.stderr)
        return 1
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for n in args.sizes:
            results.append(measure(n, work, args.reuse, args.server))
            print(json.dumps(results[-1]), flush=True)
    if args.out:
        args.out.write_text(json.dumps({"machine": os.uname().machine, "cpus": os.cpu_count(), "results": results},
                                       indent=1))
        plot(results, args.out.with_suffix(".png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
