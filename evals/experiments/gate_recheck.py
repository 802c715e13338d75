"""Which questions the unknown-name check refused in a calibration report's saved rows does the current check let
through? Their features, measured now, are written to <out.json> (per rows file), to refit with them.

    RAGQA_VECTORSTORE_DIR=<the calibration run's store> \
        python -m evals.experiments.gate_recheck <report folder> <out.json>

Calibration rows are searched in their own collections (calib-icml2024-50-0, calib-iclr2024-50-0, SciFact's claims in
calib-beir-scifact-50-0); a hand-written set's rows ("check-…") in the bundled index under vectorstore/.
"""
import json
import sys
from pathlib import Path

from evals.calibrate import Question, _cached_rows, featurise
from evals.experiments.refeaturise import CORPORA, collection_of
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.retrieval.retrieve import search

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    report, out = Path(sys.argv[1]), Path(sys.argv[2])
    base = Settings()
    pipelines: dict[str, Pipeline] = {}

    def pipeline(name: str, row: dict) -> Pipeline:
        prefix = "check" if name.startswith("check-") else collection_of(name, row)
        if prefix not in pipelines:
            pipelines[prefix] = Pipeline(base.model_copy(update={"vectorstore_dir": ROOT / "vectorstore"})
                                         if prefix == "check"
                                         else base.model_copy(update={"collection_prefix": prefix}))
        return pipelines[prefix]

    new = {}
    for name, rows in _cached_rows(report).items():
        if not (name.startswith("check-") or name in CORPORA):
            continue
        changed = []
        for r in rows:
            if not r["gate"]:
                continue
            p = pipeline(name, r)
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
