"""The same ingest/search against a real `chroma run` server, started and stopped here."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port, wait_for_port

pytestmark = pytest.mark.integration


@pytest.fixture()
def chroma_server(tmp_path):
    port = free_port()
    exe = Path(sys.executable).with_name("chroma")
    proc = subprocess.Popen([str(exe), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_for_port(port, proc, 60):
        proc.kill()
        pytest.fail("chroma run did not start in 60 s")
    yield port
    proc.terminate()
    proc.wait(timeout=20)


def test_ingest_and_search_through_server(chroma_server, tmp_path):
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline

    shutil.copytree(ROOT / "data", tmp_path / "data")
    settings = Settings(data_dir=tmp_path / "data", vectorstore_dir=tmp_path / "unused",
                        chroma_host="127.0.0.1", chroma_port=chroma_server)
    pipeline = Pipeline(settings)
    first = pipeline.ingest(pipeline.load()[0], progress=False)
    assert first.new_papers == 95
    assert pipeline.ingest(pipeline.load()[0], progress=False).embedded_chunks == 0
    result = pipeline.search("graph network with learnable fractional derivative orders", k=3, translate=False)
    assert result.hits[0].meta["label"] == "DRAGON"
    assert not (tmp_path / "unused" / "chroma.sqlite3").exists()  # nothing written to an embedded store (the catalog sits there)
    stats = Pipeline(settings).index().stats()
    assert stats["papers"] == 95 and "server" in stats["store"]


def test_unreachable_server_is_a_clear_error(tmp_path):
    from ragqa.config import Settings
    from ragqa.errors import RagqaError
    from ragqa.pipeline import Pipeline

    settings = Settings(vectorstore_dir=tmp_path, chroma_host="127.0.0.1", chroma_port=free_port())
    with pytest.raises(RagqaError, match="Cannot reach the Chroma server"):
        Pipeline(settings).index()
