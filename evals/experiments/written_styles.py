"""Per-style rates of the written calibration questions (evals/datasets/written_*.jsonl) under a calibration file.

    python -m evals.experiments.written_styles <report folder> [--calibration ragqa/calibration/<model>.json]

Reads the report's saved rows (rows.jsonl, rows-<transfer>.jsonl), keeps the written questions ("gen-" ids), and prints
false abstention / near-miss abstention per style, split as `ragqa eval calibrate` splits (30% of papers held out).
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from evals.calibrate import _cached_rows, _half, _model_x, evaluate, generated_id
from ragqa.answer.answerability import Calibration

ROOT = Path(__file__).resolve().parents[2]


def styles() -> dict[str, str]:
    out = {}
    for path in (ROOT / "evals" / "datasets").glob("written_*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out[generated_id(row["id"], row["gold"][0])] = row.get("style", "?")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("report", type=Path)
    ap.add_argument("--calibration", type=Path, default=None, help="default: the one in the report")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    report = json.loads((args.report / "report.json").read_text())
    calibration = Calibration.from_json(json.loads(args.calibration.read_text()) if args.calibration
                                        else report["calibration"])
    style = styles()
    for name, rows in _cached_rows(args.report).items():
        rows = [r for r in rows if r["id"] in style]
        if not rows:
            continue
        _model_x(rows)
        parts = {"all": rows} if name != "main" else {
            "calibration split": [r for r in rows if not _half(r["paper"], 0.3, args.seed + 1)],
            "held-out split": [r for r in rows if _half(r["paper"], 0.3, args.seed + 1)]}
        for part, prows in parts.items():
            by = defaultdict(list)
            for r in prows:
                by[style[r["id"]]].append(r)
            total = evaluate(calibration, prows)
            print(f"{name} {part}: {len(prows)} written questions, AUC {total.get('roc_auc')}, false abstention "
                  f"{total['false_abstention']}, near-miss abstention {total['near_miss_abstention']}, gold listed "
                  f"{total['gold_listed']}")
            for s, srows in sorted(by.items()):
                e = evaluate(calibration, srows)
                print(f"    {s:10s} AUC {e.get('roc_auc')}  false abstention {e['false_abstention']:>7s}  "
                      f"near-miss abstention {e['near_miss_abstention']:>7s}")


if __name__ == "__main__":
    main()
