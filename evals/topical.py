"""Fit and check the topical relevance model (ragqa/answer/topical.py) on real topical labels: ICLR 2024's author \
keywords.

For each keyword held by 3 to 60 papers, one question ("Which papers study <keyword>?" and four other frames, one
drawn per keyword); gold = the papers whose author keywords hold it (`strict`), plus those whose title or abstract
states it (`loose`: author keywords are incomplete, so a listed paper stating the keyword counts as correct). Keywords
are split by a hash of their text: 70% fit the model, 30% are held out and never fitted on. Candidates are what a list
question scores (search with `aggregate_k`); the model is a logistic regression (scikit-learn) over topical.FEATURES,
labelled with `loose`, each row fitted twice: with its labels and without (`unlabelled`: many libraries hold papers
with no topic or keywords, and a paper without labels is not a paper labelled otherwise). The operating points are
chosen on the fit keywords only: `on_point` the lowest P at which their lists (papers at or above it + the papers
labelled with the whole subject, as answers list them) reach a mean precision of 0.8; `related_point` the lowest P
below it whose band [P, on_point) still holds more papers on the subject than not (precision >= 0.5), or, with
`--related-recall R`, the highest P at which both tiers recall R of the fit keywords' papers (the committed model was
fitted with R = 0.6639, the figure of the model it replaced: with the `phrase` feature no band below the on point
reaches precision 0.5, and the band rule left no weaker tier).

Usage (the corpus indexed in its own store first):
  RAGQA_VECTORSTORE_DIR=/tmp/iclr-vs RAGQA_DATA_DIR=/tmp/none ragqa ingest ../shared/data/corpora/iclr2024.jsonl
  RAGQA_VECTORSTORE_DIR=/tmp/iclr-vs RAGQA_DATA_DIR=/tmp/none python -m evals.topical \
      --corpus ../shared/data/corpora/iclr2024.jsonl --out evals/reports/topical-<date> --related-recall 0.6639
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

FRAMES = ("Which papers study {}?", "Are there papers on {}?", "Which papers deal with {}?", "List the work on {}.",
          "Papers about {}")


def fold(text: str) -> str:
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in re.findall(r"[^\W_]+", text.casefold()))


def keyword_sets(corpus: Path, low: int = 3, high: int = 60) -> tuple[dict[str, set[str]], dict[str, dict]]:
    """keyword (as most often written) -> source ids of the papers labelled with it; and source id -> record."""
    from ragqa.ingest.paper import paper_id_for

    records, by_key, spelling = {}, defaultdict(set), defaultdict(lambda: defaultdict(int))
    for line in corpus.open(encoding="utf-8"):
        r = json.loads(line)
        pid = paper_id_for(r["abstract"])
        records[pid] = r
        for k in r.get("keywords") or []:
            key = fold(k)
            if key and len(key) > 2:
                by_key[key].add(pid)
                spelling[key][k.strip()] += 1
    out = {max(spelling[key], key=spelling[key].get): ids for key, ids in by_key.items() if low <= len(ids) <= high}
    return out, records


def held_out(keyword: str) -> bool:
    return int(hashlib.sha1(fold(keyword).encode()).hexdigest(), 16) % 10 >= 7


def loose_gold(keyword: str, strict: set[str], records: dict[str, dict]) -> set[str]:
    needle = f" {fold(keyword)} "
    return strict | {pid for pid, r in records.items()
                     if needle in f" {fold(r.get('title') or '')} {fold(r['abstract'])} "}


def featurise(pipeline, questions: list[dict]) -> list[dict]:
    from tqdm import tqdm

    from ragqa.answer.answerability import candidates_for, judge
    from ragqa.answer.topical import feature_rows, topical_query
    from ragqa.retrieval.retrieve import search

    searcher, settings = pipeline.searcher, pipeline.settings
    stats = searcher.term_stats()
    rows = []
    for q in tqdm(questions, desc="features", file=sys.stderr):
        result = search(searcher, q["question"], k=settings.aggregate_k)
        if result.missing_name:
            rows.append(dict(q, gate=True))
            continue
        qvec = pipeline.embedder.get_query_embedding(result.query)
        candidates = candidates_for(searcher, result, qvec)
        metas = {h.paper_id: h.meta for h in result.hits}
        judgement = judge(pipeline.calibration, candidates)
        labelled = sorted(result.topic.papers | result.topic.titled) if result.topic else []
        rows.append(dict(q, gate=False, ids=[c.paper_id for c in candidates],
                         x=feature_rows(topical_query(result), candidates, metas, stats).tolist(),
                         answerability_listed=list(judgement.listed), labelled=labelled))
    return rows


def refeaturise(pipeline, rows: list[dict]) -> list[dict]:
    """`rows` (featurise's) with the lexical features computed again by today's feature_rows, on the same candidates
    and their cosine and closeness; the question is searched again only for its subject (topical_query)."""
    from ragqa.answer.answerability import Candidate
    from ragqa.answer.topical import FEATURES, feature_rows, topical_query
    from ragqa.retrieval.retrieve import search

    searcher = pipeline.searcher
    stats, records = searcher.term_stats(), searcher.paper_meta()
    out = []
    for r in rows:
        if not r["gate"]:
            query = topical_query(search(searcher, r["question"], k=5))
            cos, close = FEATURES.index("cosine"), FEATURES.index("closeness")
            candidates = [Candidate(pid, x[cos], x[close], 0.0, 0.0, 0.0, 0.0, 0.0) for pid, x in zip(r["ids"], r["x"])]
            r = dict(r, x=feature_rows(query, candidates, records.many(r["ids"]), stats).tolist())
        out.append(r)
    return out


def scores(rows: list[dict], listed: dict[str, set[str]]) -> dict:
    """Mean per-question strict recall and loose precision of `listed` (question id -> paper ids)."""
    recall, precision, empty = [], [], 0
    for r in rows:
        got = listed.get(r["id"], set())
        strict, loose = set(r["strict"]), set(r["loose"])
        recall.append(len(got & strict) / len(strict))
        if got:
            precision.append(len(got & loose) / len(got))
        else:
            empty += 1
    return {"questions": len(rows), "recall": round(float(np.mean(recall)), 4) if recall else None,
            "precision": round(float(np.mean(precision)), 4) if precision else None, "no_list": empty}


def unlabelled(x: np.ndarray) -> np.ndarray:
    """Feature rows as if the papers had no topic or keywords (a library without labels: ICML, a BibTeX export)."""
    from ragqa.answer.topical import FEATURES

    x = np.array(x, dtype=float).reshape(-1, len(FEATURES)).copy()
    x[:, FEATURES.index("label_coverage")] = 0.0
    x[:, FEATURES.index("labelled")] = 0.0
    return x


def fit(rows: list[dict], seed: int):
    """Logistic regression on the fit keywords' rows, each row twice: as labelled and as unlabelled(), so one model
    reads a paper without labels as one (label_coverage 0 with `labelled` 0), not as labelled otherwise."""
    from sklearn.linear_model import LogisticRegression

    x = np.array([v for r in rows for v in r["x"]])
    y = np.array([int(pid in set(r["loose"])) for r in rows for pid in r["ids"]])
    x, y = np.vstack([x, unlabelled(x)]), np.concatenate([y, y])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    model = LogisticRegression(C=1.0, max_iter=2000, random_state=seed).fit((x - mean) / scale, y)
    return mean, scale, model.coef_[0], float(model.intercept_[0])


def listed_at(rows: list[dict], probs: dict[str, np.ndarray], point: float, labels: bool) -> dict[str, set[str]]:
    out = {}
    for r in rows:
        got = {pid for pid, p in zip(r["ids"], probs[r["id"]]) if p >= point}
        out[r["id"]] = got | (set(r["labelled"]) if labels else set())
    return out


def roc(path: Path, splits: dict[str, list[dict]], probs: dict[str, np.ndarray], points: tuple[float, ...]) -> dict:
    """Candidate-level ROC of P(on the subject) against the loose gold, one curve per split, the operating points
    marked; -> {split: AUC}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import roc_auc_score, roc_curve

    aucs = {}
    fig, ax = plt.subplots(figsize=(5, 5))
    for name, rows in splits.items():
        y = np.array([pid in set(r["loose"]) for r in rows for pid in r["ids"]])
        p = np.concatenate([probs[r["id"]] for r in rows])
        aucs[name] = round(float(roc_auc_score(y, p)), 4)
        fpr, tpr, _ = roc_curve(y, p)
        ax.plot(fpr, tpr, label=f"{name} (AUC {aucs[name]})")
        for point in points:
            ax.plot([np.mean(p[~y] >= point)], [np.mean(p[y] >= point)], "o", color=ax.lines[-1].get_color())
    ax.plot([0, 1], [0, 1], ":", color="grey")
    ax.set_xlabel("papers off the subject listed (false positive rate)")
    ax.set_ylabel("papers on the subject listed (true positive rate)")
    ax.set_title("Topical model, ICLR 2024 keywords (dots: on / related points)", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return aucs


def check(model, splits: dict[str, list[dict]], out: Path) -> int:
    """The committed model at its own points: lists as answered (labelled papers, else the first tier; both tiers
    with the weaker one), per split, with the hyphenated keywords apart (their subject is read whole)."""
    from ragqa.answer.topical import FEATURES

    probs = {r["id"]: model.probability(np.array(r["x"]).reshape(-1, len(FEATURES))) for rs in splits.values()
             for r in rs}
    bare = {r["id"]: model.probability(unlabelled(r["x"])) for rs in splits.values() for r in rs}
    report = {"model": model.source, "on_point": model.on_point, "related_point": model.related_point}
    for name, which in splits.items():
        for part, rows in (("all", which), ("hyphenated", [r for r in which if "-" in r["keyword"]])):
            on = listed_at(rows, probs, model.on_point, labels=False)
            weaker = listed_at(rows, probs, model.related_point, labels=False)
            strong = {r["id"]: set(r["labelled"]) or on[r["id"]] for r in rows}
            report[f"{name}_{part}"] = {
                "as_answered_strong_tier": scores(rows, strong),
                "as_answered_both_tiers": scores(rows, {r["id"]: strong[r["id"]] | weaker[r["id"]] for r in rows}),
                "topical_plus_labels": scores(rows, listed_at(rows, probs, model.on_point, labels=True)),
                # the same papers without their labels (a library with no topics or keywords)
                "unlabelled_first_tier": scores(rows, listed_at(rows, bare, model.on_point, labels=False)),
                "unlabelled_both_tiers": scores(rows, listed_at(rows, bare, model.related_point, labels=False))}
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--limit", type=int, default=None, help="questions per split (default: all)")
    parser.add_argument("--features-from", type=Path, default=None,
                        help="an earlier run's rows.jsonl: its candidates and their cosine/closeness kept, the lexical "
                             "features computed again by today's code (a change to feature_rows refits in a minute)")
    parser.add_argument("--related-recall", type=float, default=None,
                        help="set the related point as the highest P whose two tiers recall this share of the fit "
                             "keywords' papers (the committed model's figure, report.json fit.topical_with_related), "
                             "instead of the band-precision rule")
    parser.add_argument("--check", action="store_true",
                        help="score the committed model at its own points on these questions (features computed by "
                             "today's code), fit nothing; writes check.json")
    args = parser.parse_args(argv)

    from ragqa.answer.topical import FEATURES, TopicalModel
    from ragqa.pipeline import Pipeline

    started = time.time()
    keywords, records = keyword_sets(args.corpus)
    rng = random.Random(args.seed)
    questions = []
    for keyword, strict in sorted(keywords.items()):
        questions.append({"id": f"kw-{len(questions)}", "keyword": keyword,
                          "split": "heldout" if held_out(keyword) else "fit",
                          "question": rng.choice(FRAMES).format(keyword), "strict": sorted(strict),
                          "loose": sorted(loose_gold(keyword, strict, records))})
    if args.limit:
        questions = [q for split in ("fit", "heldout")
                     for q in [q for q in questions if q["split"] == split][:args.limit]]
    args.out.mkdir(parents=True, exist_ok=True)
    cache = args.out / "rows.jsonl"
    if cache.exists():  # a rerun in the same folder refits or checks without featurising again
        print(f"{cache}: features read from an earlier run in this folder, not computed by today's code; give a new "
              "--out to compute them again", file=sys.stderr)
        rows = [json.loads(line) for line in cache.open(encoding="utf-8")]
    elif args.features_from:
        rows = refeaturise(Pipeline(), [json.loads(line) for line in args.features_from.open(encoding="utf-8")])
        cache.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        pipeline = Pipeline()
        rows = featurise(pipeline, questions)
        cache.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    kept = [r for r in rows if not r["gate"]]
    fit_rows = [r for r in kept if r["split"] == "fit"]
    held_rows = [r for r in kept if r["split"] == "heldout"]
    if args.check:
        return check(Pipeline().topical, {"fit": fit_rows, "heldout": held_rows}, args.out / "check.json")
    mean, scale, coef, intercept = fit(fit_rows, args.seed)
    tmp = TopicalModel("", FEATURES, tuple(mean), tuple(scale), tuple(coef), intercept, 0.5, 0.5)
    probs = {r["id"]: tmp.probability(np.array(r["x"]).reshape(-1, len(FEATURES))) for r in kept}
    bare = {r["id"]: tmp.probability(unlabelled(r["x"])) for r in kept}  # the same papers without their labels
    grid = [round(p, 3) for p in np.arange(0.02, 0.96, 0.01)]

    def precision_at(point, which):
        return scores(which, listed_at(which, probs, point, labels=True))["precision"] or 0.0

    def band_precision(low, high, which):
        inside = [(pid in set(r["loose"])) for r in which for pid, p in zip(r["ids"], probs[r["id"]])
                  if low <= p < high]
        return sum(inside) / len(inside) if inside else 1.0

    # on: the lowest point at which the fit keywords' lists (these papers + the labelled ones) reach precision 0.8 (the
    # issue's target); related: the lowest point below it whose band still holds more papers on the subject than not
    on_point = min((p for p in grid if precision_at(p, fit_rows) >= 0.8), default=grid[-1])
    related_point = min((p for p in grid if p <= on_point and band_precision(p, on_point, fit_rows) >= 0.5),
                        default=on_point)
    if args.related_recall is not None:  # the weaker tier keeps the recall of both tiers a model it replaces had
        related_point = max((p for p in grid if p <= on_point and scores(
            fit_rows, listed_at(fit_rows, probs, p, labels=False))["recall"] >= args.related_recall), default=grid[0])
    model = TopicalModel("all-MiniLM-L6-v2", FEATURES, tuple(map(float, mean)), tuple(map(float, scale)),
                         tuple(map(float, coef)), intercept, on_point, related_point,
                         source=f"evals/topical.py on {args.corpus.name}, {len(fit_rows)} fit keywords, seed "
                                f"{args.seed}")
    report = {"corpus": args.corpus.name, "keywords": len(keywords), "questions": len(rows),
              "gated": len(rows) - len(kept), "fit_questions": len(fit_rows), "heldout_questions": len(held_rows),
              "on_point": on_point, "related_point": related_point,
              "weights": dict(zip(FEATURES, map(lambda v: round(float(v), 3), coef)))}
    for name, which in (("fit", fit_rows), ("heldout", held_rows)):
        base = {r["id"]: set(r["answerability_listed"]) for r in which}
        report[name] = {
            "topical": scores(which, listed_at(which, probs, on_point, labels=False)),
            "topical_with_related": scores(which, listed_at(which, probs, related_point, labels=False)),
            "topical_with_related_plus_labels": scores(which, listed_at(which, probs, related_point, labels=True)),
            "related_band_precision": round(band_precision(related_point, on_point, which), 4),
            "recall_ceiling": scores(which, {r["id"]: set(r["ids"]) | set(r["labelled"]) for r in which})["recall"],
            "labels_only": scores(which, {r["id"]: set(r["labelled"]) for r in which}),
            "topical_plus_labels": scores(which, listed_at(which, probs, on_point, labels=True)),
            "answerability_list_point": scores(which, base),
            "answerability_plus_labels": scores(which,
                                                {k: v | set(r["labelled"]) for r in which
                                                 for k, v in [(r["id"], base[r["id"]])]}),
        }
    # a library without labels: the same questions and papers, label features unset, no labelled papers to add
    for name, which in (("fit", fit_rows), ("heldout", held_rows)):
        report[name]["unlabelled_topical"] = scores(which, listed_at(which, bare, on_point, labels=False))
        report[name]["unlabelled_topical_with_related"] = scores(which, listed_at(which, bare, related_point,
                                                                                  labels=False))
    # as ask.py lists them (ICLR: every paper has keywords)
    for name, which in (("fit", fit_rows), ("heldout", held_rows)):
        on = listed_at(which, probs, on_point, labels=False)
        strong = {r["id"]: set(r["labelled"]) or on[r["id"]] for r in which}
        report[name]["as_answered_strong_tier"] = scores(which, strong)
        report[name]["as_answered_both_tiers"] = scores(which, {r["id"]: strong[r["id"]] | on[r["id"]] for r in which})
    report["roc_auc"] = roc(args.out / "roc.png", {"fit keywords": fit_rows, "held-out keywords": held_rows}, probs,
                            (on_point, related_point))
    report["seconds"] = round(time.time() - started, 1)
    (args.out / "model.json").write_text(json.dumps(model.to_json(), indent=1), encoding="utf-8")
    (args.out / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
