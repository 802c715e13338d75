"""Experiment (a probe, not a stage): every bundled paper whose title has a hyphenated word, asked as "papers on <title
with hyphens and colons as spaces, lower case>"; the gold paper's P, whether it is listed, whether the question is
answerable. Run before and after a change to the terms (git stash) and compare the two files.

    python -m evals.experiments.hyphen_probe /tmp/after.json

Result on 2026-12-04 (bundled 95 papers, MiniLM, shipped calibration): 36 questions; with a hyphenated word's parts
among a paper's terms (terms.paper_terms) the gold paper's P rose on 21 and fell on none (median 0.872 -> 0.980); all 36
were answerable and listed before and after. The hand-written sets' 198 standalone questions: no decision changed,
ROC AUC of the best P 0.8774 -> 0.8775, gold papers listed 136 -> 139, others 94 -> 98 (evals/experiments/decisions.py).
"""
import json, re, sys
from ragqa.pipeline import Pipeline
from ragqa.retrieve import search
from ragqa.answerability import assess
p = Pipeline(); s = p.searcher
metas = s.paper_meta()
out = {}
for pid in s.index.catalog.ids():
    m = metas[pid]
    for field in ("title",):
        t = m.get(field) or ""
        words = re.findall(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b", t)
        if not words: continue
        q = "papers on " + re.sub(r"[-:]", " ", t).lower()
        r = search(s, q, None, 20, translate=None)
        if r.missing_name: out[q] = [pid, "missing", 0, False]; continue
        _, j = assess(s, r, p.embedder.get_query_embedding(r.query), p.calibration)
        out[q] = [pid, j.probabilities.get(pid, 0.0), pid in j.listed, j.answerable]
json.dump(out, open(sys.argv[1], "w"))
print(len(out))
