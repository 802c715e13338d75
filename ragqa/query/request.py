"""What a search is asked: the question, checked, and its filters. No llama-index or Chroma import, so a caller can
check them, and open the store (whose vector index then loads in a thread), before retrieve's imports run."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ragqa.errors import QueryError


@dataclass(frozen=True)
class Filters:
    venue: str | None = None  # "ICLR 2024 or ICLR 2025": either
    year: int | None = None
    author: str | None = None
    topic: str | None = None
    status: str | None = None  # oral / spotlight / poster, where the corpus has it; "Oral or Spotlight": either
    library: str | None = None  # one library (ragqa ingest --library); None: all

    def active(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "")}


_YEAR_SUFFIX = re.compile(r"\s+((?:19|20)\d\d)$")


def venue_year(value: str) -> tuple[str, str | None]:
    """A value's name and the year it ends with ("ICLR 2024" -> ("ICLR", "2024")); (value, None) without one."""
    found = _YEAR_SUFFIX.search(value)
    return (value[:found.start()], found.group(1)) if found and found.start() else (value, None)


def venue_parts(venue: str) -> list[str]:
    """The venues a venue filter's value names: "ICLR 2024 or ICLR 2025" -> both (either admits a paper)."""
    return [part.strip() for part in venue.split(" or ")]


def venue_spans(venue: str) -> list[str]:
    """How a question may write a venue filter's value: each venue of it ("ICLR 2024 or ICLR 2025"), its name and its
    year apart ("ICLR", "2024")."""
    spans = []
    for part in venue_parts(venue):
        spans.append(part)
        name, year = venue_year(part)
        if year:
            spans += [name, year]
    return spans


def require_question(question: str | None, limit: int | None = None) -> str:
    """The stripped question; empty, or longer than `limit` characters (Settings.max_question_chars), is a
    QueryError."""
    question = (question or "").strip()
    if not question:
        raise QueryError("The question is empty. Type a question, e.g. 'Which papers study sparse autoencoders?'")
    if limit is not None and len(question) > limit:
        raise QueryError(f"The question is {len(question):,} characters; ask it in at most {limit:,} "
                         "(RAGQA_MAX_QUESTION_CHARS), e.g. the paragraph that matters.")
    return question
