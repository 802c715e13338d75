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


_INGESTED: dict[str, Path] = {}  # what an ingest of the bundled papers writes, per settings and data: its store folder

INGEST = """
import json, sys
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
fields = json.loads(sys.argv[1])
pipeline = Pipeline(Settings(**fields))
assert pipeline.settings.model_dump(mode="json") == fields, "the settings did not cross to this process unchanged"
pipeline.ingest(pipeline.load()[0], progress=False)
"""


def ingest_bundled(pipeline, tmp_path_factory) -> None:
    """`pipeline.ingest(pipeline.load()[0], progress=False)` into the pipeline's new, empty store: the store that ingest
    writes, copied. It is written once per session for each set of settings and data files (paths aside), by that
    same call in a process of its own (monkeypatches of the test that asks first cannot reach it), and copied into each
    test's own store folder: a store is its folder, no path is written inside it. ~1.2 s of ingest per test -> 0.01 s.
    The pipeline is left with its embedder loaded, as the ingest leaves it."""
    import hashlib
    import json
    import subprocess
    import sys

    settings = pipeline.settings
    assert pipeline._ingest_embedder is None, "a pipeline given its own embedder: ingest it"
    store = settings.vectorstore_dir
    assert not store.exists() or not any(store.iterdir()), f"{store} is not empty"
    fields = settings.model_dump(mode="json")
    digest = hashlib.sha256()
    for path in sorted(p for p in settings.data_dir.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(settings.data_dir)).encode() + b"\0" + path.read_bytes() + b"\0")
    paths = {"data_dir": "data", "vectorstore_dir": "vs", "model_cache_dir": "cache"}
    key = json.dumps({**fields, **paths, "data": digest.hexdigest()}, sort_keys=True)
    if key not in _INGESTED:
        folder = tmp_path_factory.mktemp("ingested")
        shutil.copytree(settings.data_dir, folder / "data")
        twin = {**fields, **{name: str(folder / sub) for name, sub in paths.items()}}
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAGQA_")}
        done = subprocess.run([sys.executable, "-c", INGEST, json.dumps(twin)], env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        _INGESTED[key] = folder / "vs"
    shutil.copytree(_INGESTED[key], store, dirs_exist_ok=True)
    assert pipeline.ingest_embedder is not None  # loaded, as the ingest loads it


@pytest.fixture()
def indexed(bundled, tmp_path_factory):
    pipeline, report = bundled
    ingest_bundled(pipeline, tmp_path_factory)  # = pipeline.ingest(report, progress=False)
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
