"""Experiment (a probe, not a stage): how often a list answer's papers are gold above the answer point and between
the list and answer points, on the hand-written sets' standalone English list and count questions that have gold
papers. Search and the answerability decision only, no LLM, over the index Settings point at (the bundled papers).

    python -m evals.experiments.list_tiers evals/datasets/seed_questions.jsonl evals/datasets/answer_questions.jsonl evals/datasets/heldout_mixed.jsonl

Result on 2026-12-04 (bundled 95 papers, MiniLM, shipped calibration; 2-core AMD EPYC): 19 questions; above the answer
point 30 gold / 4 other papers, below it 11 gold / 11 other. So a list ranks the second group last, under a heading
that says they are weaker matches (ask._list_answer), instead of dropping them (a third of the gold papers listed).
"""
from __future__ import annotations

import json
import sys

from ragqa.answerability import assess
from ragqa.clean import CJK
from ragqa.intent import COUNT, LIST, classify
from ragqa.pipeline import Pipeline
from ragqa.retrieve import search


def main(paths: list[str]) -> dict:
    pipeline = Pipeline()
    searcher, calibration = pipeline.searcher, pipeline.calibration
    tally = {"above": [0, 0], "below": [0, 0]}  # [gold, other]
    questions = 0
    for path in paths:
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            q = row["question"]
            if row.get("history") or not row.get("gold") or CJK.search(q) or classify(q) not in (LIST, COUNT):
                continue
            result = search(searcher, q, None, pipeline.settings.judge_k)
            if result.missing_name or not result.names_topic:
                continue
            _, judgement = assess(searcher, result, pipeline.embedder.get_query_embedding(result.query), calibration)
            if not judgement.answerable:
                continue
            questions += 1
            for pid in judgement.listed:
                tally["above" if pid in judgement.answering else "below"][0 if pid in set(row["gold"]) else 1] += 1
    return {"questions": questions, **{k: {"gold": v[0], "other": v[1]} for k, v in tally.items()}}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), indent=1))
