"""Which questions the unknown-name check refused in a calibration report's saved rows does the current check let
through? Their features, measured now, are written to <out.json> (per rows file), to refit with them.

    RAGQA_VECTORSTORE_DIR=<the calibration run's store> python -m evals.experiments.gate_recheck <report folder> <out.json>

Calibration rows are searched in their own collections (calib-icml2024-50-0, calib-iclr2024-50-0, SciFact's claims in
calib-beir-scifact-50-0); a hand-written set's rows ("check-…") in the bundled index under vectorstore/.
"""
import json
import sys
from pathlib import Path

from evals.calibrate import Question, _cached_rows, featurise
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.retrieve import search

ROOT = Path(__file__).resolve().parents[2]
COLLECTIONS = {"main": "calib-icml2024-50-0", "iclr2024.jsonl": "calib-iclr2024-50-0"}


def main() -> None:
    report, out = Path(sys.argv[1]), Path(sys.argv[2])
    base = Settings()
    claims = Pipeline(base.model_copy(update={"collection_prefix": "calib-beir-scifact-50-0"}))
    new = {}
    for name, rows in _cached_rows(report).items():
        if name.startswith("check-"):
            pipeline = Pipeline(base.model_copy(update={"vectorstore_dir": ROOT / "vectorstore"}))
        elif name in COLLECTIONS:
            pipeline = Pipeline(base.model_copy(update={"collection_prefix": COLLECTIONS[name]}))
        else:
            continue
        changed = []
        for r in rows:
            if not r["gate"]:
                continue
            p = claims if r["form"] == "claim" else pipeline
            if not search(p.searcher, r["question"], k=10).missing_name:
                q = Question(r["id"], r["question"], r["form"], tuple(r["gold"]) if r["gold"] else None, r["paper"])
                changed += featurise(p, [q], progress=False)
        new[name] = changed
        answerable = sum(1 for r in changed if r["gold"])
        print(name, "let through", len(changed), "answerable", answerable, "near-miss", len(changed) - answerable)
        for r in changed:
            print("   ", "ANS" if r["gold"] else "NM ", r["form"], r["question"][:120])
    out.write_text(json.dumps(new), encoding="utf-8")


if __name__ == "__main__":
    main()
