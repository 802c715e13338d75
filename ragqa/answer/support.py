"""Claim support: is a sentence of the model's answer supported by the source it cites (or, uncited, by the source it
would be credited to)? A few word-level features of three plain strings - the sentence, the source's text (label,
title, venue, year and the evidence sentences shown to the model: source_text) and the question - and one logistic
model over them with its keep threshold, fitted on hand-labelled answer sentences by
`python -m evals.experiments.claim_support` (ragqa/calibration/claim-support.json). citations.resolve_citations runs
it on every cited sentence and to credit an uncited one, in place of three share thresholds and the echo guard: out
of fold it kept 6 more right sentences than they did at the same wrong ones (evals/reports/claim-support-20261206/).

Left out: meaning. A sentence that inverts, negates or overstates its source in the source's own words ("Active
learning helps ... [1]" where the source only tries it) scores as supported; sentence embeddings (MiniLM cosine to the
best evidence sentence) were measured and added nothing. Chinese sentences are not scored (the sources are English:
no feature compares them; `features` -> None), nor sentences without a content word ("Yes [1].").
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ragqa.answer.answerability import json_fields, logistic, model_json
from ragqa.errors import read_model_file
from ragqa.text.clean import CJK
from ragqa.text.sentences import content_words

FEATURES = ("share", "share_all", "new_share", "question_only_share", "new_words", "missing_names", "echo", "negation",
            "question_in_source", "length", "cited")
DEFAULT_FILE = Path(__file__).resolve().parent.parent / "calibration" / "claim-support.json"

# a citation marker, "[1]", "[2, 3]", "[2-4]" (its numbers the group); citations.py reads markers with it
MARKER = re.compile(r"\[(\d+(?:\s*(?:,|;|-|–|and)\s*\d+)*)\]")
# a name as written: two capitals (LoRA, CLIP, ViT, SAEs, Zero-Shot), letters and digits (GPT-4, DINOv2, HiBug2), or a
# capital before a hyphen (B-cos)
_TOKEN = re.compile(r"(?<![\w-])[A-Za-z][\w+*-]*[\w+*]")
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|cannot)\b|n't\b", re.I)


def stems(words: Iterable[str]) -> set[str]:
    """Words stemmed as BM25 stems them (lexical.stemmer): finding = find."""
    from ragqa.store.lexical import stemmer

    return set(stemmer().stemWords(list(words)))


def claim_words(text: str) -> set[str]:
    """A text's content words, stemmed, markers left out."""
    return stems(content_words(MARKER.sub(" ", text)))


def source_text(meta: Mapping, evidence: Iterable[str]) -> str:
    """What a source shows of its paper: label, title, venue, year and evidence sentences (a Source's hit.meta and
    evidence, or a logged source dict and its "evidence")."""
    return " ".join(str(meta.get(k) or "") for k in ("label", "title", "venue", "year")) + " " + " ".join(evidence)


def names(text: str) -> set[str]:
    """The names a text writes in mixed case, capitals or with digits: methods, datasets, benchmarks, models."""
    return {t for t in _TOKEN.findall(MARKER.sub(" ", text))
            if len(re.findall(r"[A-Z]", t)) >= 2 or re.search(r"\d", t) or re.match(r"[A-Z]-", t)}


def holds_name(name: str, text: str) -> bool:
    """The text writes the name (any case, a plural "s" either side), spells out the acronym it is ("MHSA": multi-head
    self-attention; each word gives the next letters), or, hyphenated, holds every named part ("non-CLIP")."""
    key = re.sub(r"(?<=[A-Z])s$", "", name).lower()
    lowered = text.lower()
    if re.search(r"(?<![a-z0-9])" + re.escape(key) + r"s?(?![a-z0-9])", lowered):
        return True
    if "-" in name:
        parts = [p for p in name.split("-") if p in names(p)]
        return bool(parts) and all(holds_name(p, text) for p in parts)
    return key.isalpha() and len(key) <= 6 and _spells(key, re.findall(r"[a-z0-9]+", lowered))


def _spells(acronym: str, words: list[str]) -> bool:
    def rest(letters: str, i: int) -> bool:
        if not letters:
            return True
        if i >= len(words):
            return False
        return any(words[i].startswith(letters[:k]) and rest(letters[k:], i + 1) for k in range(len(letters), 0, -1))
    return any(w[0] == acronym[0] and rest(acronym, i) for i, w in enumerate(words))


def features(sentence: str, source: str, question: str = "", cited: bool = True) -> dict[str, float] | None:
    """The model's inputs for one sentence against one source text (several cited sources: their texts joined), or None
    when there is nothing to compare (a Chinese sentence, no content word). Its words are stemmed content words. share:
    its words not the question's (all of them if none is left) found in the source (the share the cited check
    thresholded before this model); share_all: the same with the question's counted; new_share: its share of words in
    neither question nor source (written by the model); question_only_share: of words the question has and the source
    does not (echoed, unsupported); new_words: log(1 + words in neither); missing_names: names (`names`) the source does
    not hold; echo: its share of words the question has; negation: 1 when it negates (not, no, never, neither, nor, n't)
    and the source does not; question_in_source: share of the question's words the source holds (NaN for a question
    without English ones: unknown); length: log of its word count; cited: 1 when it cites the source, 0 when it is being
    credited to it."""
    if CJK.search(sentence):
        return None
    plain = MARKER.sub(" ", sentence)
    words = claim_words(plain)
    if not words:
        return None
    held = claim_words(source)
    asked = claim_words(question)
    own = (words - stems(re.findall(r"[a-z0-9][\w'-]*", question.lower()))) or words  # any length: get = gets
    return {
        "share": len(own & held) / len(own),
        "share_all": len(words & held) / len(words),
        "new_share": len(words - asked - held) / len(words),
        "question_only_share": len((words & asked) - held) / len(words),
        "new_words": math.log1p(len(words - asked - held)),
        "missing_names": float(sum(not holds_name(n, source) for n in names(plain))),
        "echo": len(words & asked) / len(words),
        "negation": float(bool(_NEGATION.search(plain)) and not _NEGATION.search(source)),
        "question_in_source": len(asked & held) / len(asked) if asked else math.nan,
        "length": math.log(len(words)),
        "cited": float(cited),
    }


def best_source(sentence: str, sources: Mapping[int, str]) -> int | None:
    """Among `sources` (n -> source_text), the one holding most of the sentence's words (the first on a tie); None
    when there is none or the sentence has no content word."""
    words = claim_words(sentence)
    if not sources or not words:
        return None
    return max(sources, key=lambda n: len(words & claim_words(sources[n])))


@dataclass(frozen=True)
class ClaimSupport:
    """Logistic weights over standardised `features` (names from FEATURES) and the P at or above which a sentence is
    kept. `source`: the command that fitted it; `counts`: the labelled sentences it was fitted on."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    source: str = ""
    counts: Mapping | None = None

    def probability(self, sentence: str, source: str, question: str = "", cited: bool = True) -> float | None:
        """P(supported), or None when the sentence is not scored (`features`). An unknown feature (NaN) counts as the
        fitted rows' mean."""
        x = features(sentence, source, question, cited)
        if x is None:
            return None
        row = [m if math.isnan(x[f]) else x[f] for f, m in zip(self.features, self.mean)]
        return float(logistic(self, np.array([row]))[0])

    def supported(self, sentence: str, source: str, question: str = "", cited: bool = True) -> bool:
        """Keep the sentence: P >= threshold, or not scored."""
        p = self.probability(sentence, source, question, cited)
        return p is None or p >= self.threshold

    def credited(self, sentence: str, sources: Mapping[int, str], question: str = "") -> int | None:
        """An uncited sentence's source (`best_source` among `sources`, n -> source_text) when the model keeps the
        sentence against it; else None."""
        n = best_source(sentence, sources)
        return n if n is not None and self.supported(sentence, sources[n], question, cited=False) else None

    def to_json(self) -> dict:
        return model_json(self)

    @classmethod
    def from_json(cls, data: dict) -> ClaimSupport:
        fields = json_fields(cls, data)
        features_ = fields.get("features") or ()
        if not features_ or not set(features_) <= set(FEATURES):
            raise ValueError(f"features must be among {', '.join(FEATURES)}")
        if not len(fields.get("coef", ())) == len(fields.get("mean", ())) == len(fields.get("scale", ())) == \
                len(features_):
            raise ValueError(f"the weights do not match the {len(features_)} features")
        return cls(**fields)


@lru_cache(maxsize=4)
def load_claim_support(path: str = str(DEFAULT_FILE)) -> ClaimSupport:
    """The fitted check (the committed file unless another is given)."""
    return read_model_file(path, ClaimSupport.from_json, "claim-support model",
                           "python -m evals.experiments.claim_support")
