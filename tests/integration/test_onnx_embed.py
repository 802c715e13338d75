"""The ONNX int8 and torch-bf16 MiniLM backends give the torch fp32 model's vectors (cosine >= 0.999); the
ONNX one imports no torch."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ragqa.config import Settings
from ragqa.models.weights import load_embedder

pytestmark = pytest.mark.integration
TEXTS = ["Sparse autoencoders decompose activations into interpretable features.",
         # past 256 word-pieces
         "We propose a graph neural network with distributed-order fractional derivatives. " * 20,
         "扩散模型采样质量"]  # word-pieces the English vocabulary barely has


def test_onnx_vectors_match_torch():
    onnx = np.array(load_embedder(Settings(embed_backend="onnx")).get_text_embedding_batch(TEXTS))
    torch = np.array(load_embedder(Settings(embed_backend="torch")).get_text_embedding_batch(TEXTS))
    assert onnx.shape == torch.shape == (len(TEXTS), 384)
    cosine = (onnx * torch).sum(axis=1)
    assert cosine[:2].min() >= 0.999 and cosine[2] >= 0.998


def test_onnx_backend_imports_no_torch():
    code = ("import sys; from ragqa.config import Settings; from ragqa.models.weights import load_embedder; "
            "e = load_embedder(Settings(embed_backend='onnx')); e.get_query_embedding('x'); "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"HF_HUB_OFFLINE": "1", "PATH": ""})
    assert done.returncode == 0, done.stderr[-400:]
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_bf16_backend_vectors_match_fp32():
    bf16 = np.array(load_embedder(Settings(embed_backend="torch-bf16")).get_text_embedding_batch(TEXTS[:2]))
    fp32 = np.array(load_embedder(Settings(embed_backend="torch")).get_text_embedding_batch(TEXTS[:2]))
    cosine = (bf16 * fp32).sum(axis=1) / (np.linalg.norm(bf16, axis=1) * np.linalg.norm(fp32, axis=1))
    assert cosine.min() >= 0.999


def test_default_question_side_imports_no_torch():
    code = ("import sys; from ragqa.config import Settings; from ragqa.pipeline import Pipeline; "
            "p = Pipeline(Settings()); p.embedder.get_query_embedding('x'); "
            "p.embedder.get_text_embedding_batch(['an evidence sentence']); print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"HF_HUB_OFFLINE": "1", "PATH": ""})
    assert done.returncode == 0, done.stderr[-400:]
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_a_prefetched_session_embeds_as_one_opened_on_demand():
    from ragqa.models import onnx_session
    from ragqa.models.weights import prefetch_embedder

    prefetch_embedder(Settings(query_backend="onnx"))
    assert len(onnx_session._pending) == 1
    prefetched = load_embedder(Settings(query_backend="onnx"), queries=True)
    assert not onnx_session._pending  # taken
    fresh = load_embedder(Settings(query_backend="onnx"), queries=True)
    assert prefetched._session is not fresh._session
    assert np.allclose(prefetched.get_text_embedding_batch(TEXTS), fresh.get_text_embedding_batch(TEXTS), atol=1e-6)
