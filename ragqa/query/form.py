"""The answer form a question's wording asks for, as a fitted model: P(the question asks for the papers the collection
has on something: a list) against an explain question about what papers say. A logistic regression over the
question's hashed words and word pairs, fitted on the datasets' labelled English questions
(`python -m evals.experiments.form_model --write`); its point lets at most a stated share of the one-paper questions
(out of fold) turn into lists. intent.classify asks it after its count and group rules, beside its list rules. No
threshold here is set by hand."""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ragqa.errors import read_model_file
from ragqa.text.clean import CJK

BUCKETS = 1 << 20
_WORDS = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?|[?？]")


def features(question: str) -> dict[int, float]:
    """Hashed words, word pairs and the first word, each present once, the row L2-normalised (crc32: the same buckets
    in every process, unlike Python's hash). Chinese is not read: the model decides English questions only."""
    words = _WORDS.findall(question.lower())
    grams = [f"w:{w}" for w in words] + [f"b:{a} {b}" for a, b in zip(words, words[1:])]
    grams += [f"^:{words[0]}"] if words else []
    keys = {zlib.crc32(g.encode()) % BUCKETS for g in grams}
    value = 1.0 / max(len(keys), 1) ** 0.5
    return {k: value for k in keys}


@dataclass(frozen=True)
class FormModel:
    """Weights of the buckets the fit saw (others weigh 0), the intercept and the list point."""

    weights: dict[int, float]
    intercept: float
    point: float
    source: str = ""

    def list_probability(self, question: str) -> float:
        z = self.intercept + sum(self.weights.get(k, 0.0) * v for k, v in features(question).items())
        return float(1.0 / (1.0 + np.exp(-z)))

    def asks_for_a_list(self, question: str) -> bool:
        """At or above the point; never for a Chinese question (fitted on English ones only: too few Chinese explain
        questions to set a point on)."""
        return not CJK.search(question) and self.list_probability(question) >= self.point

    def to_json(self) -> dict:
        return {"buckets": BUCKETS, "intercept": self.intercept, "point": self.point, "source": self.source,
                "weights": {str(k): round(v, 5) for k, v in sorted(self.weights.items())}}

    @classmethod
    def from_json(cls, data: dict) -> "FormModel":
        if data.get("buckets") != BUCKETS:
            raise ValueError(f"buckets must be {BUCKETS}")
        return cls({int(k): float(v) for k, v in data["weights"].items()}, float(data["intercept"]),
                   float(data["point"]), str(data.get("source", "")))


@lru_cache(maxsize=4)
def load_form(path: str) -> FormModel:
    return read_model_file(path, FormModel.from_json, "answer-form model",
                           "python -m evals.experiments.form_model --write", "RAGQA_FORM_FILE")
