"""Experiment (a probe, not a stage): the answerability decision for every standalone question of evals/datasets/
(metadata sets left out; Chinese searched untranslated, so no LLM), written to a file, and the questions whose
decision or list changed against an earlier file. Run it before and after a change to the features or the terms.

    python -m evals.experiments.decisions --out /tmp/before.json
    python -m evals.experiments.decisions --out /tmp/after.json --compare /tmp/before.json
"""
from __future__ import annotations

import argparse
import glob
import json
from pathlib import Path

from ragqa.answer.answerability import assess
from ragqa.pipeline import Pipeline
from ragqa.retrieval.retrieve import search

DATASETS = Path(__file__).resolve().parent.parent / "datasets"


def decisions() -> dict[str, list]:
    """question -> ["missing", name] or [answerable, listed ids, best P]."""
    pipeline = Pipeline()
    searcher = pipeline.searcher
    out: dict[str, list] = {}
    for path in sorted(glob.glob(str(DATASETS / "*.jsonl"))):
        if "metadata" in path or "written_" in path:  # written_*: calibration questions over other corpora
            continue
        for line in open(path, encoding="utf-8"):
            row = json.loads(line)
            q = row["question"]
            if row.get("history") or q in out:
                continue
            result = search(searcher, q, None, pipeline.settings.judge_k, translate=None)
            if result.missing_name:
                out[q] = ["missing", result.missing_name]
                continue
            _, judgement = assess(searcher, result, pipeline.embedder.get_query_embedding(result.query),
                                  pipeline.calibration)
            out[q] = [judgement.answerable, list(judgement.listed), round(judgement.best, 5)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    now = decisions()
    args.out.write_text(json.dumps(now, ensure_ascii=False), encoding="utf-8")
    print(f"{len(now)} questions")
    if args.compare:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        changed = [q for q in now if before.get(q) != now[q]]
        for q in changed:
            b, a = before.get(q), now[q]
            print(f"{q[:90]} | {b[0]} {b[-1]} -> {a[0]} {a[-1]}"
                  + (f" | listed {len(b[1])} -> {len(a[1])}" if b[0] != "missing" and a[0] != "missing" else ""))
        flips = sum(1 for q in changed if before.get(q, [None])[0] != now[q][0])
        print(f"changed {len(changed)}, decision flipped {flips}")


if __name__ == "__main__":
    main()
