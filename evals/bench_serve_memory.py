"""Benchmark: `ragqa serve`'s resident memory over a scripted session (an English question, a Chinese question, a
follow-up, a list question, a library upload), from a fresh process with the default models; the peak (VmHWM) and
the resident memory after each step, and the breakdown by part (what each part adds when loaded in turn in one
process: the UI and libraries, the store and the embedder, the LLM with its first answer, a Chinese question).
The served store is a copy of the given one, so the upload changes nothing.

    python -m evals.bench_serve_memory --out evals/reports/<run>/serve-memory.json
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEPS = [("English question", "Which graph neural network uses distributed-order fractional derivatives?", False),
         ("Chinese question", "有没有研究扩散模型采样质量下降原因的论文？", False),
         ("follow-up", "What datasets did they evaluate it on?", True),
         ("list question", "Which papers study interpretability?", False)]


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) // 1024  # MB
    return 0


def serve_session(store: Path, port: int) -> dict:
    from gradio_client import Client, handle_file

    env = dict(os.environ, RAGQA_VECTORSTORE_DIR=str(store), GRADIO_ANALYTICS_ENABLED="False")
    proc = subprocess.Popen([sys.executable, "-m", "ragqa.cli", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port, proc)
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        out = {"after start_mb": _status(proc.pid, "VmRSS"), "peak after start_mb": _status(proc.pid, "VmHWM")}
        chat: list = []
        for name, question, follow in STEPS:
            start = time.perf_counter()
            job = client.submit(question, chat if follow else [], "Any", "Any", "Any", "all", 10, False,
                                api_name="/respond")
            list(job)
            chat = job.outputs()[-1][0]
            out[f"after {name}_mb"] = _status(proc.pid, "VmRSS")
            out[f"peak after {name}_mb"] = _status(proc.pid, "VmHWM")
            out[f"{name}_s"] = round(time.perf_counter() - start, 1)
        bib = ROOT / "tests" / "data" / "libraries" / "real-world.bib"
        list(client.submit(handle_file(str(bib)), "bench", api_name="/add_library"))
        out["after library upload_mb"] = _status(proc.pid, "VmRSS")
        out["peak_mb"] = _status(proc.pid, "VmHWM")
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def breakdown() -> dict:
    """What each part adds to one process's resident memory, loaded in the order a served question loads them."""
    def rss() -> int:
        return _status(os.getpid(), "VmRSS")

    parts, last = {}, rss()

    def mark(name):
        nonlocal last
        now = rss()
        parts[name] = now - last
        last = now

    import gradio  # noqa: F401
    import llama_index.core  # noqa: F401

    from ragqa.pipeline import Pipeline
    mark("python, gradio, llama-index")
    pipeline = Pipeline()
    pipeline.searcher.refresh()
    pipeline.search("sparse autoencoders at huge widths")
    mark("store (Chroma, catalog, BM25) + embedder (int8 ONNX MiniLM)")
    pipeline.ask("Which graph neural network uses distributed-order fractional derivatives?")
    mark("LLM (Qwen2.5-1.5B, llama.cpp) + its first answer")
    pipeline.ask("有没有研究扩散模型采样质量下降原因的论文？")
    mark("a Chinese question (translation on the same model)")
    parts["total_mb"] = rss()
    parts["torch loaded"] = "torch" in sys.modules
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--port", type=int, default=7917)
    parser.add_argument("--part", choices=["serve", "breakdown"], default=None, help="run one part only")
    args = parser.parse_args()
    if args.part == "breakdown":
        print(json.dumps(breakdown()))
        return
    from ragqa.config import Settings

    with tempfile.TemporaryDirectory(prefix="ragqa-bench-") as tmp:
        store = Path(tmp) / "store"
        shutil.copytree(Settings().vectorstore_dir, store)
        result = {"machine": _machine(), "serve": serve_session(store, args.port)}
    done = subprocess.run([sys.executable, "-m", "evals.bench_serve_memory", "--out", "-", "--part", "breakdown"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    result["breakdown_mb"] = json.loads(done.stdout.strip().splitlines()[-1])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(result, indent=1, ensure_ascii=False))


def _wait_for_port(port: int, proc, seconds: float = 300) -> None:
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise RuntimeError(f"ragqa serve did not listen on port {port}")


def _machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "?")
    return f"{cpu}, {os.cpu_count()} cores"


if __name__ == "__main__":
    main()
