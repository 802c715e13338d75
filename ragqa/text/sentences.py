"""Sentences and the units of meaning compared across texts: splitting an abstract into sentences, which part of it a
sentence belongs to (the authors' own work, background, where the code is), content words, and Chinese character pairs.
Plain text in, plain text out: no embedding, no records."""
from __future__ import annotations

import re
from functools import lru_cache

from ragqa.text.clean import CONTENT_WORD

# a full stop after these abbreviations ends no sentence, in abstracts or answers ("Smith et al. (2023)", "e.g. BERT")
_ABBREVIATIONS = ("et al", r"e\.g", r"i\.e", "vs", "cf", "Fig", "Eq", "Sec", "resp")
BEFORE_STOP = "".join(rf"(?<!\b{a})" for a in _ABBREVIATIONS)  # lookbehinds for the position of a full stop
_AFTER_STOP = "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATIONS)  # ... and for the position just after it
_STOP = {"this", "that", "with", "from", "their", "they", "which", "these", "those", "paper", "papers", "work",
         "method", "approach", "also", "such", "into", "using", "used", "uses", "have", "been", "more", "than"}


# a sentence in which the authors speak of their own work; what comes before the first one is background
OWN_WORK = re.compile(r"\b(?:we|our|this (?:paper|work|study))\b", re.I)


# where to get the code or data, not what the paper does ("Our code is available at https://github.com/...")
AVAILABILITY = re.compile(
    r"https?://|\bwww\.|github\.com|\b(?:code|codes|codebase|source code|implementation|data|dataset|datasets|software|"
    r"project page)\b[^.]{0,60}?\b(?:is|are|will be|has been|have been)\s+(?:made\s+)?(?:publicly\s+|freely\s+)?"
    r"(?:available|released|open[- ]?sourced)\b", re.I)


def available_at(sentence: str) -> bool:
    """Where to get the code or data: an AVAILABILITY statement of at most 20 words besides its links (a longer
    sentence that mentions a link says something else too)."""
    if not AVAILABILITY.search(sentence):
        return False
    return len(re.sub(r"\S*(?:https?://|www\.|github\.com)\S*", " ", sentence).split()) <= 20


def part_rank(sentences: list[str]) -> list[int]:
    """Per sentence of one abstract: 0 where the authors speak of their work ("we ...", "this paper ..."), 1 the
    rest of the paper's own part (after its first such sentence), 2 its background (before it), 3 where to get its
    code or data (available_at), which says nothing of what the paper does."""
    start = next((i for i, x in enumerate(sentences) if OWN_WORK.search(x)), 0)
    return [3 if available_at(x) else 0 if OWN_WORK.search(x) else 1 if i >= start else 2
            for i, x in enumerate(sentences)]


def own_part_first(order: list[int], sentences: list[str]) -> list[int]:
    """Sentence indices in the given order regrouped by part_rank: the authors' own words, the rest of their
    part, then background ("Data valuation plays a crucial role in machine learning.")."""
    rank = part_rank(sentences)
    return sorted(order, key=lambda i: rank[i])  # stable: the given order within each group


def split_sentences(text: str) -> list[str]:
    """Sentences of an abstract; also where a listing lost the space after a full stop ("... samples.The code is"),
    which glued ~800 pairs of sentences in the ICLR and ICML 2024 abstracts."""
    parts = re.split(rf"(?<=[.!?]){_AFTER_STOP}\s+(?=[A-Z0-9(\"'])|(?<=[a-z]{{2}}[.!?])(?=[A-Z][a-z]+\b)", text.strip())
    return [p.strip() for p in parts if len(p.strip()) > 2]


def content_words(text: str) -> set[str]:
    return {w for w in CONTENT_WORD.findall(text.lower()) if w not in _STOP}


_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


@lru_cache(maxsize=256)
def text_units(text: str) -> frozenset[str]:
    """Content words, and the character pairs of Chinese runs: units of meaning comparable in either language.
    Cached: the guards ask for the same sources' and question's units once per sentence of an answer."""
    units = content_words(_CJK_RUN.sub(" ", text))
    for run in _CJK_RUN.findall(text):
        units |= {run[i:i + 2] for i in range(len(run) - 1)}
    return frozenset(units)
