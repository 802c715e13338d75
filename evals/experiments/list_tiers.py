"""Experiment (a probe, not a stage): on the hand-written sets' standalone English questions with gold papers, search
and the answerability decision only (no LLM), over the index and calibration Settings point at (RAGQA_CALIBRATION_FILE
to compare another):
- `tiers`: for list and count questions, gold and other papers above the answer point and between the list and answer
  points;
- `multi`: for questions with two or more gold papers (any form), gold and other papers listed.

    python -m evals.experiments.list_tiers evals/datasets/seed_questions.jsonl \
        evals/datasets/answer_questions.jsonl evals/datasets/heldout_mixed.jsonl

Results on 2026-12-04 (bundled 95 papers, MiniLM; 2-core AMD EPYC). With the calibration of 2026-12-01: tiers over 19
questions, above the answer point 30 gold / 4 other papers (32 / 4 after the term changes of c27b7b4 and 3760bde), below
it 11 gold / 11 other, so a list ranks the second group last under a heading that says they are weaker matches
(ask._list_answer) instead of dropping them; multi (26 questions), 51 of 67 gold papers listed and 28 others. With the
calibration fitted on 2026-12-04 (--list-recall 0.98): tiers above 31 / 4, below 15 / 22; multi 56 of 67 and 41.
"""
from __future__ import annotations

import json
import sys

from ragqa.answer.answerability import assess
from ragqa.pipeline import Pipeline
from ragqa.query.intent import COUNT, LIST, classify
from ragqa.retrieval.retrieve import search
from ragqa.text.clean import CJK


def main(paths: list[str]) -> dict:
    pipeline = Pipeline()
    searcher, calibration = pipeline.searcher, pipeline.calibration
    tiers = {"questions": 0, "above": {"gold": 0, "other": 0}, "below": {"gold": 0, "other": 0}}
    multi = {"questions": 0, "gold": 0, "gold_listed": 0, "other_listed": 0}
    for path in paths:
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            q, gold = row["question"], set(row.get("gold") or [])
            is_list = classify(q) in (LIST, COUNT)
            if row.get("history") or not gold or CJK.search(q) or not (is_list or len(gold) >= 2):
                continue
            result = search(searcher, q, None, pipeline.settings.judge_k)
            if result.missing_name:
                continue
            _, judgement = assess(searcher, result, pipeline.embedder.get_query_embedding(result.query), calibration)
            listed = set(judgement.listed) if judgement.answerable else set()
            if len(gold) >= 2:
                multi["questions"] += 1
                multi["gold"] += len(gold)
                multi["gold_listed"] += len(listed & gold)
                multi["other_listed"] += len(listed - gold)
            if is_list and result.names_topic and judgement.answerable:
                tiers["questions"] += 1
                for pid in judgement.listed:
                    tiers["above" if pid in judgement.answering else "below"]["gold" if pid in gold else "other"] += 1
    return {"points": [calibration.answer_threshold, calibration.list_threshold], "tiers": tiers, "multi": multi}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), indent=1))
