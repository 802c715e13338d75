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
    from ragqa.hashing import HashingEmbedding

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
