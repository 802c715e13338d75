"""A retrieved paper as every later stage sees it (Hit): its id, fused score, best dense cosine, best chunk and record.
A record type only: retrieve.py makes them."""
from __future__ import annotations

from dataclasses import dataclass

from ragqa.ingest.paper import authors_of


@dataclass(frozen=True)
class Hit:
    """One retrieved paper: its best chunk, fused score and best dense cosine."""

    paper_id: str
    score: float
    relevance: float | None  # best dense cosine (1.0: the question names it), None: only BM25 found it
    text: str
    meta: dict

    @classmethod
    def of_paper(cls, paper_id: str, meta: dict, relevance: float | None = None) -> "Hit":
        """A paper that no search ranked (an earlier citation, a warm-up), from its stored metadata."""
        return cls(paper_id=paper_id, score=0.0, relevance=relevance, text=meta.get("text", ""), meta=meta)

    def as_json(self) -> dict:
        m = self.meta
        return {
            "paper_id": self.paper_id, "label": m.get("label"), "title": m.get("title") or None,
            "venue": m.get("venue") or None, "year": m.get("year") or None,
            "authors": authors_of(m),
            "authors_truncated": bool(m.get("authors_truncated")), "topic": m.get("topic") or None,
            "score": round(self.score, 5),
            "relevance": None if self.relevance is None else round(self.relevance, 4),
            "text": self.text, "abstract": m.get("abstract"),
        }
