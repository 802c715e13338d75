"""Experiment: metadata (count / group) answers on a big store, one warm process: time, citations, counted papers and
peak RSS per question; a scripted LLM that these answers never call.

    RAGQA_EMBED_MODEL=hash RAGQA_VECTORSTORE_DIR=<store> python -m evals.experiments.metadata_at_scale

Result on 2026-12-03 (2-core AMD EPYC, 520,524 synthetic papers): 1.0-2.0 s per question, +70 MB at most (README).
"""
import json
import os
import resource
import time

os.environ["HF_HUB_OFFLINE"] = "1"
from ragqa.answer.ask import ask
from ragqa.pipeline import Pipeline
from tests.fakes import ScriptedLLM

llm = ScriptedLLM(["unused [1]."])
p = Pipeline(llm=llm, fast_llm=llm)
t = time.perf_counter(); p.search("warm up", translate=False)
print("first search", round(time.perf_counter() - t, 2), "s", flush=True)
rss = lambda: round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
for q in ["How many papers per venue?", "How many papers are indexed per year?",
          "Which venue has the most papers from 2024?", "How many papers are there from 2024?",
          "How many papers are indexed?", "How many ICML papers are indexed per year?"]:
    before = rss(); t = time.perf_counter(); a = ask(p, q); dt = time.perf_counter() - t
    print(json.dumps({"q": q, "s": round(dt, 2), "form": a.form, "citations": len(a.citations),
                      "counted": len(a.counted), "groups": [(r["group"], r["count"]) for r in a.table][:6],
                      "peak_rss_mb": rss(), "rss_before": before}), flush=True)
    print("   ", a.text.splitlines()[0][:150], flush=True)
