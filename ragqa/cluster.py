"""`scripts/serve-cluster`: the served deployment on one machine. A Chroma server holds the index,
an OpenAI-compatible LLM server answers (llama.cpp's `llama_cpp.server` with the packaged GGUF, or any server command:
scripts/serve-cluster --fake-llm starts evals/fake_llm.py, the scripted one, for load tests), and N `ragqa serve`
workers share both. The catalog and the saved lexical index sit in one folder on disk that every worker reads
(RAGQA_CATALOG_DIR), and a worker re-reads them when the catalog's generation changes, so workers
stay consistent after an ingest. Every process it starts is stopped on exit, Ctrl-C or SIGTERM.

On several machines, point RAGQA_CHROMA_HOST at the Chroma server, RAGQA_OPENAI_BASE_URL at the LLM
server (vLLM on a GPU box), and RAGQA_CATALOG_DIR at a shared folder; put a load balancer in front.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ragqa.errors import RagqaError


def _wait_port(port: int, proc: subprocess.Popen, seconds: float) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RagqaError(f"{' '.join(map(str, proc.args[:3]))} exited with code {proc.returncode} "
                             f"before listening on {port}.")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.3)
    raise RagqaError(f"Nothing listened on 127.0.0.1:{port} after {seconds:.0f} s ({proc.args[0]}).")


def chroma_command(folder: Path, port: int) -> list[str]:
    """`chroma run` on 127.0.0.1:port, its store in folder/chroma."""
    return [str(Path(sys.executable).parent / "chroma"), "run", "--path", str(folder / "chroma"), "--host", "127.0.0.1",
            "--port", str(port)]


@dataclass
class Cluster:
    folder: Path
    chroma_port: int
    llm_port: int
    worker_ports: list[int]
    procs: list[subprocess.Popen] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{p}/" for p in self.worker_ports]

    def env(self, model: str) -> dict[str, str]:
        return {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
                "GRADIO_ANALYTICS_ENABLED": "False",
                "RAGQA_CHROMA_HOST": "127.0.0.1", "RAGQA_CHROMA_PORT": str(self.chroma_port),
                "RAGQA_CATALOG_DIR": str(self.folder / "catalog"), "RAGQA_LLM_BACKEND": "openai",
                "RAGQA_OPENAI_BASE_URL": f"http://127.0.0.1:{self.llm_port}/v1", "RAGQA_LLM_MODEL": model,
                "RAGQA_FAST_LLM_MODEL": model}

    def _spawn(self, args: list[str], env: dict, log: str) -> subprocess.Popen:
        out = open(self.folder / f"{log}.log", "ab")
        proc = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        """Terminate every started process (its whole session), then kill what is left after 20 s."""
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.time() + 20
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def start(folder: Path, workers: int = 2, base_port: int = 7860, chroma_port: int = 8000, llm_port: int = 8081,
          llm_server: list[str] | None = None, gguf: Path | None = None, data: Path | None = None, log=print,
          model: str = "qwen") -> Cluster:
    """Start the Chroma server, the LLM server (llama.cpp's on `gguf`, or the command `llm_server`, "{port}" in it
    replaced by the LLM port, serving `model`), index `data` (default: the bundled papers) into the server once, then
    the workers; -> the running Cluster (stop() ends it)."""
    folder.mkdir(parents=True, exist_ok=True)
    bin_dir = Path(sys.executable).parent
    cluster = Cluster(folder, chroma_port, llm_port, [base_port + i for i in range(workers)])
    try:
        chroma = cluster._spawn(chroma_command(folder, chroma_port), os.environ.copy(), "chroma")
        if llm_server:
            llm = cluster._spawn([part.replace("{port}", str(llm_port)) for part in llm_server], os.environ.copy(),
                                 "llm")
        else:
            if gguf is None or not gguf.is_file():
                raise RagqaError("The LLM server needs a GGUF file: "
                                 "pass --gguf (ragqa models status shows its path) or --llm-server.")
            llm = cluster._spawn([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                                  "--model_alias", model, "--host", "127.0.0.1", "--port", str(llm_port),
                                  "--n_ctx", "4096", "--n_threads", "2"],
                                 os.environ.copy(), "llm")
        _wait_port(chroma_port, chroma, 90)
        _wait_port(llm_port, llm, 180)
        log(f"chroma server on {chroma_port}, LLM server on {llm_port} ({model})")
        env = cluster.env(model)
        ingest = [str(bin_dir / "ragqa"), "ingest", "--quiet"] + ([str(data)] if data else [])
        done = subprocess.run(ingest, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RagqaError(f"ingest into the Chroma server failed: {(done.stderr or done.stdout).strip()[-300:]}")
        log(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "indexed")
        for port in cluster.worker_ports:
            cluster._spawn([str(bin_dir / "ragqa"), "serve", "--port", str(port)], env, f"worker-{port}")
        for port, proc in zip(cluster.worker_ports, cluster.procs[-workers:]):
            _wait_port(port, proc, 180)
        log("workers: " + " ".join(cluster.urls))
        return cluster
    except BaseException:
        cluster.stop()
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="serve-cluster", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--base-port", type=int, default=7860, help="first worker's port; the others follow")
    parser.add_argument("--chroma-port", type=int, default=8000)
    parser.add_argument("--llm-port", type=int, default=8081)
    parser.add_argument("--folder", type=Path, default=Path("vectorstore/cluster"),
                        help="Chroma data, catalog and logs")
    parser.add_argument("--llm-server",
                        help="the command of an OpenAI-compatible server to start instead of llama.cpp's, "
                             "{port} for its port (scripts/serve-cluster --fake-llm: the scripted one)")
    parser.add_argument("--model", default="qwen", help="the model name that server serves")
    parser.add_argument("--gguf", type=Path, default=None,
                        help="model file for llama.cpp's server (default: the packaged 1.5B)")
    parser.add_argument("--data", type=Path, default=None, help="what to index (default: the bundled papers)")
    args = parser.parse_args(argv)
    gguf = args.gguf
    if gguf is None and not args.llm_server:
        from ragqa.config import Settings
        from ragqa.models.weights import check_gguf

        gguf = check_gguf(Settings(), Settings().llm_model)
    try:
        cluster = start(args.folder, args.workers, args.base_port, args.chroma_port, args.llm_port,
                        args.llm_server.split() if args.llm_server else None, gguf, args.data, model=args.model)
    except RagqaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stopping = []

    def stop(*_):
        stopping.append(1)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"running; logs in {args.folder}. Ctrl-C stops everything.", flush=True)
    while not stopping and all(p.poll() is None for p in cluster.procs):
        time.sleep(0.5)
    cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
