"""Experiment (a probe, not a stage): score `ragqa ask --batch --json` outputs for a question file whose gold papers are
given by title (as the helper-written evals/experiments/newuser_questions_helper.jsonl: kind, gold titles, expect), and
list the questions whose mode or form changed between two runs.

    ragqa ask --batch evals/experiments/newuser_questions_helper.jsonl --json > after.jsonl
    python -m evals.experiments.newuser_probe evals/experiments/newuser_questions_helper.jsonl before.jsonl after.jsonl

Per run: answerable questions abstained on, gold papers cited (of those the answer could cite), unanswerable ones
abstained on, answers the model wrote (llm) and quoted (extractive). Gold titles are matched to the bundled index's
records by their words.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter

from ragqa.pipeline import Pipeline


def _plain(text: str | None) -> str:
    return re.sub(r"\W+", " ", (text or "").lower()).strip()


def _answers(path: str) -> dict[str, dict]:
    out = {}
    for line in open(path, encoding="utf-8"):
        if line.strip():
            row = json.loads(line)
            out[row["id"]] = row
    return out


def score(questions: list[dict], answers: dict[str, dict], by_title: dict[str, str]) -> Counter:
    c: Counter = Counter()
    for q in questions:
        a = answers.get(q["id"])
        if a is None or "error" in a:
            c["error"] += 1
            continue
        c[a.get("mode") or "?"] += 1
        if q.get("expect") == "abstain" or not q.get("gold"):
            c["unanswerable"] += 1
            c["unanswerable abstained"] += bool(a["abstained"])
            continue
        gold = {by_title[_plain(t)] for t in q["gold"] if _plain(t) in by_title}
        c["answerable"] += 1
        c["false abstention"] += bool(a["abstained"])
        c["gold papers"] += len(gold)
        c["gold cited"] += 0 if a["abstained"] else len(gold & {x["paper_id"] for x in a.get("citations", [])})
    return c


def main(argv: list[str]) -> None:
    questions = [json.loads(line) for line in open(argv[0], encoding="utf-8") if line.strip()]
    catalog = Pipeline().searcher.index.catalog
    by_title = {_plain(p.title): pid for pid, (p, _) in catalog.all().items() if p.title}
    runs = [_answers(path) for path in argv[1:]]
    if len(runs) == 2:
        for q in questions:
            a, b = runs[0].get(q["id"], {}), runs[1].get(q["id"], {})
            if (a.get("mode"), a.get("form")) != (b.get("mode"), b.get("form")):
                print(f"{q['id']} {q['kind']}: {a.get('mode')}/{a.get('form') or '-'} -> "
                      f"{b.get('mode')}/{b.get('form') or '-'} | {q['question'][:90]}")
    for path, run in zip(argv[1:], runs):
        print(path, dict(score(questions, run, by_title)))


if __name__ == "__main__":
    main(sys.argv[1:])
