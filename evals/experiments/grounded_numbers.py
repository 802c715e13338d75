"""Figures in the committed answer reports that no cited abstract (nor the question) holds: what the grounded-numbers
guard (ragqa/answer/guards.py) would drop from answers written before it. Prints each flagged sentence with the figures,
so a person can label it right (the paper says it, in other words) or invented; and the count over every sentence.

Usage: python -m evals.experiments.grounded_numbers [evals/reports/answers-*.json ...]
"""
from __future__ import annotations

import glob
import json
import re
import sys
from pathlib import Path

from ragqa.answer.citations import split_answer_sentences
from ragqa.answer.guards import figures, ungrounded_figures
from ragqa.config import Settings
from ragqa.ingest.corpus import load_paths
from ragqa.ingest.listing import load_manifest


def main(argv: list[str]) -> int:
    paths = argv or sorted(glob.glob("evals/reports/answers-*.json"))
    data = Settings().data_dir
    report, _ = load_paths([data], load_manifest(data))
    papers = {p.paper_id: p for p in report.papers}
    sentences = with_figures = 0
    flagged: dict[str, tuple[str, str, list[str]]] = {}
    for path in paths:
        rows = json.loads(Path(path).read_text(encoding="utf-8")).get("rows") or []
        for row in rows:
            if row.get("mode") != "llm":
                continue
            source = " ".join(f"{papers[p].text} {papers[p].title or ''} {papers[p].venue or ''} {papers[p].year or ''}"
                              for p in row.get("cited") or [] if p in papers)
            for sentence in split_answer_sentences(row.get("answer") or ""):
                if (not re.search(r"\[\d+\]", sentence) or sentence.lstrip().startswith(("In ", "“", '"'))
                    and "words" in sentence[:80]):
                    continue  # uncited, or a quote of the abstract (quote top-up)
                sentences += 1
                with_figures += bool(figures(re.sub(r"\[\d+\]", " ", sentence)))
                bad = ungrounded_figures(re.sub(r"\[\d+\]", " ", sentence), source, row.get("question") or "")
                if bad:
                    flagged.setdefault(sentence, (Path(path).name, row.get("id"), sorted(bad)))
    for sentence, (name, qid, bad) in flagged.items():
        print(f"{name} {qid} {bad}: {sentence}")
    print(f"{len(paths)} reports: {sentences} cited model sentences, {with_figures} with a figure, "
          f"{len(flagged)} distinct sentences with a figure no cited abstract holds", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
