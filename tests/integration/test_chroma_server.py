"""The same ingest/search against a real `chroma run` server, started and stopped here."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT, free_port

pytestmark = pytest.mark.integration


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
    # nothing written to an embedded store (the catalog sits there)
    assert not (tmp_path / "unused" / "chroma.sqlite3").exists()
    stats = Pipeline(settings).index().stats()
    assert stats["papers"] == 95 and "server" in stats["store"]


def test_unreachable_server_is_a_clear_error(tmp_path):
    from ragqa.config import Settings
    from ragqa.errors import RagqaError
    from ragqa.pipeline import Pipeline

    settings = Settings(vectorstore_dir=tmp_path, chroma_host="127.0.0.1", chroma_port=free_port())
    with pytest.raises(RagqaError, match="Cannot reach the Chroma server"):
        Pipeline(settings).index()
