"""Crash consistency of `ragqa ingest`: kill -9 at seeded random points while it writes, resume, and
the store holds exactly what one clean ingest builds. Embedded Chroma and a `chroma run` server.

Hashing embedder and a small write batch, so a run is quick and batch boundaries fall often.
"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SHARED

pytestmark = pytest.mark.integration

CORPUS = SHARED / "data" / "corpora" / "icml2024.jsonl"
PAPERS = 450  # real ICML 2024 abstracts (bounded by the file's time budget): 1-3 chunks each at 200 tokens
LONG_PAPERS = 6  # records of 5 joined abstracts: ~10 chunks, more than a write batch, so one paper spans writes
WRITE_BATCH = 7
SEED = 18
RAGQA = str(Path(sys.executable).with_name("ragqa"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    if not CORPUS.is_file():
        pytest.skip(f"{CORPUS} is not on this machine")
    rows = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines()[:PAPERS + 5 * LONG_PAPERS]]
    records = rows[:PAPERS]
    for n in range(LONG_PAPERS):
        parts = rows[PAPERS + 5 * n:PAPERS + 5 * n + 5]
        records.append({**parts[0], "id": f"long-{n}", "title": f"Five abstracts, part {n}",
                        "abstract": "\n\n".join(p["abstract"] for p in parts)})
    path = tmp_path_factory.mktemp("crash") / "icml2024-subset.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def _env(store: Path, port: int | None = None, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGQA_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False",
               RAGQA_EMBED_MODEL="hash", RAGQA_VECTORSTORE_DIR=str(store), RAGQA_DATA_DIR=str(store.parent / "no-data"),
               RAGQA_MODEL_CACHE_DIR=str(store.parent / "cache"), **extra)
    if port is not None:  # vectors on the server; the paper catalog stays in RAGQA_VECTORSTORE_DIR
        env.update(RAGQA_CHROMA_HOST="127.0.0.1", RAGQA_CHROMA_PORT=str(port))
    return env


def _ragqa(args: list[str], env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([RAGQA, *args], env=env, capture_output=True, text=True, timeout=timeout)


def _settings(env: dict):
    from ragqa.config import Settings

    return Settings(vectorstore_dir=Path(env["RAGQA_VECTORSTORE_DIR"]), embed_model="hash",
                    chroma_host=env.get("RAGQA_CHROMA_HOST"), chroma_port=int(env.get("RAGQA_CHROMA_PORT", 8000)))


def _snapshot(env: dict) -> dict:
    """What a reader sees: every chunk (text, metadata, vector), each paper's catalogued chunk count,
    and what the index itself reports as unfinished."""
    from ragqa.models.weights import embed_name
    from ragqa.store.index import PaperIndex

    settings = _settings(env)
    index = PaperIndex(settings, embed_name(settings))
    chunks, offset = {}, 0
    while True:
        page = index.collection.get(include=["documents", "metadatas", "embeddings"], limit=1000, offset=offset)
        for cid, doc, meta, vec in zip(page["ids"], page["documents"], page["metadatas"], page["embeddings"]):
            chunks[cid] = (doc, json.dumps(meta, sort_keys=True), tuple(float(x) for x in vec))
        if len(page["ids"]) < 1000:
            break
        offset += 1000
    return {"chunks": chunks, "n_chunks": {pid: int(m["n_chunks"]) for pid, m in index.papers().items()},
            "incomplete": index.incomplete(), "orphans": list(getattr(index, "orphans", list)())}


def _same_chunk(a: tuple, b: tuple) -> bool:
    """Same text and metadata; the same vector up to float32 transport (the server sends JSON)."""
    return a[:2] == b[:2] and len(a[2]) == len(b[2]) and max(abs(x - y) for x, y in zip(a[2], b[2])) <= 1e-5


def _describe(differ: list[str], got: dict, want: dict) -> str:
    """Which part (text, metadata, vector) of which chunks differs from the clean ingest."""
    parts = Counter(name for cid in differ for name, a, b in zip(("text", "metadata", "vector"), got[cid], want[cid])
                    if a != b)
    cid = differ[0]
    first = {name: (a[:300], b[:300]) if name != "vector" else (a[:4], b[:4])
             for name, a, b in zip(("text", "metadata", "vector"), got[cid], want[cid]) if a != b}
    vectors = [cid for cid in differ if not _same_chunk((0, 0, got[cid][2]), (0, 0, want[cid][2]))]
    if vectors:  # how far off, and is it another chunk's vector?
        first["vector"] = {"max_abs_diff": max(abs(a - b) for a, b in zip(got[vectors[0]][2], want[vectors[0]][2])),
                           "vector_of": [c for c, v in want.items()
                                         if _same_chunk((0, 0, got[vectors[0]][2]), (0, 0, v[2]))][:3]}
    return f"{len(differ)} chunks differ from a clean ingest ({dict(parts)}); {cid}: (got, clean) {first}"


def _stats(env: dict) -> dict:
    done = _ragqa(["stats", "--json"], env, timeout=120)
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    return {k: stats[k] for k in ("papers", "chunks", "venues")}


@pytest.fixture(scope="module")
def reference(corpus, tmp_path_factory) -> dict:
    """One clean, uninterrupted ingest of the same file (the default write batch: the result must
    not depend on it)."""
    env = _env(tmp_path_factory.mktemp("reference") / "vs")
    done = _ragqa(["ingest", "--quiet", str(corpus)], env)
    assert done.returncode == 0, done.stderr
    return {**_snapshot(env), "stats": _stats(env)}


class Progress:
    """Follows the ingest's tqdm bar on stderr ('embedding:  41%|... | 580/1413 [...]')."""

    def __init__(self, stream):
        self.done = self.total = 0
        self.started_at: float | None = None
        self.tail = b""
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        while chunk := os.read(stream.fileno(), 4096):
            self.tail = (self.tail + chunk)[-4000:]
            found = re.findall(rb"(\d+)/(\d+) \[", self.tail)
            if found:
                self.done, self.total = map(int, found[-1])
                if self.done and self.started_at is None:
                    self.started_at = time.monotonic()

    def join(self) -> None:
        self._thread.join(timeout=5)


def _ingest_and_kill(corpus: Path, env: dict, how: str, at: float) -> dict:
    """Start `ragqa ingest FILE`; once it has written, SIGKILL it when its bar reaches fraction `at`
    ('progress') or `at` seconds after the first chunks were written ('time')."""
    proc = subprocess.Popen([RAGQA, "ingest", str(corpus)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    progress = Progress(proc.stderr)
    deadline = time.monotonic() + 180
    while proc.poll() is None and time.monotonic() < deadline:
        if progress.total and (progress.done >= at * progress.total if how == "progress"
                               else progress.started_at and time.monotonic() - progress.started_at >= at):
            proc.kill()  # SIGKILL: no cleanup, no atexit, mid-write
            break
        time.sleep(0.005)
    else:
        if proc.poll() is None:
            proc.kill()
    code = proc.wait()
    progress.join()
    return {"how": how, "at": round(at, 3), "done": progress.done, "total": progress.total, "returncode": code}


INSPECT = """
import json
from ragqa.config import Settings
from ragqa.errors import RagqaError
from ragqa.store.index import PaperIndex
from ragqa.models.weights import embed_name
settings = Settings()
try:
    index = PaperIndex(settings, embed_name(settings))
except RagqaError as exc:
    print(json.dumps({"error": str(exc)[:80]}))
else:
    print(json.dumps({"chunks": index.count(), "papers": len(index.papers()), "incomplete": len(index.incomplete()),
                      "orphans": len(getattr(index, "orphans", list)())}))
"""


def _left_behind(env: dict) -> dict:
    """What a kill left in the store (read-only, in a fresh process)."""
    done = subprocess.run([sys.executable, "-c", INSPECT], env=env, capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout) if done.returncode == 0 else {"inspect_failed": done.stderr[-300:]}


def _kill_plan(rng: random.Random) -> list[tuple[str, float]]:
    """Four kills: three at random fractions of the remaining chunks, one at a random time."""
    plan = [("progress", rng.uniform(0.05, 0.95)) for _ in range(3)]
    plan.insert(rng.randrange(4), ("time", rng.uniform(0.3, 2.5)))
    return plan


@pytest.mark.parametrize("backend", ["embedded", "server"])
def test_killed_ingest_resumes_to_the_clean_result(backend, corpus, reference, tmp_path, request):
    port = request.getfixturevalue("chroma_server") if backend == "server" else None
    env = _env(tmp_path / "vs", port, RAGQA_WRITE_BATCH_SIZE=str(WRITE_BATCH))
    rng = random.Random(f"{SEED}-{backend}")
    kills, verified = [], False
    for how, at in _kill_plan(rng):
        kills.append(_ingest_and_kill(corpus, env, how, at))
        kills[-1]["left"] = _left_behind(env)
        if kills[-1]["left"].get("incomplete") and not verified:  # the first kill that leaves a paper
            verified = True  # half-written: `--verify` alone must repair it from the catalog
            repaired = _ragqa(["ingest", "--verify"], env)
            assert repaired.returncode == 0, repaired.stdout + repaired.stderr
            kills[-1]["verify"] = (repaired.stdout.strip().splitlines() or [""])[-1][:120]
            assert _left_behind(env)["incomplete"] == 0, kills[-1]
    print(f"\n[{backend}] kill points (seed {SEED}, write batch {WRITE_BATCH}):")
    for kill in kills:
        print(f"  {kill}")
    mid_write = [k for k in kills if k["returncode"] == -9 and 0 < k["done"] < k["total"]]
    assert len(mid_write) >= 2, f"the kills did not land while chunks were being written: {kills}"

    resumed = _ragqa(["ingest", "--quiet", str(corpus)], env)
    assert resumed.returncode == 0, resumed.stderr
    print(f"  resumed: {resumed.stdout.strip().splitlines()[-1]}")
    verify = _ragqa(["ingest", "--verify"], env)
    assert verify.returncode == 0 and "every paper is complete" in verify.stdout, verify.stdout + verify.stderr

    got = _snapshot(env)
    assert got["incomplete"] == {} and got["orphans"] == []
    per_paper = Counter(cid.rsplit(":", 1)[0] for cid in got["chunks"])
    assert per_paper == Counter(got["n_chunks"])  # every paper has exactly its catalogued chunks
    assert got["n_chunks"] == reference["n_chunks"]  # the same papers, chunked the same way
    assert got["chunks"].keys() == reference["chunks"].keys()
    differ = [cid for cid in got["chunks"] if not _same_chunk(got["chunks"][cid], reference["chunks"][cid])]
    assert differ == [], _describe(differ, got["chunks"], reference["chunks"])
    assert _stats(env) == reference["stats"]
    assert reference["stats"]["papers"] == PAPERS + LONG_PAPERS
