"""Topical relevance: P(this paper is about the question's subject), the decision lists, counts and group-bys take
(answerability.py asks another thing: whether one paper answers a specific question; for "Which papers deal with
reinforcement learning?" every RL paper scores ~0.003 there).

A logistic model over signals of one (question subject, paper) pair: the answerability features that measure closeness
(cosine, best sentence, IDF-weighted coverage of the subject's terms, the rarest terms) and two that read the
paper's labels: how much of the subject's vocabulary its topic and keywords hold, and its title. Fitted by
`python -m evals.topical` on real topical labels (ICLR 2024's author keywords: "Which papers study <keyword>?",
gold = the papers labelled so or stating the keyword), split by keyword; its operating points (`on_point`: a paper
is listed as on the subject; `related_point`: a weaker match, listed under its own heading) come with it. No
threshold here is set by hand.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ragqa.answer.answerability import Candidate, committed_file, json_fields, logistic, model_json, model_slug
from ragqa.errors import read_model_file
from ragqa.query.metadata import spelled_out
from ragqa.text.clean import CJK
from ragqa.text.terms import TermStats, terms

# no feature of the paper's standing among the other candidates (answerability's lead and spread): many papers can be on
# a subject at once, and within a filter the candidates are few; fitted with them, held-out keyword lists scored the
# same (recall 0.915 / precision 0.775 against 0.910 / 0.775 without: evals/reports/20261206-topical-iclr2024)
FEATURES = ("cosine", "closeness", "coverage", "rarest", "label_coverage", "title_coverage", "labelled", "phrase")


def label_text(meta: dict) -> str:
    """A paper's labels: its topic and its keywords (from the record's extra fields)."""
    extra = meta.get("extra") or ""
    keywords = ""
    if extra:
        try:
            keywords = str(json.loads(extra).get("keywords") or "")
        except (ValueError, AttributeError):
            keywords = ""
    return f"{meta.get('topic') or ''} {keywords}"


def topical_query(result) -> str:
    """What a paper must be about: subject_words, or the query itself when nothing is left."""
    return subject_words(result) or result.query


_ASIDE = re.compile(r"\s*[(（][^()（）]*[)）]")
# an English gloss from its marker to the end of the question: "model editing, i.e. correcting knowledge in LLMs",
# "medical images, like chest x-rays or scans" (intent._GLOSS is another thing: a Chinese clause's parenthesised gloss)
_TRAILING_GLOSS = re.compile(r"(?:\b(?:i\.\s?e|e\.\s?g)\b\.?"
                    r"|[,;:—–]\s*(?:such as|like|for example|for instance|namely|that is)\b).*$", re.I)


def aside_readings(result) -> tuple[str, ...]:
    """The subject read without the question's asides, when it has any: in parentheses, or a gloss after "i.e.",
    "e.g.", ", like", ", such as" to the end. An aside glosses or exemplifies the subject ("diffusion generative models
    (DDPMs)", "medical imaging, e.g. X-rays, pathology slides"), and a paper on the subject need not write it."""
    if CJK.search(result.query):  # untranslated Chinese: its gloss is what can be read
        return ()
    no_aside = _ASIDE.sub(" ", result.query)
    bares = dict.fromkeys((no_aside, _TRAILING_GLOSS.sub(" ", no_aside)))
    readings = [subject_words(result, query=bare) for bare in bares if bare != result.query]
    return tuple(dict.fromkeys(read for read in readings if read))


_LABEL_LEVEL = re.compile(r"\s*(?:·|->|›)\s*")  # "Deep Learning · Generative Models", "Applications->Health"
_LABEL_EITHER = re.compile(r"\s*(?:,\s*(?:and\s+)?|&|\band\b)\s*", re.I)


def label_readings(result) -> tuple[str, ...]:
    """The subject read with the topic label it names (result.label: a label as the collection writes it, whose papers
    the filters leave out) replaced by each part of the label's last level: a label's last level names its subject,
    and "X and Y" in a label means either, as the papers under it show ("ICML'24 stuff on Deep Learning · Generative
    Models and Autoencoders": generative models, autoencoders)."""
    label = result.label
    if label is None or CJK.search(result.query):
        return ()
    from ragqa.query.metadata import span_pattern

    leaf = _LABEL_LEVEL.split(label.span)[-1]
    parts = [part for part in _LABEL_EITHER.split(leaf) if part.strip()]
    if parts == [label.span]:
        return ()
    asked = [re.sub(span_pattern(label.span), f" {part} ", result.query, flags=re.I) for part in parts]
    return tuple(dict.fromkeys(read for read in (subject_words(result, query=q) for q in asked) if read))


def subject_words(result, also: tuple[str, ...] = (), query: str | None = None) -> str:
    """The searched question less the filters' values (as the collection writes them, with a venue's series and year),
    the spans `also` and request wording (metadata.subject_of); "" when nothing is left."""
    from ragqa.query.metadata import subject_of
    from ragqa.query.request import venue_spans, venue_year

    spans = list(also)
    for name, value in result.filters.active().items():
        if name == "venue":  # its venues, names and years as the question may write them ("ICLR'24 and '25")
            spans += venue_spans(str(value))
            continue
        spans.append(str(value))
        if name == "author":  # a translation may keep only the surname: "the articles from Feizi"
            spans += str(value).split()
        if isinstance(value, str) and (split := venue_year(value))[1]:
            spans += list(split)
        if name == "topic":  # a label's parts: a translation may write one alone ("Accountability, Transparency …")
            spans += [part.strip() for part in str(value).split("·") if part.strip()]
    return subject_of(result.query if query is None else query, spans)


def _weighted_share(weights: dict[str, float], have: set[str]) -> float:
    total = sum(weights.values()) or 1.0
    return sum(w for t, w in weights.items() if t in have) / total


def _phrase_share(qterms: list[str], weights: dict[str, float], text: list[str]) -> float:
    """The weighted share of the subject's terms in its longest run that the text writes in a row, in that order
    ("large language model" in a row, not three words scattered over the abstract)."""
    total = sum(weights.get(t, 0.0) for t in qterms) or 1.0
    grams = {tuple(text[i:i + n]) for n in range(1, len(qterms) + 1) for i in range(len(text) - n + 1)}
    best = 0.0
    for i in range(len(qterms)):
        for j in range(i + 1, len(qterms) + 1):
            if tuple(qterms[i:j]) not in grams:
                break
            best = max(best, sum(weights.get(t, 0.0) for t in qterms[i:j]) / total)
    return best


def feature_rows(query: str, candidates: list[Candidate], metas: dict[str, dict], stats: TermStats) -> np.ndarray:
    """One row of FEATURES per candidate (in order): `cosine` and `closeness` as answerability measured them on the
    searched question; the lexical ones on `query`, the subject (topical_query), so a filter's words ("ICLR 2024",
    "proceedings") weigh nothing."""
    qterms = stats.subject_terms(query)  # "drug-related", no paper writes: drug, related
    in_order = stats.as_indexed(terms(query))  # as written, for the phrase a text writes in a row
    df = stats.df(qterms)
    weights = {t: stats.idf(t) for t in qterms}
    seen = sorted((t for t in qterms if t in df), key=lambda t: -weights[t])[:2]  # the subject's rarest indexed terms
    rows = []
    for c in candidates:
        meta = metas.get(c.paper_id) or {}
        have = stats.terms_of(c.paper_id)
        labels = set(terms(label_text(meta)))
        title = set(terms(f"{meta.get('title') or ''} {meta.get('label') or ''}"))
        extra = {"labelled": 1.0 if labels else 0.0,  # a paper without labels: label_coverage 0 says nothing
                 "coverage": _weighted_share(weights, have),
                 "rarest": _weighted_share({t: weights[t] for t in seen}, have) if seen else 0.0,
                 "label_coverage": _weighted_share(weights, labels), "title_coverage": _weighted_share(weights, title),
                 "phrase": _phrase_share(in_order, weights,
                                         terms(f"{meta.get('title') or ''}. {meta.get('text') or ''}"))}
        rows.append([extra[f] if f in extra else getattr(c, f) for f in FEATURES])
    return np.asarray(rows, dtype=float).reshape(len(rows), len(FEATURES))


@dataclass(frozen=True)
class TopicalModel:
    """Logistic weights over standardised FEATURES and the two operating points, for one embedding model."""

    embed_model: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    on_point: float
    related_point: float
    source: str = ""

    def probability(self, rows: np.ndarray) -> np.ndarray:
        return logistic(self, rows) if len(rows) else np.zeros(0)

    def to_json(self) -> dict:
        return model_json(self)

    @classmethod
    def from_json(cls, data: dict) -> "TopicalModel":
        fields = json_fields(cls, data)
        if tuple(fields.get("features", ())) != FEATURES or len(fields.get("coef", ())) != len(FEATURES):
            raise ValueError(f"features must be {', '.join(FEATURES)}")
        return cls(**fields)


@lru_cache(maxsize=4)
def _read(path: str) -> TopicalModel:
    return read_model_file(path, TopicalModel.from_json, "topical model", "python -m evals.topical",
                           "RAGQA_TOPICAL_FILE")


def load_topical(settings, embed_name: str) -> TopicalModel:
    """The file Settings point at, else the committed one for this embedding model, else the default one."""
    if settings.topical_file:
        return _read(str(settings.topical_file))
    return _read(str(committed_file(settings.calibration_dir,
                                    [f"topical-{model_slug(embed_name)}", "topical-default"])))


@dataclass(frozen=True)
class Topicality:
    """Per paper P(on the subject), and the papers on it / weaker matches, most probable first."""

    probabilities: dict[str, float]
    on: tuple[str, ...]
    related: tuple[str, ...]

    def as_json(self) -> dict:
        return {"probabilities": {k: round(v, 4) for k, v in self.probabilities.items()}, "on": list(self.on),
                "related": list(self.related)}


def judge_topical(model: TopicalModel, query: str, candidates: list[Candidate], metas: dict[str, dict],
                  stats: TermStats, also: tuple[str, ...] = ()) -> Topicality:
    """Each paper's P of being on the subject `query` names: the best of the subject as written, with its
    acronyms spelled out ("RL" -> "reinforcement learning": an abstract may write only one of them), and the readings
    `also` (the subject without its asides: aside_readings)."""
    p = model.probability(feature_rows(query, candidates, metas, stats))
    for other in dict.fromkeys([spelled_out(query), *also]) if len(candidates) else ():
        if other and other != query:
            p = np.maximum(p, model.probability(feature_rows(other, candidates, metas, stats)))
    probs = {c.paper_id: float(v) for c, v in zip(candidates, p)}
    ranked = sorted(probs, key=lambda pid: -probs[pid])
    return Topicality(probs, tuple(pid for pid in ranked if probs[pid] >= model.on_point),
                      tuple(pid for pid in ranked if model.related_point <= probs[pid] < model.on_point))
