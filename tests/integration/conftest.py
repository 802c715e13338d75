"""Integration fixtures: the real packaged embedding model over the bundled corpus (built once)."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="session")
def real_pipeline(tmp_path_factory):
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline

    tmp = tmp_path_factory.mktemp("real")
    shutil.copytree(ROOT / "data", tmp / "data")
    pipeline = Pipeline(Settings(data_dir=tmp / "data", vectorstore_dir=tmp / "vs"))
    pipeline.ingest(pipeline.load()[0], progress=False)
    return pipeline
