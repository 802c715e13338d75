"""Experiment (not a stage): a question of several sentences ("I have to pick a small training subset once, before the
dataset is deleted. Should I favour diverse examples or hard ones?") against one sentence of a paper: does closeness
read better as the mean, over the question's sentences, of each one's best cosine to a sentence of the paper, than as
the whole question's best cosine? Rows with one sentence are unchanged by construction; the calibrated model is not
refitted.

    python -m evals.experiments.facet_closeness <calibration report folder>

Result on 2026-12-04 (report 20261204-124150, committed calibration): questions of several sentences are nearly all the
written "problem" descriptions. ROC AUC old -> new: calibration part 0.991 -> 0.988 (82 questions), held-out 0.827 ->
0.827 (21), ICLR 0.974 -> 0.967 (35); false abstention 0 -> 2/43, 1 -> 1/8, 0 -> 1/19; near-misses refused 26 -> 32/39,
10 -> 11/13, 9 -> 12/16. The mean of per-sentence closeness only lowers P for every such question (a sentence of
personal context matches nothing), it does not separate them better: not adopted.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"


def abstracts() -> dict[str, str]:
    """paper id -> its text as the index holds it (what SentenceCache splits)."""
    from evals.dataset import load_beir
    from evals.retrieval import beir_papers
    from ragqa.ingest.corpus import load_paths
    from ragqa.ingest.listing import load_manifest
    from ragqa.ingest.merge import merge_all

    out = {p.paper_id: p.text for p in beir_papers(load_beir(SHARED / "scifact", "train"), SHARED / "scifact")[0]}
    papers = list(load_paths([ROOT / "data"], load_manifest(ROOT / "data"))[0].papers)
    for name in ("icml2024.jsonl", "iclr2024.jsonl"):
        papers += list(load_paths([SHARED / "corpora" / name])[0].papers)
    out.update({p.paper_id: p.text for p in merge_all(papers)})
    return out


def main() -> None:
    from sklearn.metrics import roc_auc_score

    from evals.calibrate import _candidates, _half, _model_x
    from ragqa.answer.answerability import MEASURED, Calibration, judge
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from ragqa.text.sentences import split_sentences
    from ragqa.text.untrusted import is_instruction

    folder = Path(sys.argv[1])
    cal = Calibration.from_json(json.loads((ROOT / "ragqa" / "calibration" / "all-MiniLM-L6-v2.json").read_text()))
    embedder = Pipeline(Settings()).embedder
    text = abstracts()
    vectors: dict[str, np.ndarray] = {}
    for name, split in (("rows.jsonl", "calibration"), ("rows.jsonl", "held-out"), ("rows-iclr2024.jsonl", "iclr"),
                        ("rows-check-seed_questions.jsonl", "seed"), ("rows-check-heldout_mixed.jsonl", "mixed")):
        rows = [json.loads(line) for line in open(folder / name)]
        rows = [r for r in rows if r["x"] and not r["gate"] and len(split_sentences(r["question"])) > 1]
        if name == "rows.jsonl":
            rows = [r for r in rows if _half(r["paper"], 0.3, 1) == (split == "held-out")]
        old, new, labels = [], [], []
        for r in rows:
            facets = split_sentences(r["question"])
            fv = np.asarray([embedder.get_query_embedding(f) for f in facets], dtype=np.float32)
            todo = [pid for pid in r["ids"] if pid not in vectors and pid in text]
            for pid in todo:
                sents = [s for s in split_sentences(text[pid]) if not is_instruction(s)]
                vectors[pid] = (np.asarray(embedder.get_text_embedding_batch(sents), dtype=np.float32) if sents
                                else np.zeros((0, fv.shape[1])))
            changed = json.loads(json.dumps(r))
            for i, pid in enumerate(r["ids"]):
                v = vectors.get(pid)
                if v is not None and len(v):
                    changed["x"][i][MEASURED.index("closeness")] = float((fv @ v.T).max(axis=1).mean())
            _model_x([r, changed])
            old.append(judge(cal, _candidates(r)).best)
            new.append(judge(cal, _candidates(changed)).best)
            labels.append(r["gold"] is not None)
        y, old, new = np.array(labels), np.array(old), np.array(new)
        point = cal.answer_threshold
        auc = (lambda s: f"{roc_auc_score(y, s):.3f}") if 0 < y.sum() < len(y) else (lambda s: "-")
        print(f"{split}: {len(y)} questions of several sentences ({y.sum()} answerable); AUC {auc(old)} -> {auc(new)}; "
              f"false abstention {(old[y] < point).sum()} -> {(new[y] < point).sum()}/{y.sum()}; "
              f"near-misses refused {(old[~y] < point).sum()} -> {(new[~y] < point).sum()}/{(~y).sum()}", flush=True)


if __name__ == "__main__":
    main()
