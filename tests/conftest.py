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
                    model_cache_dir=tmp_path / "cache", min_relevance=0.1)


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
