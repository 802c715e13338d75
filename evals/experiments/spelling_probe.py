"""Experiment (a probe, not a stage): how often spelling (ragqa/query/spelling.py) changes a question, on questions that
have no slips. Prints each correction of every question in evals/datasets/ (and any extra JSONL files) against the
bundled index's term table, and optionally of a calibration run's templated questions against that run's index.

    python -m evals.experiments.spelling_probe [extra.jsonl ...] \
        [--rows <calibration report>/rows.jsonl --catalog <store>/calib-icml2024-50-0-...catalog.sqlite]
"""
from __future__ import annotations

import argparse
import glob
import json
import sqlite3
from pathlib import Path

from ragqa.config import Settings
from ragqa.query.spelling import corrections, english_words

DATASETS = Path(__file__).resolve().parent.parent / "datasets"


def frequencies(catalog: Path):
    db = sqlite3.connect(catalog)

    def lookup(terms):
        terms, out = list(terms), {}
        for i in range(0, len(terms), 500):
            part = terms[i:i + 500]
            out.update(db.execute(f"SELECT term, df FROM term_df WHERE term IN ({','.join('?' * len(part))})", part))
        return out
    return lookup


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("extra", nargs="*", help="more question files")
    ap.add_argument("--rows", type=Path, help="a calibration run's rows.jsonl (templated questions)")
    ap.add_argument("--catalog", type=Path, help="the catalog of that run's index")
    args = ap.parse_args(argv)
    words = english_words()
    bundled = next(Settings().vectorstore_dir.glob("papers-*.catalog.sqlite"))
    lookup, n, fixed = frequencies(bundled), 0, 0
    for path in sorted(glob.glob(str(DATASETS / "*.jsonl"))) + args.extra:
        for line in open(path, encoding="utf-8"):
            question = json.loads(line).get("question") if line.strip() else None
            if question:
                n += 1
                found = corrections(question, lookup, words)
                fixed += bool(found)
                if found:
                    print(Path(path).name, found, "|", question[:100])
    print(f"bundled index: {fixed} of {n} questions corrected")
    if args.rows and args.catalog:
        lookup, n, fixed = frequencies(args.catalog), 0, 0
        for line in open(args.rows, encoding="utf-8"):
            row = json.loads(line)
            if row["form"] != "claim":
                n += 1
                found = corrections(row["question"], lookup, words)
                fixed += bool(found)
                if found:
                    print(found, "|", row["question"][:100])
        print(f"calibration index: {fixed} of {n} templated questions corrected")


if __name__ == "__main__":
    main()
