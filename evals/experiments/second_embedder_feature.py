"""Experiment (not a stage): all-mpnet-base-v2's cosine of the question to a candidate's title + abstract, as a sixth
feature of the answerability model, on the calibration run's own questions (second_embedder.py measured the
cosine alone, on the hand-written sets only).

    python -m evals.experiments.second_embedder_feature <calibration report folder> <folder holding all-mpnet-base-v2/>

Same protocol as `ragqa eval calibrate`, with each question's first three candidates (the mpnet text of every
candidate would take hours): trees fitted on the 70% calibration split, the answer point at 4% false abstention on
the human-written questions' CV scores, then the held-out split, the ICLR transfer and the hand-written sets' rows.

Result on 2026-12-02 (2-core Xeon, AVX-512, no AMX; rows of evals/reports/20261202-044958-calibration-all-MiniLM-L6-v2,
3,433 papers embedded in 1,154 s = 3.0/s, 4,881 questions in 108 s), ROC AUC / false abstention / near-miss abstention,
five features -> with mpnet (three candidates per question, so the five-feature figures sit below the full
model's, held-out AUC 0.916):
held-out split 0.855 / 72 of 497 / 316 of 514 -> 0.857 / 68 / 301; ICLR transfer 0.901 / 83 of 720 / 492 of 780 ->
0.899 / 79 / 475; seed 0.934 / 10 of 84 / 13 of 17 -> 0.967 / 4 / 13; 64-question set 0.976 / 0 of 16 / 34 of 37 ->
0.978 / 0 / 34; held-out mixed 0.929 / 5 of 24 / 8 of 10 -> 0.942 / 3 / 7. Adding its gap or lead to the best paper
changed none of these by more than 0.01 AUC. Fewer false abstentions on the small hand-written sets, no gain on the
thousands of generated and SciFact questions, and no near-miss gained anywhere: not adopted (it would also cost
~0.4 s per uncached candidate at question time, or ~12x MiniLM's ingest time, and 440 MB).
"""
import json
import sys
import time
from pathlib import Path

import numpy as np
from sentence_transformers import SentenceTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold, cross_val_predict

from evals.calibrate import HUMAN_FORMS, _half
from evals.dataset import load_beir
from evals.retrieval import beir_papers
from ragqa.answer.answerability import MEASURED
from ragqa.config import Settings
from ragqa.ingest.corpus import load_paths
from ragqa.ingest.listing import load_manifest

TOP = 3
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
BASE = ["cosine", "closeness", "coverage", "gap", "named"]
MONO = {"cosine": 1, "closeness": 1, "coverage": 1, "gap": -1, "named": 1, "mp": 1, "mp_lead": 1, "mp_gap": -1}


def embed(report: Path, model_dir: Path):
    need, questions = set(), set()
    for f in list(report.glob("rows*")) + list(report.glob("check*")):
        for line in open(f):
            r = json.loads(line)
            need.update((r.get("ids") or [])[:TOP])
            questions.add(r["question"])
    s = Settings()
    rep, _ = load_paths([s.data_dir, *(SHARED / "corpora" / f"{c}.jsonl" for c in ("icml2024", "iclr2024"))],
                        load_manifest(s.data_dir))
    texts = {p.paper_id: f"{p.title or ''}. {p.text}" for p in rep.papers}
    for p in beir_papers(load_beir(SHARED / "scifact", "train"), SHARED / "scifact")[0]:
        texts.setdefault(p.paper_id, f"{p.title or ''}. {p.text}")
    m = SentenceTransformer(str(model_dir / "all-mpnet-base-v2"), device="cpu")
    m.max_seq_length = 256
    ids = sorted((i for i in need if i in texts), key=lambda i: len(texts[i]))
    qs = sorted(questions)
    t = time.time()
    qv = m.encode(qs, batch_size=32, normalize_embeddings=True)
    pv = m.encode([texts[i] for i in ids], batch_size=16, normalize_embeddings=True)
    print(f"embedded {len(qs)} questions and {len(ids)} papers in {time.time() - t:.0f} s", file=sys.stderr)
    return {p: v for p, v in zip(ids, pv)}, {q: v for q, v in zip(qs, qv)}


def load(path: Path, pv, qv) -> list[dict]:
    out = []
    for line in open(path):
        r = json.loads(line)
        if r["gate"]:
            out.append(dict(r, cols=None))
            continue
        n = min(TOP, len(r["x"]))
        cols = {f: [v[MEASURED.index(f)] for v in r["x"][:n]] for f in MEASURED}
        mp = [float(pv[p] @ qv[r["question"]]) for p in r["ids"][:n]]
        top = sorted(mp, reverse=True)
        cols["mp"], cols["mp_gap"] = mp, [top[0] - v for v in mp]
        cols["mp_lead"] = [v - (top[1] if v == top[0] else top[0]) if n > 1 else 0.0 for v in mp]
        out.append(dict(r, cols=cols, y=r["y"][:n]))
    return out


def matrix(r, feats):
    return [[r["cols"][f][i] for f in feats] for i in range(len(r["y"]))]


def model(feats):
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, l2_regularization=1.0,
                                          monotonic_cst=[MONO[f] for f in feats], random_state=0)


def run(feats, calib, splits, target=0.04):
    rows = [r for r in calib if r["cols"] is not None]
    x = np.array([v for r in rows for v in matrix(r, feats)])
    y = np.array([v for r in rows for v in r["y"]])
    groups = np.array([r["paper"] for r in rows for _ in r["y"]])
    cv = cross_val_predict(model(feats), x, y, groups=groups, cv=GroupKFold(5), method="predict_proba")[:, 1]
    fitted = model(feats).fit(x, y)
    best, off = [], 0
    for r in rows:
        best.append(cv[off:off + len(r["y"])].max())
        off += len(r["y"])
    best = np.array(best)
    answerable = np.array([r["form"] in HUMAN_FORMS and r["gold"] is not None and any(r["y"]) for r in rows])
    threshold = float(np.sort(best[answerable])[int(np.floor(target * answerable.sum()))])
    print("==", feats, "answer point", round(threshold, 4))
    for name, srows in splits.items():
        s = np.array([0.0 if r["cols"] is None else fitted.predict_proba(np.array(matrix(r, feats)))[:, 1].max()
                      for r in srows])
        a = np.array([r["gold"] is not None for r in srows])
        print(f"   {name}: AUC {roc_auc_score(a, s):.4f} false abstention {int(((s < threshold) & a).sum())}/{a.sum()} "
              f"near-miss abstention {int(((s < threshold) & ~a).sum())}/{(~a).sum()}")


def main():
    report, model_dir = Path(sys.argv[1]), Path(sys.argv[2])
    pv, qv = embed(report, model_dir)
    rows = load(report / "rows.jsonl", pv, qv)
    calib = [r for r in rows if not _half(r["paper"], 0.3, 1)]
    splits = {"held-out split": [r for r in rows if _half(r["paper"], 0.3, 1)],
              "ICLR transfer": load(report / "rows-iclr2024.jsonl", pv, qv)}
    for name in ("seed_questions", "answer_questions", "heldout_mixed"):
        if (report / f"check-{name}.jsonl").exists():
            splits[name] = load(report / f"check-{name}.jsonl", pv, qv)
    for feats in (BASE, BASE + ["mp"], BASE + ["mp", "mp_gap"], BASE + ["mp", "mp_lead"]):
        run(feats, calib, splits)


if __name__ == "__main__":
    main()
