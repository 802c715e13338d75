"""Which sub-rule of NameLookups._named_in (current code) names a paper, for the SciFact queries that had one."""
import json, os, sys
sys.path.insert(0, os.getcwd())
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.retrieval import name_gate as ng
from ragqa.query.method_names import _NAME_RUN, name_key, name_like_words
from ragqa.text.clean import CJK
import hashlib
from pathlib import Path
F = Path("/work/shared/data/scifact")
digest = hashlib.sha1((F / "corpus.jsonl").read_bytes()).hexdigest()[:10]
p = Pipeline(Settings().model_copy(update={"collection_prefix": f"beir-scifact-{digest}", "top_k": 100, "candidates": 100}))
s = p.searcher; s.refresh()
cur = json.load(open("/tmp/scifact-diag/cur.json"))["modes"]["hybrid"]["per_query"]
print("name table size", len(s._names))
for q, r in cur.items():
    if not r["named"]: continue
    query = CJK.sub(" ", r["text"])
    typed = query.split() + _NAME_RUN.findall(query)
    spelled = s._spelled(typed)
    introduced = {k: w for w in typed for k in ("~" + name_key(w), "=" + name_key(w, cased=True)) if k in s._names}
    intro_ok = {w: s.names.mentioned_by(w, 3) for k, w in introduced.items()}
    own = {w: s.names.own_papers(w, 2) for w in name_like_words(query)
           if not any(k in s._names for k in (name_key(w), "~" + name_key(w), "=" + name_key(w, cased=True)))}
    print(q, "gold", r["gold"], "named", r["named"], "| spelled", spelled, "| introduced", {k: (w, intro_ok[w]) for k, w in introduced.items()},
          "| name_like(own)", {w: v for w, v in own.items() if v})
