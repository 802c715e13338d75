"""A Chroma server that goes away: every entry point says 'Cannot reach the Chroma server at
host:port' in one line, and the same process works again once the server is back (#18)."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT, free_port, start_chroma

pytestmark = pytest.mark.integration


def _stop(proc) -> None:
    proc.kill()
    proc.wait(timeout=20)


def test_a_server_that_goes_away_is_one_clear_error_and_recovery_needs_no_restart(tmp_path, capsys, monkeypatch):
    from ragqa.cli import main
    from ragqa.config import Settings
    from ragqa.errors import StoreUnavailableError
    from ragqa.pipeline import Pipeline

    port = free_port()
    server = start_chroma(tmp_path / "server", port)
    shutil.copytree(ROOT / "data", tmp_path / "data")
    settings = Settings(data_dir=tmp_path / "data", vectorstore_dir=tmp_path / "local", embed_model="hash",
                        chroma_host="127.0.0.1", chroma_port=port)
    try:
        pipeline = Pipeline(settings)
        pipeline.ingest(pipeline.load()[0], progress=False)
        question = "graph network with learnable fractional derivative orders"
        assert pipeline.search(question, k=3, translate=False).hits
        _stop(server)

        with pytest.raises(StoreUnavailableError, match=f"Cannot reach the Chroma server at 127.0.0.1:{port}"):
            pipeline.search(question, k=3, translate=False)  # a running process (serve holds one like this)
        with pytest.raises(StoreUnavailableError, match="Cannot reach the Chroma server"):
            pipeline.ingest(pipeline.load()[0], progress=False)
        for name, value in (("RAGQA_DATA_DIR", settings.data_dir), ("RAGQA_VECTORSTORE_DIR", settings.vectorstore_dir),
                            ("RAGQA_EMBED_MODEL", "hash"), ("RAGQA_CHROMA_HOST", "127.0.0.1"),
                            ("RAGQA_CHROMA_PORT", port)):
            monkeypatch.setenv(name, str(value))
        capsys.readouterr()
        assert main(["search", question]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"Cannot reach the Chroma server at 127.0.0.1:{port}" in err

        server = start_chroma(tmp_path / "server", port)
        hits = pipeline.search(question, k=3, translate=False).hits  # the same pipeline, no restart
        assert hits and hits[0].meta["label"] == "DRAGON"
    finally:
        _stop(server)
