"""Experiment (a probe): the shares the example-leak and repeat guards threshold (settings.guards.leak_share,
repeat_share), over every model-written sentence of the given answer reports or `ragqa ask --batch --json` outputs:
per sentence its share of units that are the worked examples' (and in neither its question nor its cited papers), and
its largest share held by one earlier sentence of the same answer. Prints the top of each distribution.

    python -m evals.experiments.guard_shares evals/reports/answers-*.json evals/reports/newuser-probe-20261204.jsonl

Result on 2026-12-04 with that command (newuser-probe-20261204.jsonl: `ragqa ask --batch --json` on the first 40 of
evals/experiments/newuser_questions.jsonl, before the guards), 389 distinct sentences: correct ones reach an example
share of 0.14, the two copied ones 0.71 and 1.0 (Chinese, the KV-cache example); later sentences reach 0.71 of an
earlier one, a Chinese restatement 0.85 (a second, 0.88, was in an unsaved probe run). A sentence naming an example's
paper (SparseKV, in an older report) is caught by name, not share. Reports written after the guards no longer hold the
dropped sentences (their `dropped` lists do).
"""
from __future__ import annotations

import json
import re
import sys

from ragqa.answer.citations import split_answer_sentences
from ragqa.answer.prompting import worked_examples
from ragqa.pipeline import Pipeline
from ragqa.text.sentences import text_units


def _rows(path: str) -> list[dict]:
    if path.endswith(".jsonl"):
        return [json.loads(line) for line in open(path, encoding="utf-8")]
    return json.load(open(path, encoding="utf-8")).get("rows", [])


def main(paths: list[str]) -> None:
    pipeline = Pipeline()
    examples = worked_examples(pipeline.settings.prompts_dir)
    catalog = pipeline.searcher.index.catalog
    text = {pid: f"{p.title or ''} {p.label} {p.text}" for pid, (p, _) in catalog.all().items()}
    leak, repeat, seen = [], [], set()
    for path in paths:
        for row in _rows(path):
            if row.get("mode") != "llm":
                continue
            ids = row.get("cited") or [c["paper_id"] for c in row.get("citations", [])]
            sources = text_units(" ".join(text.get(i, "") for i in ids))
            question = text_units(row.get("question") or "")
            earlier: list[set[str]] = []
            for sentence in split_answer_sentences(row["answer"].split("\n\n")[0]):
                units = text_units(re.sub(r"\[[\d,;\s–-]+\]", " ", sentence))
                if sentence not in seen and units - question:
                    seen.add(sentence)
                    leaked = (units - question) & examples.units - sources
                    leak.append((len(leaked) / len(units - question), sentence))
                    if earlier and len(units) >= 3:
                        repeat.append((max(len(units & e) / len(units) for e in earlier), sentence))
                earlier.append(units)
    print(f"{len(seen)} distinct sentences")
    for name, values in (("example share", leak), ("repeat share", repeat)):
        print(f"top {name}:")
        for share, sentence in sorted(values, reverse=True)[:8]:
            print(f"  {share:.2f}  {sentence[:110]}")


if __name__ == "__main__":
    main(sys.argv[1:])
