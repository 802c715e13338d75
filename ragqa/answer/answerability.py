"""One answerability decision: each candidate paper gets P(it answers the question) from measured
features, combined by a model fitted by `ragqa eval calibrate` (evals/calibrate.py): gradient-boosted trees,
monotone in each feature that has a direction (not the question's length), by default; a logistic model where a
calibration file holds one.

Features are signals, not rules: dense cosine, best-sentence closeness, how much of the question's
IDF-weighted vocabulary the paper's title and abstract contain, the cosine gap to the best paper, the question's
length in terms, and whether the question names the paper (FEATURES; MEASURED adds two that calibration left out).
The weights and the operating points come from a calibration file; nothing here is tuned by hand. Retrieval and
answer composition live elsewhere.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from ragqa.errors import RagqaError, read_model_file
from ragqa.text.terms import TermStats

# the model's inputs. Candidate also measures `rarest` and `unseen`: fitted with them, both took the sign
# opposite to their meaning (collinear with coverage) and the held-out and transfer splits abstained less
# on near-misses at the same false abstention (evals/reports/*calibration*), so they are left out
# `qlen`, the question's number of distinct content terms: coverage is a share of them, and a long question in a
# person's words ("my training data has a bunch of missing or dirty entries …") covers a smaller share of the paper that
# answers it than a short one; with it, the model reads coverage by length (README, calibration of 2026-12-04 pm)
FEATURES = ("cosine", "closeness", "coverage", "gap", "named", "qlen")
# per paper, as `ragqa eval calibrate` saves them
MEASURED = ("cosine", "closeness", "coverage", "rarest", "unseen", "gap", "named", "qlen")
# per paper among the question's other candidates, derived from MEASURED (with_context)
CONTEXT = ("lead", "lead_closeness", "lead_coverage", "spread")
KNOWN = MEASURED + CONTEXT
@dataclass(frozen=True)
class Candidate:
    """The features of one (question, paper) pair; `named` means the question names the paper."""

    paper_id: str
    cosine: float
    closeness: float
    coverage: float
    rarest: float
    unseen: float
    gap: float
    named: float
    qlen: float = 0.0
    lead: float = 0.0
    lead_closeness: float = 0.0
    lead_coverage: float = 0.0
    spread: float = 0.0

    def vector(self, features: tuple[str, ...] = FEATURES) -> list[float]:
        return [getattr(self, f) for f in features]


def _lead(values: list[float]) -> list[float]:
    """Each value minus the largest of the others (0 for a lone value): how far a paper stands out."""
    if len(values) < 2:
        return [0.0] * len(values)
    order = sorted(range(len(values)), key=lambda i: -values[i])
    first, second = values[order[0]], values[order[1]]
    return [v - (second if i == order[0] else first) for i, v in enumerate(values)]


def with_context(columns: dict[str, list[float]]) -> dict[str, list[float]]:
    """Features of each candidate's standing among the question's candidates (query-performance
    prediction): its lead over the best other paper by cosine, closeness and coverage, and the
    question's spread (best cosine minus the mean of the top ten)."""
    cos = columns["cosine"]
    top = sorted(cos, reverse=True)[:10]
    spread = (top[0] - sum(top) / len(top)) if top else 0.0
    return {"lead": _lead(cos), "lead_closeness": _lead(columns["closeness"]),
            "lead_coverage": _lead(columns["coverage"]), "spread": [spread] * len(cos)}


def candidate_features(query: str, hits, closeness: dict[str, float], stats: TermStats) -> list[Candidate]:
    """Features for each hit. `closeness`: paper id -> best cosine of one of its sentences to the
    question (papers without one get their chunk cosine)."""
    qterms = stats.subject_terms(query)
    df = stats.df(qterms)
    weights = {t: stats.idf(t) for t in qterms}
    total = sum(weights.values()) or 1.0
    unseen = sum(w for t, w in weights.items() if t not in df) / total
    seen = sorted((t for t in qterms if t in df), key=lambda t: -weights[t])[:2]  # the question's rarest indexed terms
    best = max((h.relevance for h in hits if h.relevance is not None and h.relevance < 1.0), default=0.0)
    out = []
    for h in hits:
        have = stats.terms_of(h.paper_id)
        named = 1.0 if h.relevance is not None and h.relevance >= 1.0 else 0.0
        # a paper only BM25 found, or an earlier citation: its best sentence stands in for its chunk cosine
        cosine = best if named else (h.relevance if h.relevance is not None else closeness.get(h.paper_id, 0.0))
        out.append(Candidate(
            paper_id=h.paper_id, cosine=cosine, closeness=closeness.get(h.paper_id, cosine),
            coverage=sum(w for t, w in weights.items() if t in have) / total,
            rarest=(sum(weights[t] for t in seen if t in have) / sum(weights[t] for t in seen)) if seen else 0.0,
            unseen=unseen, gap=best - cosine, named=named, qlen=float(len(qterms)),
        ))
    context = with_context({f: [getattr(c, f) for c in out] for f in MEASURED})
    return [replace(c, **{f: context[f][i] for f in CONTEXT}) for i, c in enumerate(out)]


@dataclass(frozen=True)
class Calibration:
    """A fitted model over its `features` (names from KNOWN; trees, or logistic weights) and its operating points,
    for one embedding model (and LLM profile). `answer_threshold`: the best paper's P at or above which the question
    is answered (below it: not covered); `answered_threshold`: at or above it the answer is `answered`, between the
    two `related` (the closest papers, said to be no exact match; 0: no such tier); `list_threshold`: a paper joins
    a list answer at or above it."""

    embed_model: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    answer_threshold: float
    list_threshold: float
    source: str = ""
    answered_threshold: float = 0.0
    # gradient-boosted trees over the raw features, each {feature, threshold, left, right, leaf, value} per node
    # (node 0 the root; x[feature] <= threshold goes left), summed onto `baseline` as log-odds; empty: the logistic
    # model
    trees: tuple = ()
    baseline: float = 0.0
    # the answered point as measured on collections of other sizes, ((papers, point), ...) (coverage_points --small):
    # in a small library a near-miss seldom has a close paper, so the same share of near-misses answered comes at a
    # lower P; empty: `answered_threshold` at every size
    answered_by_size: tuple = ()

    def for_collection(self, papers: int) -> "Calibration":
        """These points with the answered point for a collection of `papers`: interpolated in log size between the
        sizes it was measured at, the nearest one's outside them."""
        if not self.answered_by_size or papers < 1:
            return self
        sizes = sorted((int(n), float(p)) for n, p in self.answered_by_size)
        point = float(np.interp(np.log(papers), np.log([n for n, _ in sizes]), [p for _, p in sizes]))
        return replace(self, answered_threshold=round(point, 4))

    def probability(self, candidates: list[Candidate]) -> np.ndarray:
        if not candidates:
            return np.zeros(0)
        x = np.array([c.vector(self.features) for c in candidates], dtype=float)
        if self.trees:
            return 1.0 / (1.0 + np.exp(-(self.baseline + sum(_tree_value(tree, x) for tree in self._tree_arrays))))
        return logistic(self, x)

    @cached_property
    def _tree_arrays(self) -> list[tuple[np.ndarray, ...]]:
        keys = ("feature", "threshold", "left", "right", "leaf", "value")
        return [tuple(np.asarray(tree[k], dtype=bool if k == "leaf" else None) for k in keys) for tree in self.trees]

    def describe(self) -> str:
        if self.trees:
            return f"{len(self.trees)} gradient-boosted trees over {', '.join(self.features)}"
        return "logistic weights (standardised features): " + ", ".join(
            f"{f} {w:+.2f}" for f, w in zip(self.features, self.coef))

    def to_json(self) -> dict:
        return model_json(self)

    @classmethod
    def from_json(cls, data: dict) -> "Calibration":
        fields = json_fields(cls, data)
        if (not isinstance(fields.get("trees", ()), tuple)
                or not all(isinstance(t, dict) for t in fields.get("trees", ()))):
            raise ValueError("trees must be a list of node tables")
        if not fields.get("features") or not set(fields["features"]) <= set(KNOWN):
            raise RagqaError(f"calibration features {fields.get('features')} are not all known to this version "
                             f"({', '.join(KNOWN)}). Run 'ragqa eval calibrate' again.")
        width = len(fields["features"])
        if (not fields.get("trees") and len(fields.get("coef", ())) != width) or \
                any(f >= width for t in fields.get("trees", ()) for f in t["feature"]):
            raise ValueError(f"the model's inputs do not match its {width} features")
        return cls(**fields)


def logistic(model, x: np.ndarray) -> np.ndarray:
    """P from a model's logistic weights (`mean`, `scale`, `coef`, `intercept`) over raw feature rows `x`: the one
    formula answerability's logistic models and topical.TopicalModel share."""
    z = ((x - np.array(model.mean)) / np.array(model.scale)) @ np.array(model.coef) + model.intercept
    return 1.0 / (1.0 + np.exp(-z))


def model_json(model) -> dict:
    """A fitted model dataclass as JSON (tuples as lists), as its calibration file holds it."""
    return {f: list(getattr(model, f)) if isinstance(getattr(model, f), tuple) else getattr(model, f)
            for f in model.__dataclass_fields__}


def json_fields(cls, data: dict) -> dict:
    """A calibration file's fields that `cls` has, lists back as tuples (model_json's inverse)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in cls.__dataclass_fields__}


def _tree_value(tree: tuple[np.ndarray, ...], x: np.ndarray) -> np.ndarray:
    """Each row's leaf value in one tree, walking all rows down together."""
    feature, threshold, left, right, leaf, value = tree
    node, rows = np.zeros(len(x), dtype=int), np.arange(len(x))
    while not leaf[node].all():
        step = np.where(x[rows, feature[node]] <= threshold[node], left[node], right[node])
        node = np.where(leaf[node], node, step)
    return value[node]


@lru_cache(maxsize=8)
def _read(path: str) -> Calibration:
    return read_model_file(path, Calibration.from_json, "calibration file", "ragqa eval calibrate",
                           "RAGQA_CALIBRATION_FILE")


def load_calibration(settings, embed_name: str, profile: str | None = None) -> Calibration:
    """The calibration file Settings point at; else the one for this embedding model and model profile
    (`<embedder>-<profile>.json`, e.g. a strong model's own run), else the embedding model's."""
    if settings.calibration_file:
        return _read(str(settings.calibration_file))
    slug = model_slug(embed_name)
    return _read(str(committed_file(settings.calibration_dir,
                                    ([f"{slug}-{profile}"] if profile else []) + [slug, "default"])))


def model_slug(embed_name: str) -> str:
    """An embedding model's name as a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", embed_name)


def committed_file(directory: Path, stems: list[str]) -> Path:
    """The first `<stem>.json` in `directory` that exists, else the last one (whose absence the reader reports)."""
    return next((directory / f"{s}.json" for s in stems if (directory / f"{s}.json").exists()),
                directory / f"{stems[-1]}.json")


@dataclass(frozen=True)
class Judgement:
    """Per paper P(answers), the question-level decision and the papers a list answer takes."""

    probabilities: dict[str, float]
    answerable: bool
    listed: tuple[str, ...]
    best: float
    answering: tuple[str, ...] = ()  # papers at or above the answer point (or named): each would answer on its own
    named: tuple[str, ...] = ()  # papers the question (or the conversation) names by title or method name
    coverage: str = ""  # "answered", "related" (answerable, but no paper reached the answered point) or "not_covered"

    def top(self, n: int) -> list[str]:
        """The first n listed papers, or the best paper alone when none reached the list point."""
        return list(self.listed[:n]) or [max(self.probabilities, key=self.probabilities.get)]

    def explain(self, n: int) -> list[str]:
        """The papers an explain answer is written from: the best, then up to n - 1 more that each clear the
        answer point. On SciFact's human-labelled claims in the calibration run, a second paper between the list and
        answer points answered 3 of 88 claims, one above the answer point 42 of 230 (README). Papers the question
        names come alone."""
        # the question names its papers ("Vision Transformers Need Registers 这篇论文…"): those answer it
        if self.named:
            return list(self.named[:n])
        first = self.top(n)
        return first[:1] + [pid for pid in first[1:] if pid in self.answering]

    def as_json(self) -> dict:
        return {"answerable": self.answerable, "best": round(self.best, 4),
                "probabilities": {k: round(v, 4) for k, v in self.probabilities.items()}, "listed": list(self.listed),
                "answering": list(self.answering), "named": list(self.named), "coverage": self.coverage}


def judge(calibration: Calibration, candidates: list[Candidate]) -> Judgement:
    """P per paper; the question is answerable when the best P reaches the operating point, or when
    it names an indexed paper by its title or method name (issue #14: such a paper answers what is
    asked of it; a name no indexed paper carries is refused before this, by the name check)."""
    p = calibration.probability(candidates)
    probs = {c.paper_id: float(v) for c, v in zip(candidates, p)}
    best = max(probs.values(), default=0.0)
    named = [c.paper_id for c in candidates if c.named >= 1.0]
    ranked = sorted(probs.items(), key=lambda kv: (-(kv[0] in named), -kv[1]))
    listed = tuple(pid for pid, v in ranked if v >= calibration.list_threshold or pid in named)
    answering = tuple(pid for pid, v in ranked if v >= calibration.answer_threshold or pid in named)
    answerable = best >= calibration.answer_threshold or bool(named)
    return Judgement(probs, answerable, listed, best, answering, tuple(named), coverage_of(calibration, best, named))


def coverage_of(calibration: Calibration, best: float, named) -> str:
    """The tier of a question whose best paper has P `best`: a question naming a paper is answered by it."""
    if named or best >= max(calibration.answer_threshold, calibration.answered_threshold):
        return "answered"
    return "related" if best >= calibration.answer_threshold else "not_covered"


def candidates_for(searcher, result, question_vec, extra_hits=()) -> list[Candidate]:
    """Features of a search result's hits (+ earlier papers a follow-up keeps): the one path shared
    by answering and `ragqa eval calibrate`."""
    hits = list(result.hits) + [h for h in extra_hits if h.paper_id not in {x.paper_id for x in result.hits}]
    closeness = searcher.sentences.closeness(question_vec, hits)
    return candidate_features(result.query, hits, closeness, searcher.term_stats())


def assess(searcher, result, question_vec, calibration: Calibration,
           extra_hits=()) -> tuple[list[Candidate], Judgement]:
    candidates = candidates_for(searcher, result, question_vec, extra_hits)
    return candidates, judge(calibration, candidates)
