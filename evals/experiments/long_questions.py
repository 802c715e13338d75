"""Experiment (an analysis, not a stage): where do long answerable questions sit against near-misses, by form and
question length, in a calibration run's saved rows, and where do the refused answerable questions of a hand-written
question file sit? For each question, the best candidate by the shipped calibration's P: its P, cosine and coverage.

    python -m evals.experiments.long_questions <rows folder> [<questions.jsonl> <ids,comma,separated>]

<rows folder>: a `ragqa eval calibrate` report folder (rows.jsonl, rows-iclr2024.jsonl) or a refeaturised copy.
Length bands: the question's distinct content terms (qlen) < 9 short, 9-13 mid, >= 14 long.

Result on 2026-12-04 (the re-measured rows the shipped calibration was evaluated on; new-user set B's six refused
answerable questions g004 g009 g010 g012 g021 g037): the helper-written calibration questions that are long and
answerable have median cosine 0.71 and coverage 0.56 (217 rows, 1% refused); long near-misses 0.60 and 0.20 (206 rows,
70% refused). The six refused new-user questions (five of them long problem descriptions in a person's words, qlen
16-19; g037 a short paraphrase) sit at cosine 0.57-0.63 and coverage 0.10-0.26 with P 0.0008-0.0055 (the point is
0.014): where the near-misses are, not near the point. With these
features they cannot be told from near-misses; the calibration's written questions paraphrase their papers far less.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from ragqa.answer.answerability import MEASURED, Calibration, _tree_value
from ragqa.text.terms import terms

ROOT = Path(__file__).resolve().parents[2]


def _band(qlen: float) -> str:
    return "long" if qlen >= 14 else "mid" if qlen >= 9 else "short"


def best_of(cal: Calibration, row: dict) -> tuple[float, np.ndarray]:
    x = np.array(row["x"], dtype=float)
    if x.shape[1] < len(MEASURED):  # saved before qlen was measured: it is the question's, as at answer time
        x = np.hstack([x, np.full((len(x), 1), float(len(set(terms(row["question"])))))])
    sub = x[:, [MEASURED.index(f) for f in cal.features]]
    z = cal.baseline + sum(_tree_value(t, sub) for t in cal._tree_arrays)
    p = 1.0 / (1.0 + np.exp(-z))
    i = int(np.argmax(p))
    return float(p[i]), x[i]


def main(argv: list[str]) -> None:
    cal = Calibration.from_json(json.loads((ROOT / "ragqa" / "calibration" / "all-MiniLM-L6-v2.json").read_text()))
    if not cal.trees:
        raise SystemExit("the shipped calibration is not a tree model")
    cells = defaultdict(list)
    for path in sorted(Path(argv[0]).glob("rows*.jsonl")):
        for line in path.open(encoding="utf-8"):
            row = json.loads(line)
            if row["x"]:
                p, x = best_of(cal, row)
                cells[(row["form"], _band(x[MEASURED.index("qlen")]), row["gold"] is not None)].append(
                    (p, x[MEASURED.index("cosine")], x[MEASURED.index("coverage")]))
    print("form, length, answerable: rows, refused at the point, median cosine, median coverage")
    for key in sorted(cells):
        v = np.array(cells[key])
        print(f"{key[0]:14s} {key[1]:5s} {str(key[2]):5s} {len(v):4d}  {np.mean(v[:, 0] < cal.answer_threshold):.2f}"
              f"  {np.median(v[:, 1]):.2f}  {np.median(v[:, 2]):.2f}")
    if len(argv) > 2:
        from ragqa.answer.answerability import assess
        from ragqa.pipeline import Pipeline
        from ragqa.retrieval.retrieve import search

        pipeline = Pipeline()
        wanted = set(argv[2].split(","))
        for line in open(argv[1], encoding="utf-8"):
            q = json.loads(line)
            if q["id"] in wanted:
                result = search(pipeline.searcher, q["question"], None, pipeline.settings.judge_k, translate=None)
                cands, judgement = assess(pipeline.searcher, result,
                                          pipeline.embedder.get_query_embedding(result.query), pipeline.calibration)
                top = cands[int(np.argmax(pipeline.calibration.probability(cands)))] if cands else None
                print(q["id"], f"P {judgement.best:.4f}",
                      f"cosine {top.cosine:.2f} coverage {top.coverage:.2f} qlen {top.qlen:.0f}"
                      if top else "", q["question"][:80])


if __name__ == "__main__":
    main(sys.argv[1:])
