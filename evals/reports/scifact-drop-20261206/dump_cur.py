"""dump.py on the CURRENT code (cwd /work/main) with suspects switched off by env (runtime patches, no file edits):
NO_SPELL (a6dfef1 spelling), NO_RECENCY (30022fd recency words), NO_OWN (30a1f8c name-like words),
NO_NAMES (every name promotion in _named_in), NO_TITLE (ed62bed/63195ed written title)."""
import os, runpy, sys
sys.path.insert(0, os.getcwd())
E = os.environ.get
import ragqa.retrieval.reading as reading
import ragqa.retrieval.name_gate as name_gate
import ragqa.retrieval.retrieve as retrieve
on = []
if E("NO_SPELL"):
    reading.corrections = lambda *a, **k: {}; on.append("NO_SPELL")
if E("NO_RECENCY"):
    reading.without_recency = lambda q: q; on.append("NO_RECENCY")
if E("NO_OWN"):
    name_gate.name_like_words = lambda q: []; on.append("NO_OWN")
if E("NO_NAMES"):
    name_gate.NameLookups._named_in = lambda self, q, allowed: []; on.append("NO_NAMES")
if E("NO_TITLE"):
    retrieve._written_title = lambda *a: None; on.append("NO_TITLE")
print("patches:", on, file=sys.stderr)
sys.argv = [sys.argv[0]] + sys.argv[1:]
runpy.run_path("/tmp/scifact-diag/dump.py", run_name="__main__")
