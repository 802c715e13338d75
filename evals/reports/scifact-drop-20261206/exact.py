"""Exact (brute-force) dense rankings on each store's stored vectors vs what Chroma's HNSW returned (the dumps)."""
import json, sys, numpy as np
sys.path.insert(0, "/work/main")
from ragqa.ingest.paper import paper_id_for
from evals.metrics import ir_metrics
from evals.dataset import load_beir
beir = load_beir("/work/shared/data/scifact", "train")
to_doc = {}
for line in open("/work/shared/data/scifact/corpus.jsonl"):
    r = json.loads(line); text = " ".join(x for x in (r.get("title"), r.get("text")) if x).strip()
    to_doc[paper_id_for(f"{r['_id']} {text}")] = r["_id"]
Q = np.load("qemb.npz"); qids = list(Q["qids"])
qrels = {q: beir.qrels[q] for q in qids}
def exact(store, qv, n=100):
    E = np.load(f"emb-{store}.npz"); ids = E["ids"]; V = E["vecs"]; V = V / np.linalg.norm(V, axis=1, keepdims=True)
    qv = qv / np.linalg.norm(qv, axis=1, keepdims=True)
    S = qv @ V.T
    out = {}
    for i, q in enumerate(qids):
        top = np.argsort(-S[i], kind="stable")[:n]
        out[q] = [to_doc[ids[j].rsplit(":", 1)[0]] for j in top]
    return out
def papers(chunk_docs, k=100):
    return list(dict.fromkeys(chunk_docs))[:k]
def ndcg(lists):
    run = {q: {d: float(100 - i) for i, d in enumerate(papers(l))} for q, l in lists.items()}
    return ir_metrics(qrels, run, ["ndcg@10", "recall@100"])
res = {}
for store in ("old", "mid", "vs"):
    for qk in ("fp32", "onnx"):
        ex = exact(store, Q[qk]); res[(store, qk)] = ex
        m, _ = ndcg(ex); print(f"exact dense, store {store}, queries {qk}: nDCG@10 {m['ndcg@10']}")
dumps = {"old-code/old-store": ("old.json", "old", "fp32"), "old-code/vs-store": ("oldcode-vsstore.json", "vs", "fp32"),
         "cur-code/vs-store(onnx)": ("cur.json", "vs", "onnx"), "cur-code/vs-store(fp32 q)": ("cur-qtorch.json", "vs", "fp32")}
for name, (f, store, qk) in dumps.items():
    try: d = json.load(open(f))["modes"]["hybrid"]["per_query"]
    except Exception as e: print(name, "missing", e); continue
    ex = res[(store, qk)]
    same30 = sum(d[q]["dense"] == ex[q][:30] for q in qids)
    sameset = sum(set(d[q]["dense"]) == set(ex[q][:30]) for q in qids)
    print(f"{name}: HNSW dense top-30 chunk list == exact for {same30}/809 queries (same set {sameset})")
