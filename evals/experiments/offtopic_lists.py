"""Experiment (not a stage): questions about subjects the bundled library does not hold, at scale. List subjects are
ICLR 2024 author keywords (held by >= 3 papers there) that no bundled paper states, whose distinctive words (in at
most 2% of ICLR 2024's abstracts; folded as the index folds them) no bundled paper's title, abstract or labels hold
either, and that have at least one
such word: "weather forecasting" ("weather"), "text-to-video generation" ("video"). Each is asked in English list
wordings over the bundled index (scripted LLM; lists need none), and the answers' coverage counted: every one should
be `not_covered`. For each `related` or `answered` one, the listed papers' answerability P and topical P. The same
subjects asked as explain questions ("What is known about …?"), and `--claims N` SciFact claims (biomedical,
`../shared/data/scifact`) asked as "Is it true that <claim>" over the ML library: off-topic one-paper questions.

    python -m evals.experiments.offtopic_lists --out <dir>/offtopic.json [--limit 300] [--claims 300]
"""
from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter, defaultdict
from pathlib import Path

from evals.experiments import answer_paths
from ragqa.answer import lists
from ragqa.answer.ask import ask
from ragqa.config import Settings
from ragqa.pipeline import Pipeline
from ragqa.text.terms import terms

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "corpora" / "iclr2024.jsonl"
FRAMES = ("Which papers study {k}?", "Do I have anything on {k}?", "List the papers about {k}.")
EXPLAIN = ("What is known about {k}?", "How does {k} work, and what are its main results?",
           "What problem does {k} solve?")
SCIFACT = ROOT.parent / "shared" / "data" / "scifact" / "queries.jsonl"


def _words(text: str, joined: bool = False) -> set[str]:
    """The words of `text` folded as the index folds them (terms: plurals and -ics to one form), so a keyword's
    "molecules" or "robotic" is held by a paper that writes "molecule" or "robotics"; with `joined`, a hyphenated
    word also joined ("over-parameterization" holds "overparameterization"). A hyphenated keyword gives its parts."""
    lowered = text.lower()
    extra = [w.replace("-", "") for w in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)+", lowered)] if joined else []
    return set(terms(" ".join(re.findall(r"[a-z][a-z0-9]+", lowered) + extra)))


def subjects(library_texts: list[str]) -> list[str]:
    papers = [json.loads(line) for line in open(CORPUS, encoding="utf-8")]
    df: Counter = Counter()
    for p in papers:
        df.update(_words(f"{p['title']} {p['abstract']}"))
    held: Counter = Counter(k.strip().lower() for p in papers for k in p.get("keywords") or [])
    library = " \n ".join(t.lower() for t in library_texts)
    library_words = _words(library, joined=True)
    out = []
    for k, n in sorted(held.items()):
        distinctive = {w for w in _words(k) if len(w) > 2 and df[w] <= 0.02 * len(papers)}
        if n >= 3 and distinctive and k not in library and not distinctive & library_words:
            out.append(k)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--claims", type=int, default=0, help="SciFact claims asked as one-paper questions")
    args = parser.parse_args()
    llm = answer_paths._Scripted()
    pipeline = Pipeline(Settings(translate_queries=False), llm=llm, fast_llm=llm)
    meta = pipeline.searcher.paper_meta()
    records = meta.many(sorted(pipeline.searcher.index.catalog.ids()))
    texts = [f"{m.get('title') or ''} {m.get('abstract') or ''} {m.get('topic') or ''} {m.get('extra') or ''}"
             for m in records.values()]
    found = subjects(texts)
    random.Random(0).shuffle(found)
    tiers, seen = lists.collection_tiers, {}

    def recorded(judgement, topicality, labels, meta_of):
        seen.update(answerability=dict(judgement.probabilities), topical=dict(topicality.probabilities),
                    listed_only=[p for p in judgement.listed if p not in topicality.on and p not in topicality.related])
        return tiers(judgement, topicality, labels, meta_of)
    lists.collection_tiers = recorded
    claims = [json.loads(line)["text"].rstrip(".") for line in open(SCIFACT, encoding="utf-8")]
    random.Random(0).shuffle(claims)
    asked = [("keyword list", FRAMES[i % len(FRAMES)].format(k=k), k) for i, k in enumerate(found[: args.limit])]
    asked += [("keyword explain", EXPLAIN[i % len(EXPLAIN)].format(k=k), k) for i, k in enumerate(found[: args.limit])]
    asked += [("scifact claim", f"Is it true that {c[0].lower() + c[1:]}?", c) for c in claims[: args.claims]]
    rows = []
    for kind, question, k in asked:
        seen.clear()
        a = ask(pipeline, question)
        cited = [c.paper_id for c in a.citations]
        rows.append({"set": kind, "subject": k, "question": question, "form": a.form, "coverage": a.coverage,
                     "cited": cited,
                     "listed_only": seen.get("listed_only", []),
                     "answerability": {p: round(seen.get("answerability", {}).get(p, 0.0), 4) for p in cited},
                     "topical": {p: round(seen.get("topical", {}).get(p, 0.0), 4) for p in cited}})
        print(f"{a.coverage:<11} {a.form:<8} {len(cited):>2} {question}", flush=True)
    by, sets = defaultdict(Counter), defaultdict(Counter)
    for r in rows:
        by[r["form"]][r["coverage"]] += 1
        sets[r["set"]][r["coverage"]] += 1
    report = {"subjects_found": len(found), "asked": len(rows),
              "coverage_by_set": {f: dict(c) for f, c in sets.items()},
              "coverage_by_form": {f: dict(c) for f, c in by.items()},
              "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main()
