"""Records of one paper (the same abstract, hence the same id) -> one Paper: each field from whichever record has
it, and line-wrap hyphenation repaired against the whole load's words. Reading and identity are elsewhere.
"""
from __future__ import annotations

import re
from dataclasses import replace

from ragqa.ingest.paper import Paper
from ragqa.text.clean import corpus_vocabulary, dehyphenate


def merge_papers(a: Paper, b: Paper) -> Paper:
    """Same abstract twice: keep each field from whichever record has it (the venue from a venue
    list, the authors from a search page); the longer, untruncated author list wins; extra fields
    (keywords, status, url) are united, the first record's value winning; a topic that refines the
    other ("Deep Learning->Graph Neural Networks" over "Deep Learning") wins."""
    authors, truncated = a.authors, a.authors_truncated
    if (len(b.authors), not b.authors_truncated) > (len(authors), not truncated):
        authors, truncated = b.authors, b.authors_truncated
    return replace(
        a,
        venue=a.venue or b.venue, year=a.year or b.year, topic=_finer_topic(a.topic, b.topic),
        authors=authors, authors_truncated=truncated, title=a.title or b.title,
        label=a.label if a.title or not b.title else b.label,
        source_id=a.source_id or b.source_id, extra=tuple({**dict(b.extra), **dict(a.extra)}.items()),
        sources=tuple(dict.fromkeys(a.sources + b.sources)),
    )


def _finer_topic(a: str | None, b: str | None) -> str | None:
    words = [re.findall(r"[^\W_]+", (t or "").lower()) for t in (a, b)]
    if a and b and len(words[1]) > len(words[0]) and words[1][:len(words[0])] == words[0]:
        return b
    return a or b


def merge_all(papers: list[Paper]) -> list[Paper]:
    """Dedupe by content id, in first-seen order, and repair line-wrap hyphenation."""
    merged: dict[str, Paper] = {}
    for paper in papers:
        merged[paper.paper_id] = merge_papers(merged[paper.paper_id], paper) if paper.paper_id in merged else paper
    vocabulary = corpus_vocabulary([p.text for p in merged.values()])
    return [replace(p, text=dehyphenate(p.text, vocabulary)) for p in merged.values()]
