"""Questions about the collection (#44), written by a helper who never read the code
(evals/datasets/collection_heldout.jsonl over the 95 bundled papers): per kind, how many were refused, their coverage,
gold papers listed (cited or counted) and precision, and whether a count question's number is the gold count.

    python -m evals.experiments.collection_questions [--dataset PATH] [--out report.json]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from ragqa.pipeline import Pipeline

DATASET = Path(__file__).resolve().parent.parent / "datasets" / "collection_heldout.jsonl"


# the scope an answer within filters opens with (messages/*.toml `within`): how many papers the filters admit, and the
# filter's own values ("ICML 2024"), not the count asked for
_SCOPE = re.compile(r"^Of the \d+ indexed papers matching [^,]*, |^符合 .*? 的 \d+ 篇(?:已索引)?论文中，")


def stated_number(text: str) -> int | None:
    """The first number an answer states after its scope ("19 indexed papers match …", "Of the 19 … matching venue =
    ICML 2024, 2 address this" -> 2, "0: the collection holds …", "共 19 篇")."""
    if (scope := _SCOPE.match(text)) and re.search(r"\d", text[scope.end():]):
        text = text[scope.end():]
    match = re.search(r"(?<![\w.])(\d+)(?![\w.])", text)
    return int(match.group(1)) if match else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    pipeline = Pipeline()
    rows = []
    for line in args.dataset.open(encoding="utf-8"):
        q = json.loads(line)
        answer = pipeline.ask(q["question"])
        listed = set(answer.counted) | {c.paper_id for c in answer.citations}
        gold = set(q["gold"])
        row = {"id": q["id"], "kind": q["kind"], "lang": q["lang"], "question": q["question"],
               "abstained": answer.abstained,
               "coverage": getattr(answer, "coverage", "not_covered" if answer.abstained else "answered"),
               "form": answer.form, "mode": answer.mode,
               "recall": len(listed & gold) / len(gold) if gold else None,
               "precision": len(listed & gold) / len(listed) if listed and gold else None,
               "number": stated_number(answer.text), "count": q.get("count"), "notes": answer.notes,
               "answer": answer.text[:300]}
        if q["kind"].startswith("count"):
            row["count_right"] = row["number"] == q["count"]
        rows.append(row)
        print(f"{q['id']} {q['kind']:<14} {row['coverage']:<11} recall {row['recall']} precision {row['precision']} "
              f"number {row['number']} (gold {q.get('count')})", file=sys.stderr)
    by_kind = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)

    def mean(values):
        values = [v for v in values if v is not None]
        return round(sum(values) / len(values), 3) if values else None

    summary = {kind: {"n": len(rs), "refused": sum(r["abstained"] for r in rs),
                      "coverage": {t: sum(r["coverage"] == t for r in rs)
                                   for t in ("answered", "related", "not_covered")},
                      "gold_listed": mean([r["recall"] for r in rs]), "precision": mean([r["precision"] for r in rs]),
                      **({"count_right": sum(r["count_right"] for r in rs)} if kind.startswith("count") else {})}
               for kind, rs in sorted(by_kind.items())}
    answerable = [r for r in rows if r["recall"] is not None]  # a gold paper: a refusal is wrong
    summary["all answerable"] = {"n": len(answerable), "refused": sum(r["abstained"] for r in answerable),
                                 "gold_listed": mean([r["recall"] for r in answerable]),
                                 "precision": mean([r["precision"] for r in answerable])}
    # no gold paper (off-topic, or a filter admitting none on the subject): not covered, or a count of 0
    none = [r for r in rows if r["recall"] is None]
    summary["no gold paper"] = {"n": len(none), "not_covered or 0": sum(
        r["coverage"] == "not_covered" or (r["kind"].startswith("count") and r["number"] == 0) for r in none)}
    print(json.dumps(summary, indent=1, ensure_ascii=False))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False),
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
