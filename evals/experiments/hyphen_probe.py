"""Experiment (a probe, not a stage): every bundled paper whose title has a hyphenated word, asked as "papers on <title
with hyphens and colons as spaces, lower case>"; the gold paper's P, whether it is listed, whether the question is
answerable. Run before and after a change to the terms (git stash) and compare the two files.

    python -m evals.experiments.hyphen_probe /tmp/after.json [--joined]

Result on 2026-12-04 (bundled 95 papers, MiniLM, shipped calibration): 36 questions; with a hyphenated word's parts
among a paper's terms (terms.paper_terms) the gold paper's P rose on 21 and fell on none (median 0.872 -> 0.980); all 36
were answerable and listed before and after. The hand-written sets' 198 standalone questions: no decision changed,
ROC AUC of the best P 0.8774 -> 0.8775, gold papers listed 136 -> 139, others 94 -> 98 (evals/experiments/decisions.py).

Result on 2026-12-04 with --joined ("papers on multimodal ..." for "Multi-Modal"), before / after a hyphenated word's
parts written as one joined a paper's terms: gold P up on all 36, down on none (median 0.656 -> 0.972); all 36
answerable and listed before and after. The 198 standalone questions: no decision changed, 8 P values moved (a
question's "pretrained" now finds "pre-trained"), ROC AUC of the best P 0.8768 -> 0.8775, gold papers listed 143 ->
143, other papers listed 276 -> 279 (counted over every listed paper of every question, gold from the datasets).
"""
from __future__ import annotations

import json
import re
import sys

from ragqa.answer.answerability import assess
from ragqa.pipeline import Pipeline
from ragqa.retrieval.retrieve import search


def main(out_path: str, joined: bool = False) -> None:
    """`joined`: the hyphenated words written as one ("multimodal" for "Multi-Modal") instead of as two."""
    pipeline = Pipeline()
    searcher = pipeline.searcher
    metas = searcher.paper_meta()
    out = {}
    for pid in searcher.index.catalog.ids():
        title = metas[pid].get("title") or ""
        if not re.search(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b", title):
            continue
        q = "papers on " + (re.sub(":", " ", title.replace("-", "")) if joined else re.sub(r"[-:]", " ", title)).lower()
        result = search(searcher, q, None, 20, translate=None)
        if result.missing_name:
            out[q] = [pid, 0.0, False, False]
            continue
        _, judgement = assess(searcher, result, pipeline.embedder.get_query_embedding(result.query),
                              pipeline.calibration)
        out[q] = [pid, judgement.probabilities.get(pid, 0.0), pid in judgement.listed, judgement.answerable]
    json.dump(out, open(out_path, "w"))
    print(f"{len(out)} questions")


if __name__ == "__main__":
    main(sys.argv[1], "--joined" in sys.argv[2:])
