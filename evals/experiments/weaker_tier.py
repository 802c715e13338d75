"""Experiment (a probe, not a stage): the lists, counts and group-bys whose only papers come from the answerability's
list point (no paper on the subject or near it by the topical model, none named, answering or labelled), with each
listed paper's topical P and answerability P and whether it is gold. Such an answer is `related`; without the list
point it would be `not_covered`. Run over every question of evals/datasets/ (scripted LLM, Chinese searched
untranslated, the subject check asking the real LLM, as answer_paths --subject-llm):

    python -m evals.experiments.weaker_tier --out /tmp/weaker_tier.json [--exclude collection_heldout11]

Each row keeps the subject words the topical model scored and the listed papers' titles and abstracts
(evals.experiments.paper_on_subject --probe reads them). It prints one line per such question, highest topical P
first: whether one score could tell the questions whose listed papers are gold from those (off-topic, near-miss, no
match in the filter) where none is.
"""
from __future__ import annotations

import argparse
import glob
import json
from pathlib import Path

from evals.experiments import answer_paths
from ragqa.answer import lists
from ragqa.answer.ask import ask
from ragqa.answer.topical import subject_words
from ragqa.config import Settings
from ragqa.pipeline import Pipeline


def probe(exclude: frozenset[str]) -> list[dict]:
    tiers, current = lists.collection_tiers, {}

    def recorded(judgement, topicality, labels, meta_of):
        if not (topicality.on or topicality.related or judgement.named or judgement.answering or labels):
            current["row"] = {"listed": list(judgement.listed),
                              "topical": {p: topicality.probabilities.get(p, 0.0) for p in judgement.listed},
                              "answerability": {p: judgement.probabilities.get(p, 0.0) for p in judgement.listed},
                              "papers": {p: {"title": meta_of(p).get("title") or "",
                                             "abstract": meta_of(p).get("abstract") or ""} for p in judgement.listed}}
        return tiers(judgement, topicality, labels, meta_of)

    def read(result):  # the subject the topical model scores
        current["words"], current["query"] = subject_words(result), result.query
        return subject_query(result)

    lists.collection_tiers, subject_query, lists.topical_query = recorded, lists.topical_query, read
    llm = answer_paths._Scripted()
    pipeline = Pipeline(Settings(translate_queries=False), llm=llm, fast_llm=llm)
    answer_paths._real_subject_check(pipeline.settings)
    out = []
    for path in sorted(glob.glob(str(answer_paths.DATASETS / "*.jsonl"))):
        stem = Path(path).stem
        if "written_" in stem or stem in exclude:
            continue
        for i, line in enumerate(open(path, encoding="utf-8")):
            row = json.loads(line)
            current.clear()
            ask(pipeline, row["question"], history=row.get("history"))
            if current.get("row", {}).get("listed"):
                gold = set(row.get("gold") or ([row["paper_id"]] if row.get("paper_id") else []))
                out.append({**current["row"], "key": f"{stem}:{row.get('id', i)}", "question": row["question"],
                            "words": current.get("words"), "query": current.get("query"), "gold_ids": sorted(gold),
                            "gold_listed": sum(p in gold for p in current["row"]["listed"]), "gold": len(gold)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--exclude", nargs="*", default=["claim_sentences"])
    args = parser.parse_args()
    rows = probe(frozenset(args.exclude))
    args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    for r in sorted(rows, key=lambda r: -max(r["topical"].values())):
        print(f"topical {max(r['topical'].values()):.4f} answerability {max(r['answerability'].values()):.4f} "
              f"gold listed {r['gold_listed']}/{r['gold']}  {r['key']}  {r['question'][:70]}")
    with_gold = sum(r["gold_listed"] > 0 for r in rows)
    print(f"{len(rows)} questions answered from the list point alone: {with_gold} list a gold paper, "
          f"{sum(r['gold'] == 0 for r in rows)} have none")


if __name__ == "__main__":
    main()
