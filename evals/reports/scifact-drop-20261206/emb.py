"""Stored vectors of a Chroma store folder (read from a COPY, chroma writes on open) -> npz (ids, vectors)."""
import sys, numpy as np, chromadb, shutil, tempfile, os
src, out = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(dir="/tmp/scifact-diag/stores")
shutil.copytree(src, tmp, dirs_exist_ok=True)
c = chromadb.PersistentClient(path=tmp)
cols = c.list_collections()
col = c.get_collection(cols[0].name if hasattr(cols[0], "name") else cols[0])
print(col.name, col.count(), col.metadata)
ids, vecs, off = [], [], 0
while True:
    g = col.get(include=["embeddings"], limit=2000, offset=off)
    ids += g["ids"]; vecs.append(np.asarray(g["embeddings"], dtype=np.float32))
    if len(g["ids"]) < 2000: break
    off += 2000
np.savez(out, ids=np.array(ids), vecs=np.concatenate(vecs))
shutil.rmtree(tmp)
