"""Experiment (a probe, not a stage): questions that name an indexed paper - by its title (one of four wordings) or by
the method name its title leads with or its abstract introduces (five wordings each) - must be answerable, with
that paper first (issue #14: no false abstention on questions that name an indexed title or method). Search and
the answerability decision only, no LLM, over the index Settings point at (the bundled papers by default).

    python -m evals.experiments.named_probe
    python -m evals.experiments.named_probe --zh     # each method name asked in Chinese, translated by the LLM
    python -m evals.experiments.named_probe --calibration <calibrate report folder>   # same store as that run

The second form counts the calibration questions that name a paper now and did not when the report's rows were measured
(a named paper makes a question answerable): near-misses named by mistake, answerable ones named with their gold.

Result on 2026-12-02 (bundled 95 papers, MiniLM): titles 0/89 failed; method names 17/175 failed at c8351b9 (BOSS,
GMG, CCE, DSD, DFR-Det, TRACE, Region-Aware, D4S: names an abstract introduces for a titled paper were not looked up),
0/175 at e2a2a55. In Chinese (--zh, 35 names): 0/35 at the commit that also looks names up in the user's own words
(the translation of "JKOnet*学到了什么？" had dropped the star). Calibration questions newly named (rows of a run at
47ee176): ICML 2024 9 answerable (their gold), 0 near-miss of 2,400; SciFact 2 near-miss claims of 809 (an indexed
abstract introduces HGPS); ICLR 2024 transfer 6 answerable method questions (their gold), 0 near-miss of 1,500.
"""
import json
import random
import sys
from collections import Counter
from pathlib import Path

from ragqa.answer.answerability import MEASURED, assess
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.retrieval.retrieve import search
from ragqa.text.clean import method_name

TITLE = ["What does the paper \"{t}\" find?", "Summarize {t}", "What is the main contribution of '{t}'?", "{t}"]
METHOD_ZH = "{m}是什么方法？它解决了什么问题？"
METHOD = ["What is {m} and how does it work?", "how does {m} work", "What did the {m} paper find?", "Explain {m}.",
          "{m}: what problem does it solve?"]


def probe(pipeline, question: str, paper_id: str, translate=False) -> str:
    result = search(pipeline.searcher, question, k=pipeline.settings.judge_k, translate=translate)
    if result.missing_name:
        return f"refused ({result.missing_name[0]})"
    _, judgement = assess(pipeline.searcher, result, pipeline.embedder.get_query_embedding(result.query),
                          pipeline.calibration)
    if not judgement.answerable:
        return f"abstained (P {judgement.best:.4f})"
    return "" if list(judgement.top(1)) == [paper_id] else "another paper first"


def main(chinese: bool = False) -> None:
    pipeline = Pipeline(Settings())
    rng = random.Random(0)
    for kind in ("method-zh",) if chinese else ("title", "method"):
        failed = total = 0
        for pid, meta in pipeline.searcher.paper_meta().items():
            label = meta.get("label") or ""
            name = method_name(meta.get("title")) or (label if label and " " not in label and "…" not in label
                                                      else None)
            if kind == "title":
                questions = [rng.choice(TITLE).format(t=meta["title"])] if meta.get("title") else []
            else:
                questions = ([METHOD_ZH.format(m=name)] if chinese
                             else [t.format(m=name) for t in METHOD]) if name else []
            for question in questions:
                total += 1
                verdict = probe(pipeline, question, pid, pipeline.translate if chinese else False)
                if verdict:
                    failed += 1
                    print(f"{verdict}: {question}")
        print(f"{kind}: {failed}/{total} failed")


def newly_named(folder: Path) -> None:
    def read(name):
        return [json.loads(line) for line in open(folder / name)]
    rows = read("rows.jsonl")
    for prefix, subset in (("calib-icml2024-50-0", [r for r in rows if r["form"] != "claim"]),
                           ("calib-beir-scifact-50-0", [r for r in rows if r["form"] == "claim"]),
                           ("calib-iclr2024-50-0", read("rows-iclr2024.jsonl"))):
        searcher = Pipeline(Settings(collection_prefix=prefix)).searcher
        searcher.refresh()
        counts = Counter()
        for r in subset:
            if r["gate"]:
                continue
            before = {pid for pid, x in zip(r["ids"], r["x"]) if x[MEASURED.index("named")] >= 1.0}
            new = set(searcher._named_in(r["question"], None)) - before
            if new:
                counts["near-miss" if r["gold"] is None else "answerable, gold" if set(r["gold"]) & new
                       else "answerable, other"] += 1
        print(f"{prefix}: {dict(counts)} of {len(subset)} questions newly named")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--calibration"]:
        newly_named(Path(sys.argv[2]))
    else:
        main(chinese=sys.argv[1:2] == ["--zh"])
