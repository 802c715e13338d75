"""Per-query SciFact dump for whatever ragqa version is importable from the cwd (run from a worktree).

Usage (cwd = worktree):  RAGQA_VECTORSTORE_DIR=<store> /work/main/.venv/bin/python /tmp/scifact-diag/dump.py OUT.json [modes...]
Does what evals/retrieval.run_beir does (same Settings overrides, same ingest call, same search call), and records per
query: the ranked doc ids (top 100), nDCG@10, the query actually searched / filters / notes, and the dense and BM25
component rankings (doc ids, top 30) and the papers promoted by the name rule.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.getcwd())
FOLDER = Path(os.environ.get("BEIR", "/work/shared/data/scifact"))
SPLIT = "train"
out_path = Path(sys.argv[1])
modes = sys.argv[2:] or ["hybrid"]
LIMIT = int(os.environ["LIMIT"]) if os.environ.get("LIMIT") else None

import ragqa  # noqa: E402
print("ragqa from", ragqa.__file__, file=sys.stderr)
from evals.dataset import load_beir  # noqa: E402
from evals.metrics import ir_metrics  # noqa: E402
from ragqa.config import Settings  # noqa: E402

try:
    from ragqa.retrieval.retrieve import Searcher
except ImportError:
    from ragqa.retrieve import Searcher
try:
    from ragqa.ingest.paper import LoadReport, Paper, paper_id_for
except ImportError:
    from ragqa.corpus import LoadReport, Paper, paper_id_for
try:
    from ragqa.text.clean import make_label
except ImportError:
    from ragqa.clean import make_label
from ragqa.pipeline import Pipeline  # noqa: E402

REC: dict = {}
_dense, _sparse, _named = Searcher._dense, Searcher._sparse, Searcher._named_in


def dense(self, *a, **k):
    r = _dense(self, *a, **k)
    REC["dense"] = [h.node.metadata["paper_id"] for h in r]
    REC["dense_c"] = [h.node.node_id for h in r]
    REC["dense_s"] = [round(float(h.score or 0), 5) for h in r]
    return r


def sparse(self, *a, **k):
    r = _sparse(self, *a, **k)
    REC["bm25"] = [h.node.metadata["paper_id"] for h in r]
    REC["bm25_c"] = [h.node.node_id for h in r]
    REC["bm25_s"] = [round(float(h.score or 0), 4) for h in r]
    return r


def named(self, *a, **k):
    r = _named(self, *a, **k)
    REC.setdefault("named", []).extend(r)
    return r


if os.environ.get("EXACT"):
    import numpy as np
    from llama_index.core.schema import NodeWithScore
    from llama_index.core.vector_stores.utils import metadata_dict_to_node
    _E = np.load(os.environ["EXACT"]); _IDS = list(_E["ids"]); _V = _E["vecs"] / np.linalg.norm(_E["vecs"], axis=1, keepdims=True)

    def _dense(self, query, filters, allowed):  # exact cosine over the store's own vectors (no HNSW); no filters in SciFact
        e = np.asarray(self.embedder.get_query_embedding(query), dtype=np.float32)
        sims = _V @ (e / np.linalg.norm(e))
        top = np.argsort(-sims, kind="stable")[: self.settings.candidates]
        ids = [_IDS[i] for i in top]
        got = self.index.collection.get(ids=ids, include=["documents", "metadatas"])
        nodes = {cid: metadata_dict_to_node(m, text=d) for cid, d, m in zip(got["ids"], got["documents"], got["metadatas"])}
        return [NodeWithScore(node=nodes[cid], score=float(sims[i])) for cid, i in zip(ids, top) if cid in nodes]
    print("EXACT dense from", os.environ["EXACT"], file=sys.stderr)
Searcher._dense, Searcher._sparse, Searcher._named_in = dense, sparse, named

beir = load_beir(FOLDER, SPLIT)
digest = hashlib.sha1((FOLDER / "corpus.jsonl").read_bytes()).hexdigest()[:10]
settings = Settings().model_copy(update={"collection_prefix": f"beir-{FOLDER.name}-{digest}", "top_k": 100,
                                         "candidates": 100})
pipeline = Pipeline(settings)
papers, to_doc = [], {}
for row in beir.corpus:
    text = " ".join(x for x in (row.get("title"), row.get("text")) if x).strip()
    if not text:
        continue
    paper = Paper(paper_id=paper_id_for(f"{row['_id']} {text}"), abstract=text, text=text,
                  label=make_label(text, row.get("title")), title=row.get("title") or None,
                  source_id=str(row["_id"]), sources=(FOLDER.name,))
    papers.append(paper)
    to_doc[paper.paper_id] = str(row["_id"])
if not os.environ.get("NO_INGEST"):
    rep = pipeline.ingest(LoadReport(papers=papers, entries=len(papers)), progress=False)
    print("ingest:", rep, file=sys.stderr)
queries = list(beir.queries.items())[:LIMIT] if LIMIT else list(beir.queries.items())
D = lambda ids: [to_doc.get(p, "?" + p) for p in ids]  # noqa: E731
out = {"cwd": os.getcwd(), "store": str(settings.vectorstore_dir), "modes": {}}
for mode in modes:
    pipeline.settings.retrieval_mode = mode
    run, per = {}, {}
    t = time.time()
    for qid, text in queries:
        REC.clear()
        result = pipeline.search(text, k=100, translate=False)
        run[qid] = {to_doc[h.paper_id]: float(100 - i) for i, h in enumerate(result.hits)}
        per[qid] = {"text": text, "query": getattr(result, "query", None),
                    "filters": {k: v for k, v in vars(result.filters).items() if v not in (None, "", (), [])}
                    if getattr(result, "filters", None) is not None else None,
                    "notes": list(getattr(result, "notes", []) or []),
                    "top": list(run[qid])[:100],
                    "dense": D(REC.get("dense", []))[:30], "dense_s": REC.get("dense_s", [])[:30],
                    "bm25": D(REC.get("bm25", []))[:30], "bm25_s": REC.get("bm25_s", [])[:30],
                    "named": D(REC.get("named", [])), "dense_c": REC.get("dense_c", []), "bm25_c": REC.get("bm25_c", [])}
    means, pq = ir_metrics({q: beir.qrels[q] for q, _ in queries}, run, ["ndcg@10", "recall@100", "recall@10", "mrr@10"])
    for qid in per:
        per[qid]["ndcg"] = pq["ndcg@10"].get(qid)
        per[qid]["gold"] = sorted(beir.qrels.get(qid, {}))
    out["modes"][mode] = {"means": means, "per_query": per, "seconds": round(time.time() - t, 1)}
    print(mode, means, file=sys.stderr)
out_path.write_text(json.dumps(out))
