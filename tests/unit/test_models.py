"""Which embedding backend each role gets: questions and evidence sentences vs chunks at ingest."""
from __future__ import annotations

import pytest

from ragqa.config import Settings
from ragqa.models import weights as models
from ragqa.models.hashing import HashingEmbedding
from ragqa.pipeline import Pipeline


@pytest.mark.parametrize("installed, query, expected", [
    (True, "auto", "onnx"), (False, "auto", "auto"), (True, "same", "auto"), (True, "torch", "torch"), (False, "onnx", "onnx"),
])
def test_query_backend_resolves(monkeypatch, installed, query, expected):
    monkeypatch.setattr(models, "_onnx_installed", lambda: installed)
    settings = Settings(query_backend=query)
    assert models.embed_backend(settings, queries=True) == expected
    assert models.embed_backend(settings) == "auto"  # ingest keeps embed_backend


def test_other_models_use_one_backend_for_both(monkeypatch):
    monkeypatch.setattr(models, "_onnx_installed", lambda: True)
    assert models.embed_backend(Settings(embed_model="/some/st-model", embed_backend="torch"), queries=True) == "torch"


def test_one_given_embedder_does_both_roles_and_two_stay_apart():
    one, two = HashingEmbedding(), HashingEmbedding()
    assert Pipeline(Settings(), embedder=one).ingest_embedder is one
    pipeline = Pipeline(Settings(), embedder=one, ingest_embedder=two)
    assert pipeline.embedder is one and pipeline.ingest_embedder is two


def test_one_backend_loads_once(monkeypatch):
    loaded = []
    monkeypatch.setattr(models, "load_embedder", lambda settings, queries=False: loaded.append(queries) or HashingEmbedding())
    pipeline = Pipeline(Settings(embed_model="hash"))
    assert pipeline.ingest_embedder is pipeline.embedder and loaded == [True]


def test_bm25s_loads_without_numba_or_scipy_and_both_still_import_later():
    import subprocess
    import sys

    code = ("import sys; from ragqa.store.lexical import _bm25s; b = _bm25s(); s = 'numba' in sys.modules; "
            "t = 'scipy.sparse' in sys.modules; import numba, scipy.sparse; "
            "print(s, b.NUMBA_AVAILABLE, numba.__name__, t, b.SCIPY_AVAILABLE, scipy.sparse.csc_matrix.__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-400:]
    assert done.stdout.split() == ["False", "False", "numba", "False", "False", "csc_matrix"]


def test_bf16_is_chosen_where_the_cpu_computes_in_bf16():
    """AMX Xeons (amx_bf16) and Zen 4 EPYCs (avx512_bf16) embed twice as fast in bf16; elsewhere it is emulated."""
    from ragqa.models.weights import cpu_has_bf16

    assert cpu_has_bf16("flags : fpu avx512f avx512_vnni avx512_bf16 vaes")
    assert cpu_has_bf16("flags : fpu avx512f amx_bf16 amx_tile")
    assert not cpu_has_bf16("flags : fpu avx512f avx512_vnni")
    assert not cpu_has_bf16("flags : fpu avx2 xavx512_bf16x")  # a flag, not part of another word
