"""A deterministic hashing embedder for tests and CI-sized evaluation runs (no model files)."""
from __future__ import annotations

import re
import zlib

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding


class HashingEmbedding(BaseEmbedding):
    """Deterministic bag-of-words embedder (crc32 of lower-cased words, L2-normalised).

    For tests and CI-sized evaluation runs: no model, no randomness, similar texts score higher."""

    dim: int = 256

    @classmethod
    def class_name(cls) -> str:
        return "HashingEmbedding"

    def _vector(self, text: str) -> list[float]:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            h = zlib.crc32(word.encode("utf-8"))
            vec[h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        return (vec / norm).tolist() if norm else vec.tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)
