"""Experiment (not a stage): is the 1.5B's own yes/no judgement ("Does this paper answer the question?")
informative about answerability? Logit of "Yes" vs "No" over the best paper's title and abstract.

    python -m evals.experiments.llm_judge <calibration report folder> <gguf path>   # writes /tmp/exp_llm.jsonl

Result on 2026-12-01, 85 SciFact claims: AUC 0.69 against 0.74 for the calibrated P; 8.5 s per judgement.
"""
from pathlib import Path as _P

ROOT = _P(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
import json
import math
import random
import sys
import time

import numpy as np
from llama_cpp import Llama

from ragqa.answer.answerability import FEATURES, MEASURED, Calibration

cal = Calibration.from_json(json.load(open(ROOT / "ragqa" / "calibration" / "all-MiniLM-L6-v2.json")))
rows = [json.loads(l) for l in open(_P(sys.argv[1]) / "rows.jsonl")]
# texts

from evals.dataset import load_beir
from evals.retrieval import beir_papers
from ragqa.ingest.corpus import load_paths
from ragqa.ingest.listing import load_manifest
from ragqa.ingest.merge import merge_all

texts = {}
beir = load_beir(SHARED / "scifact", "train")
for p in beir_papers(beir, SHARED / "scifact")[0]:
    texts[p.paper_id] = p.text
rep, _ = load_paths([ROOT / "data"], load_manifest(ROOT / "data"))
rep2, _ = load_paths([SHARED / "corpora" / "icml2024.jsonl"])
for p in merge_all(list(rep.papers) + list(rep2.papers)):
    texts[p.paper_id] = f"{p.title or ''}. {p.text}"
rng = random.Random(0)
cols = [MEASURED.index(f) for f in FEATURES]
def best(r):
    x = np.array([[v[i] for i in cols] for v in r["x"]])
    z = ((x - np.array(cal.mean)) / np.array(cal.scale)) @ np.array(cal.coef) + cal.intercept
    p = 1 / (1 + np.exp(-z)); k = int(p.argmax()); return r["ids"][k], float(p[k])
sample = []
for form, n in (("claim", 50), ("topic-list", 25), ("span", 25)):
    R = [r for r in rows if r["form"] == form and r["x"]]
    a = [r for r in R if r["gold"] is not None and any(r["y"])]; u = [r for r in R if r["gold"] is None]
    sample += rng.sample(a, n) + rng.sample(u, n)
llm = Llama(model_path=sys.argv[2], n_ctx=2048, n_threads=2, n_threads_batch=2, verbose=False, seed=0, logits_all=False)
out = open("/tmp/exp_llm.jsonl", "w")
YES = llm.tokenize(b"Yes", add_bos=False)[0]; NO = llm.tokenize(b"No", add_bos=False)[0]
print(YES, NO, flush=True)
for r in sample:
    pid, p = best(r)
    ab = " ".join(texts[pid].split()[:220])
    msgs = [{"role": "system",
             "content": "You check whether a research paper answers a question. Reply with one word: Yes or No."},
            {"role": "user",
             "content": f"Paper: {ab}\n\nQuestion: {r['question']}\n\nDoes this paper answer the question? Yes or No."}]
    t = time.time()
    prompt = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in msgs) + "<|im_start|>assistant\n"
    toks = llm.tokenize(prompt.encode(), add_bos=False, special=True)
    # reuse the common prefix in the KV cache
    llm.reset(); llm.eval(toks)
    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
    ly, ln = logits[YES], logits[NO]
    y = math.exp(ly - max(ly, ln)); n_ = math.exp(ln - max(ly, ln))
    out.write(json.dumps({"id": r["id"], "form": r["form"], "answerable": r["gold"] is not None, "p": p,
                          "yes": y / (y + n_ + 1e-12), "s": time.time() - t}) + "\n"); out.flush()
out.close()
from sklearn.metrics import roc_auc_score  # noqa: E402

done = [json.loads(line) for line in open("/tmp/exp_llm.jsonl")]
for form in sorted({d["form"] for d in done}):
    part = [d for d in done if d["form"] == form]
    labels = [d["answerable"] for d in part]
    if len(set(labels)) > 1:
        print(form, len(part), "AUC yes", round(roc_auc_score(labels, [d["yes"] for d in part]), 3),
              "AUC calibrated P", round(roc_auc_score(labels, [d["p"] for d in part]), 3))
