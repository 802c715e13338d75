"""Experiment (not a stage): the name check's verdict (`Searcher.missing_name`) for every question of
evals/datasets/*.jsonl, four probes per bundled method name and ten hand probes, on a hash-embedded index of the
bundled papers of the checkout given. Run it on two checkouts and diff the outputs:

    git worktree add /tmp/old 4c205eb
    python evals/experiments/name_index_equivalence.py /tmp/old > /tmp/before.jsonl
    python evals/experiments/name_index_equivalence.py . > /tmp/after.jsonl && diff /tmp/before.jsonl /tmp/after.jsonl

2026-12-02: the regexes over a joined corpus (4c205eb) and the FTS5 name index (ragqa/query/names.py) agree on all 480.
"""
import glob
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.text.clean import method_name

root = Path(sys.argv[1]); tmp = Path(tempfile.mkdtemp())
shutil.copytree(root / "data", tmp / "data")
s = Settings(data_dir=tmp / "data", vectorstore_dir=tmp / "vs", embed_model="hash", model_cache_dir=tmp / "c")
p = Pipeline(s); rep = p.load()[0]; p.ingest(rep, progress=False)
qs = []
for f in sorted(glob.glob(str(root / "evals/datasets/*.jsonl"))):
    qs += [json.loads(l)["question"] for l in open(f) if l.strip()]
for paper in rep.papers:
    m = method_name(paper.title)
    if m:
        qs += [f"What is {m}?", f"Which paper introduced {m}?", f"the {m} paper", f"Is {m}-2 better?"]
qs += ["Which paper introduced the Transformer architecture?", "Which paper introduced Transformers?", "the LoRA paper",
       "Which paper introduced GPT-4?", "How does Stable Diffusion compare?", "the Bengio paper",
       "What did the original BERT paper find?", "Is there work on ResNet-50 pruning?", "GPT4 vs GPT-4o?",
       "the Vaswani paper"]
for q in qs:
    print(json.dumps([q, p.searcher.missing_name(q), p.searcher.missing_name(q, phrases=False)]))
