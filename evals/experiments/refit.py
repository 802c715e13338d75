"""Refit the answerability model with the soft-coverage columns of soft_coverage.py (see its docstring)."""
from pathlib import Path as _P

ROOT = _P(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
import hashlib
import json
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold, cross_val_predict
from sklearn.preprocessing import StandardScaler

from ragqa.answer.answerability import MEASURED

rows = [json.loads(l) for l in open(sys.argv[1] + "/rows.jsonl")]
extra = {r["id"]: r for r in json.load(open("/tmp/exp_soft.json"))}
def half(pid, f, seed):
    return int(hashlib.sha1(f"{seed}:{pid}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < f

def cols(feats, r):
    out = []
    for k, v in enumerate(r["x"]):
        row = []
        for f in feats:
            if f in MEASURED:
                row.append(v[MEASURED.index(f)])
            else:
                row.append(extra[r["id"]][f][k])
        out.append(row)
    return out

def run(feats, label):
    R = [r for r in rows if r["x"]]
    train = [r for r in R if not half(r["paper"], 0.3, 1)]
    test = [r for r in R if half(r["paper"], 0.3, 1)]
    X = np.array([v for r in train for v in cols(feats, r)]); y = np.array([v for r in train for v in r["y"]])
    g = np.array([r["paper"] for r in train for _ in r["x"]])
    sc = StandardScaler().fit(X); m = LogisticRegression(C=1.0, max_iter=3000)
    cv = cross_val_predict(m, sc.transform(X), y, groups=g, cv=GroupKFold(5), method="predict_proba")[:, 1]
    m.fit(sc.transform(X), y)
    # question best
    off = 0; best_cv = []
    for r in train:
        n = len(r["x"]); best_cv.append(cv[off:off + n].max()); off += n
    best_cv = np.array(best_cv)
    ans = np.array([r["gold"] is not None and any(r["y"]) for r in train])
    claim = np.array([r["form"] == "claim" for r in train])
    ordered = np.sort(best_cv[ans & claim])
    thr = ordered[int(0.04 * len(ordered))]
    def evalset(S, scores, name):
        a = np.array([r["gold"] is not None for r in S]); s = np.array(scores)
        forms = sorted({r["form"] for r in S})
        parts = []
        for f in forms:
            mk = np.array([r["form"] == f for r in S])
            fa = ((s < thr) & a & mk).sum(); nm = ((s < thr) & ~a & mk).sum()
            auc = roc_auc_score(a[mk], s[mk]) if len(set(a[mk])) > 1 else float("nan")
            parts.append(f"{f}: auc {auc:.3f} FA {fa}/{(a&mk).sum()} NM {nm}/{(~a&mk).sum()}")
        print(f"  {name}: auc {roc_auc_score(a, s):.3f}; " + "; ".join(parts))
    test_scores = [float((1 / (1 + np.exp(-(sc.transform(np.array(cols(feats, r))) @ m.coef_[0]
                                            + m.intercept_[0])))).max()) for r in test]
    print(label, "coef", np.round(m.coef_[0], 2), "thr", round(float(thr), 4))
    evalset(train, best_cv, "cv")
    evalset(test, test_scores, "test")

base = ("cosine", "closeness", "coverage", "gap", "named")
run(base, "base")
run(base + ("soft",), "+soft")
run(base + ("soft", "softmin"), "+soft+min")
run(("cosine", "closeness", "soft", "gap", "named"), "soft instead of coverage")
