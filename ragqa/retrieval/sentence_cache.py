"""Each candidate paper's abstract sentences and their vectors, embedded once per process: best-sentence closeness
for the decisions and the sentences evidence is chosen from. A sentence that addresses the model or the reader
(untrusted.is_instruction) never enters the cache, so no prompt, list line or quoted fallback can carry it."""
from __future__ import annotations

import threading

import numpy as np

from ragqa.text.untrusted import is_instruction


class SentenceCache:
    """paper id -> (sentences, unit vectors), embedded once per process with the given embedder."""

    def __init__(self, embedder, split, max_papers: int = 20000):
        self.embedder, self.split, self.max_papers = embedder, split, max_papers
        self._cache: dict[str, tuple[list[str], np.ndarray]] = {}
        self._lock = threading.Lock()

    def get(self, hits) -> list[tuple[list[str], np.ndarray]]:
        """(sentences, vectors) for each hit, embedding in one batch only what is not cached."""
        todo = {h.paper_id: [s for s in self.split(h.meta.get("text") or h.text) if not is_instruction(s)]
                for h in hits if h.paper_id not in self._cache}
        flat = [s for sents in todo.values() for s in sents]
        vectors = (np.asarray(self.embedder.get_text_embedding_batch(flat), dtype=np.float32) if flat
                   else np.zeros((0, 1), np.float32))
        with self._lock:
            if len(self._cache) + len(todo) > self.max_papers:
                self._cache.clear()
            offset = 0
            for pid, sents in todo.items():
                self._cache[pid] = (sents, vectors[offset:offset + len(sents)])
                offset += len(sents)
            return [self._cache.get(h.paper_id) or (todo.get(h.paper_id, []), np.zeros((0, 1), np.float32))
                    for h in hits]

    def closeness(self, question_vec, hits) -> dict[str, float]:
        q = np.asarray(question_vec, dtype=np.float32)
        out = {}
        for h, (sents, vectors) in zip(hits, self.get(hits)):
            if len(sents) and vectors.shape[1] == q.shape[0]:
                out[h.paper_id] = float((vectors @ q).max())
        return out
