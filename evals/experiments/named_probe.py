"""Experiment (a probe, not a stage): questions that name an indexed paper - by its title (one of four wordings) or by
the method name its title leads with or its abstract introduces (five wordings each) - must be answerable, with
that paper first (issue #14: no false abstention on questions that name an indexed title or method). Search and
the answerability decision only, no LLM, over the index Settings point at (the bundled papers by default).

    python -m evals.experiments.named_probe

Result on 2026-12-02 (bundled 95 papers, MiniLM): titles 0/89 failed; method names 17/175 failed at c8351b9
(BOSS, GMG, CCE, DSD, DFR-Det, TRACE, Region-Aware, D4S: names an abstract introduces for a titled paper were not
looked up), 0/175 at e2a2a55.
"""
import random

from ragqa.answerability import assess
from ragqa.clean import method_name
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.retrieve import search

TITLE = ["What does the paper \"{t}\" find?", "Summarize {t}", "What is the main contribution of '{t}'?", "{t}"]
METHOD = ["What is {m} and how does it work?", "how does {m} work", "What did the {m} paper find?", "Explain {m}.",
          "{m}: what problem does it solve?"]


def probe(pipeline, question: str, paper_id: str) -> str:
    result = search(pipeline.searcher, question, k=pipeline.settings.judge_k, translate=False)
    if result.missing_name:
        return f"refused ({result.missing_name[0]})"
    _, judgement = assess(pipeline.searcher, result, pipeline.embedder.get_query_embedding(result.query), pipeline.calibration)
    if not judgement.answerable:
        return f"abstained (P {judgement.best:.4f})"
    return "" if list(judgement.top(1)) == [paper_id] else "another paper first"


def main() -> None:
    pipeline = Pipeline(Settings())
    rng = random.Random(0)
    for kind in ("title", "method"):
        failed = total = 0
        for pid, meta in pipeline.searcher.paper_meta().items():
            label = meta.get("label") or ""
            name = method_name(meta.get("title")) or (label if label and " " not in label and "…" not in label else None)
            questions = ([rng.choice(TITLE).format(t=meta["title"])] if meta.get("title") else []) if kind == "title" \
                else [t.format(m=name) for t in METHOD] if name else []
            for question in questions:
                total += 1
                verdict = probe(pipeline, question, pid)
                if verdict:
                    failed += 1
                    print(f"{verdict}: {question}")
        print(f"{kind}: {failed}/{total} failed")


if __name__ == "__main__":
    main()
