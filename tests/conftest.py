"""Shared fixtures: offline settings in a temp folder, the hashing embedder, a scripted LLM."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture()
def settings(tmp_path):
    from ragqa.config import Settings

    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    return Settings(data_dir=data, vectorstore_dir=tmp_path / "vs", embed_model="hash",
                    model_cache_dir=tmp_path / "cache", min_relevance=0.1,
                    calibration_file=ROOT / "tests" / "data" / "calibration-hash.json")


@pytest.fixture()
def hash_embedder():
    from ragqa.models.hashing import HashingEmbedding

    return HashingEmbedding()


@pytest.fixture()
def bundled(settings):
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings)
    return pipeline, pipeline.load()[0]


@pytest.fixture()
def indexed(bundled):
    pipeline, report = bundled
    pipeline.ingest(report, progress=False)
    return pipeline


def free_port() -> int:
    """A free TCP port on the loopback interface, for servers the tests start."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_run(n: int) -> int:
    """The first of n consecutive free TCP ports, below the kernel's ephemeral range (32768+), so an outgoing
    connection of another process cannot take one between this check and the server binding it."""
    import random
    import socket

    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20000, 32000 - n)
        try:
            for port in range(base, base + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
    raise RuntimeError(f"no {n} consecutive free ports found")


def wait_for_port(port: int, proc, seconds: float = 120) -> bool:
    """True once 127.0.0.1:port accepts connections; False if `proc` exits or time runs out."""
    import socket
    import time

    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            if proc.poll() is not None:
                return False
            time.sleep(0.3)
    return False


def start_chroma(path: Path, port: int):
    """A `chroma run` server on 127.0.0.1:port storing in `path`; fails the test if it does not start in 60 s."""
    import subprocess
    import sys

    exe = Path(sys.executable).with_name("chroma")
    proc = subprocess.Popen([str(exe), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_for_port(port, proc, 60):
        proc.kill()
        pytest.fail("chroma run did not start in 60 s")
    return proc


@pytest.fixture()
def chroma_server(tmp_path):
    """The port of a fresh `chroma run` server, stopped after the test."""
    port = free_port()
    proc = start_chroma(tmp_path / "server", port)
    yield port
    proc.terminate()
    proc.wait(timeout=20)
