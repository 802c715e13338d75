"""A session prefetched in a thread is the one the embedder takes, once; an error there reaches the taker."""
from __future__ import annotations

import threading

import pytest

from ragqa.config import Settings
from ragqa.models import onnx_session
from ragqa.models import weights as models


@pytest.fixture
def opened(monkeypatch):
    calls: list[tuple[str, str]] = []

    def fake_open(model_file, tokenizer_file, threads=0):
        if str(model_file) == "broken.onnx":
            raise RuntimeError("cannot read broken.onnx")
        calls.append((str(model_file), threading.current_thread().name))
        return object(), object()

    monkeypatch.setattr(onnx_session, "open_session", fake_open)
    monkeypatch.setattr(onnx_session, "_pending", {})
    return calls


def test_a_prefetched_session_is_opened_in_a_thread_and_taken_once(opened):
    onnx_session.prefetch("m.onnx", "t.json")
    onnx_session.prefetch("m.onnx", "t.json")  # already under way: not opened twice
    first = onnx_session.take("m.onnx", "t.json")
    second = onnx_session.take("m.onnx", "t.json")  # nothing pending any more: opened here
    assert first is not second
    assert opened == [("m.onnx", "ragqa-onnx-open"), ("m.onnx", threading.current_thread().name)]


def test_a_session_for_other_files_is_not_handed_out(opened):
    onnx_session.prefetch("m.onnx", "t.json")
    onnx_session.take("other.onnx", "t.json")
    assert [name for name, _ in opened].count("other.onnx") == 1
    assert onnx_session._pending  # the prefetched one is still there for its own files


def test_an_error_while_prefetching_is_raised_by_take(opened):
    onnx_session.prefetch("broken.onnx", "t.json")
    with pytest.raises(RuntimeError, match="broken.onnx"):
        onnx_session.take("broken.onnx", "t.json")


@pytest.mark.parametrize("settings", [Settings(embed_model="hash"), Settings(query_backend="torch"),
                                      Settings(embed_model="/some/st-model")])
def test_only_the_onnx_backend_is_prefetched(monkeypatch, settings):
    started = []
    monkeypatch.setattr(onnx_session, "prefetch", lambda *files, **kw: started.append(files))
    models.prefetch_embedder(settings)
    assert started == []


def test_the_onnx_backend_prefetches_the_files_load_embedder_opens(monkeypatch):
    started = []
    monkeypatch.setattr(models, "_onnx_installed", lambda: True)
    monkeypatch.setattr(models, "_onnx_files", lambda: ("model.onnx", "tokenizer.json"))
    monkeypatch.setattr(onnx_session, "prefetch", lambda *files, **kw: started.append(files))
    models.prefetch_embedder(Settings(query_backend="onnx"))
    assert started == [("model.onnx", "tokenizer.json")]


def test_a_pipeline_starts_the_session_before_opening_its_searcher_unless_given_an_embedder(monkeypatch, indexed):
    from ragqa.models.hashing import HashingEmbedding
    from ragqa.pipeline import Pipeline

    asked = []
    monkeypatch.setattr(models, "prefetch_embedder", lambda settings, queries=True: asked.append(settings))
    assert Pipeline(indexed.settings).searcher is not None
    assert Pipeline(indexed.settings, embedder=HashingEmbedding()).searcher is not None
    assert asked == [indexed.settings]
