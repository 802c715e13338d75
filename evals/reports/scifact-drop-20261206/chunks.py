"""Dump chunk id -> (document text, title, embedded text) from a Chroma sqlite (read-only copy)."""
import json, sqlite3, sys, shutil
src, out = sys.argv[1], sys.argv[2]
con = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
rows = con.execute("""select e.embedding_id, m.key, m.string_value from embeddings e join embedding_metadata m on m.id=e.id
                      where m.key in ('chroma:document','title','_node_content')""").fetchall()
d = {}
for eid, k, v in rows:
    d.setdefault(eid, {})[k] = v
res = {}
for eid, kv in d.items():
    nc = json.loads(kv.get("_node_content") or "{}")
    res[eid] = {"doc": kv.get("chroma:document"), "title": kv.get("title"),
                "excl": nc.get("excluded_embed_metadata_keys"), "tmpl": nc.get("metadata_template"),
                "sep": nc.get("metadata_seperator"), "text_template": nc.get("text_template")}
json.dump(res, open(out, "w"))
print(len(res))
