"""Experiment (a probe, not a stage): the unknown-name gate on method questions whose name is a bare upper-case
acronym ("What is TRACE and what does it do?"), on a calibration run's index (half of a corpus indexed): papers of the
indexed half are answerable, of the held-out half near-misses. Run on two versions of ragqa and compare.

    RAGQA_VECTORSTORE_DIR=<store holding the calib-* collections> \
        python -m evals.experiments.acronym_gate ../shared/data/corpora/icml2024.jsonl /tmp/out.json [--all-forms]

--all-forms: instead, every question `ragqa eval calibrate` builds from the corpus (make_questions, same seed) that
holds a bare upper-case acronym of two or more letters.

Result on 2026-12-04 (ICML 2024 calibration index of evals/reports/20261204-024234-calibration-all-MiniLM-L6-v2,
shipped calibration), abstained on answerable / near-miss method questions ("What is TRACE and what does it do?",
186 / 168): gate on every bare acronym 3 / 140 (135 at the gate); gate off for bare acronyms 1 / 98: not adopted;
gate off only for an acronym among two or more other topic terms ("a benchmark for smartphone GUI agents") 3 / 140,
as before. --all-forms (131 questions): 0 of 70 / 50 of 61 in all three versions. The 198 standalone dataset
questions: one moves from the gate to the calibrated abstention (ESM), no decision flips.
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

from ragqa.answer.answerability import assess
from ragqa.ingest.corpus import load_paths
from ragqa.pipeline import Pipeline
from ragqa.retrieval.retrieve import search
from ragqa.text.clean import method_name

from ..calibrate import TEMPLATES, _half, make_questions


def _questions(papers, all_forms: bool):
    """(question, indexed?) pairs."""
    if all_forms:
        rng = random.Random(0)
        for paper in papers:
            indexed = _half(paper.paper_id, 0.5, 0)
            for q in make_questions(paper, (paper.paper_id,) if indexed else None, rng):
                if re.search(r"(?<![\w-])[A-Z]{2,}(?![\w-])", q.text):
                    yield q.text, indexed
        return
    for paper in papers:
        name = method_name(paper.title)
        if name and name.isalpha() and name.isupper():
            for template in TEMPLATES["method"]:
                yield template.format(m=name), _half(paper.paper_id, 0.5, 0)


def main(corpus: str, out_path: str, all_forms: bool = False) -> None:
    base = Pipeline()
    pipeline = Pipeline(base.settings.model_copy(update={"collection_prefix": f"calib-{Path(corpus).stem}-50-0"}),
                        embedder=base.embedder)
    report, _ = load_paths([Path(corpus)])
    out = {}
    for q, indexed in _questions(report.papers, all_forms):
        result = search(pipeline.searcher, q, None, pipeline.settings.judge_k, translate=None)
        if result.missing_name:
            out[q] = [indexed, "gate", 0.0]
            continue
        _, judgement = assess(pipeline.searcher, result, pipeline.embedder.get_query_embedding(result.query),
                              pipeline.calibration)
        out[q] = [indexed, judgement.answerable, round(judgement.best, 5)]
    json.dump(out, open(out_path, "w"))
    for kind, want in (("answerable (indexed half)", True), ("near-miss (held-out half)", False)):
        rows = [v for v in out.values() if v[0] is want]
        abstained = sum(1 for v in rows if v[1] in ("gate", False))
        print(f"{kind}: {len(rows)} questions, abstained {abstained} "
              f"({sum(1 for v in rows if v[1] == 'gate')} at the gate)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--all-forms" in sys.argv[3:])
