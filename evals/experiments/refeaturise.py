"""Re-measure the saved calibration rows a change can move, against the same calibration store: `named` (default), the
rows where some candidate was named (relevance 1.0 from the name look-up: a change to name matching); `namelike`, the
rows whose question holds a word written as a name (retrieve.name_like: a change to which names name a paper); `hyphen`,
the rows whose question holds a hyphenated word (a change to how its terms are read), so `ragqa eval calibrate --rows`
refits on what the current code measures without rebuilding every row (~20 min). Other rows are copied as saved; the
check sets' rows are left out, so the refit measures them again on the bundled index.

    RAGQA_VECTORSTORE_DIR=<calibration store> \
        python -m evals.experiments.refeaturise <report folder> <out folder> [named|namelike|hyphen]

Collections as `ragqa eval calibrate --fraction 0.5 --seed 0` names them: SciFact claims (ids beir-*) in
calib-beir-scifact-50-0, the ICML rows in calib-icml2024-50-0, the ICLR transfer rows in calib-iclr2024-50-0.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from ragqa.answer.answerability import MEASURED

NAMED = MEASURED.index("named")
# saved rows files -> the corpus whose collection their questions were searched in (SciFact's claims: their own)
CORPORA = {"main": "icml2024", "iclr2024.jsonl": "iclr2024"}


def collection_of(rows_file: str, row: dict) -> str:
    """The collection a saved row was measured in, as `ragqa eval calibrate --fraction 0.5 --seed 0` names it."""
    from evals.calibrate import collection

    return collection("beir-scifact" if row["id"].startswith("beir-") else CORPORA[rows_file], 0.5, 0)


def main() -> None:
    from evals.calibrate import Question, featurise
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from ragqa.query.method_names import name_like_words

    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    which = sys.argv[3] if len(sys.argv) > 3 else "named"
    moves = {"named": lambda r: any(v[NAMED] >= 1.0 for v in r["x"]),
             "hyphen": lambda r: re.search(r"\w-\w", r["question"]) is not None,
             "namelike": lambda r: bool(name_like_words(r["question"]))}[which]
    out.mkdir(parents=True, exist_ok=True)
    base = Settings()
    shared = Pipeline(base)
    pipelines: dict[str, Pipeline] = {}

    def pipeline(prefix: str) -> Pipeline:
        if prefix not in pipelines:
            pipelines[prefix] = Pipeline(base.model_copy(update={"collection_prefix": prefix}),
                                         embedder=shared.embedder)
        return pipelines[prefix]

    for name, key in (("rows.jsonl", "main"), ("rows-iclr2024.jsonl", "iclr2024.jsonl")):
        rows = [json.loads(line) for line in open(folder / name, encoding="utf-8") if line.strip()]
        moved = Counter()
        for i, r in enumerate(rows):
            if not r["x"] or not moves(r):
                continue
            prefix = collection_of(key, r)
            q = Question(r["id"], r["question"], r["form"], tuple(r["gold"]) if r["gold"] else None, r["paper"])
            new = featurise(pipeline(prefix), [q], progress=False)[0]
            moved["measured again"] += 1
            moved["named before"] += any(v[NAMED] >= 1.0 for v in r["x"])
            moved["named after"] += bool(new["x"]) and any(v[NAMED] >= 1.0 for v in new["x"])
            rows[i] = {**r, **new}
        (out / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(name, dict(moved), flush=True)


if __name__ == "__main__":
    main()
