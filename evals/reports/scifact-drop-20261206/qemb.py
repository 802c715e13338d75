"""fp32 torch query embeddings (as e73c34b embeds questions) and the int8 ONNX ones (current default) for the 809 queries."""
import sys, json, numpy as np
sys.path.insert(0, "/work/main")
from ragqa.config import Settings
from ragqa.models.weights import load_embedder
sys.path.insert(0, "/work/main")
from evals.dataset import load_beir
beir = load_beir("/work/shared/data/scifact", "train")
qs = list(beir.queries.items())
s = Settings(embed_backend="torch", query_backend="same")
e = load_embedder(s, queries=True)
V = np.array([e.get_query_embedding(t) for _, t in qs], dtype=np.float32)
s2 = Settings(query_backend="onnx")
e2 = load_embedder(s2, queries=True)
V2 = np.array([e2.get_query_embedding(t) for _, t in qs], dtype=np.float32)
np.savez("qemb.npz", qids=np.array([q for q, _ in qs]), fp32=V, onnx=V2)
c = (V * V2).sum(1) / np.linalg.norm(V, axis=1) / np.linalg.norm(V2, axis=1)
print("onnx vs fp32 query cos: min %.5f mean %.5f" % (c.min(), c.mean()))
