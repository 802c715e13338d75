"""Experiment (a probe, not a stage): on the hand-written sets' standalone English questions with two or more gold papers,
how many gold papers and how many others the answerability decision lists (search and decision only, no LLM), with the
calibration Settings point at (RAGQA_CALIBRATION_FILE to compare another).

    python -m evals.experiments.multi_recall

2026-12-04, bundled papers: the calibration of 2026-12-01 listed 51 of 67 gold papers and 28 others; the one fitted on
2026-12-04 with --list-recall 0.98 lists 56 and 41.
"""
from __future__ import annotations

import json

from ragqa.answerability import assess
from ragqa.clean import CJK
from ragqa.pipeline import Pipeline
from ragqa.retrieve import search

SETS = ("evals/datasets/seed_questions.jsonl", "evals/datasets/answer_questions.jsonl", "evals/datasets/heldout_mixed.jsonl")


def main() -> None:
    pipeline = Pipeline()
    searcher, calibration = pipeline.searcher, pipeline.calibration
    got = total = other = 0
    for path in SETS:
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            if row.get("history") or len(row.get("gold") or []) < 2 or CJK.search(row["question"]):
                continue
            result = search(searcher, row["question"], None, 20)
            if result.missing_name:
                continue
            _, judgement = assess(searcher, result, pipeline.embedder.get_query_embedding(result.query), calibration)
            listed = set(judgement.listed) if judgement.answerable else set()
            got += len(listed & set(row["gold"]))
            total += len(row["gold"])
            other += len(listed - set(row["gold"]))
    print(f"points {calibration.answer_threshold} / {calibration.list_threshold}: gold listed {got}/{total}, others {other}")


if __name__ == "__main__":
    main()
