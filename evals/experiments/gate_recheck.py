"""Which gated rows of a calibration report does the current name gate let through? Prints per set and split."""
import json, sys
from pathlib import Path
from evals.calibrate import _cached_rows, _half, Question, featurise
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.retrieve import search
R = Path(sys.argv[1]); out = Path(sys.argv[2])
rows = _cached_rows(R)
pipes = {"main": "calib-icml2024-50-0", "iclr2024.jsonl": "calib-iclr2024-50-0"}
import os
base = Settings()
new = {}
for name, rs in rows.items():
    if name.startswith("check-"):
        p = Pipeline(Settings(vectorstore_dir=Path("/work/main/vectorstore")))
    else:
        prefix = pipes.get(name)
        if prefix is None:
            continue
        p = Pipeline(base.model_copy(update={"collection_prefix": prefix}))
    if name == "main":  # the beir rows live in their own collection
        pb = Pipeline(base.model_copy(update={"collection_prefix": "calib-beir-scifact-50-0"}))
    changed = []
    for r in rs:
        if not r["gate"]:
            continue
        pp = pb if (name == "main" and r["form"] == "claim") else p
        res = search(pp.searcher, r["question"], k=10)
        if not res.missing_name:
            q = Question(r["id"], r["question"], r["form"], tuple(r["gold"]) if r["gold"] else None, r["paper"])
            nr = featurise(pp, [q], progress=False)[0]
            changed.append(nr)
    new[name] = changed
    ans = [r for r in changed if r["gold"]]
    print(name, "ungated", len(changed), "answerable", len(ans), "near-miss", len(changed) - len(ans))
    for r in changed:
        print("   ", "ANS" if r["gold"] else "NM ", r["form"], r["question"][:120])
json.dump(new, open(out, "w"))
