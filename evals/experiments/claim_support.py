"""Experiment (a fit, not a stage): one calibrated claim-support check (ragqa/answer/support.py) in place of the three
word-share thresholds of ragqa/answer/citations.py (`_supported`'s cited_support_share, `supporting_source`'s
support_share and support_min_words / support_min_words_uncited), fitted on the hand-labelled answer sentences of
evals/datasets/claim_sentences.jsonl (evals/experiments/claim_sentences.py made them).

Each English sentence labelled supported or unsupported gives one row: support.features of the sentence as
resolve_citations would check it (markers after cite_named; a cited sentence against its valid cited sources' texts
joined, an uncited one against the source ClaimSupport.credited picks among those the answer cites, or all when it
cites none) and the question the model was asked. A logistic regression over the standardised features (no class
weights: the threshold sets the trade-off) is evaluated by 5-fold cross-validation grouped by answer (GroupKFold on
answer_id: an answer's sentences, hence its question, never split between train and test).

The evaluation is a replay: every answer's raw text goes through the real resolve_citations again with its logged
sources (rebuilt as Source objects; the replay with today's checks gives back every logged decision), the three
thresholds replaced by the model fitted without that answer's fold - variant a - and also without the echo guard -
variant b. Example-leak, repeat, grounded-number and the other guards run as they are. Chinese sentences are not
scored (support.features -> None): they keep today's handling in both variants. "Today" is the code before the check
was wired in (dde0619): the replay patches its three thresholds and echo guard, so run it in a worktree of that
commit; resolve_citations is now variant b with the fitted model.

The threshold: the one, on a grid of P from 0.02 to 0.98, whose out-of-fold replay minimises dropped-supported +
COST x kept-unsupported (COST = 2: a kept sentence the source does not support tells the reader something false under
a citation; a dropped right sentence only shortens the answer, which the quote top-up and the extractive fallback
fill). A nested estimate (the threshold chosen the same way inside each training part, applied to its held-out fold)
says how much choosing it on the same out-of-fold replay flatters the table. Sentences labelled no_claim are counted
apart (dropping or keeping them is fine) and never fitted on. The model fitted on every row, with the threshold chosen
for `--variant`, is written to --out.

Result on 2026-12-06 (`--compare --embeddings`; evals/reports/claim-support-20261206/): 417 English claims fitted (344
supported, 73 unsupported; 245 answers). Kept right / kept wrong / dropped right / dropped wrong over all 472 claims:
today 358/40/35/39; variant a (P >= 0.65) 350/32/43/47, nested 351/36/42/43; variant b (P >= 0.65) 368/39/25/40,
nested 364/40/29/39. Once the threshold is itself chosen out of fold (nested), neither variant beats today's rules by
more than a few sentences: b keeps 6 more right ones at the same 40 wrong. MiniLM cosine adds nothing.

Usage: python -m evals.experiments.claim_support [--data FILE] [--out JSON] [--results JSON] [--variant b|a] [--compare]
       [--embeddings]   (--compare: the neighbouring feature sets, ~15 min; --embeddings: MiniLM cosine as a feature)
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from unittest import mock

import numpy as np

from ragqa.answer import citations, support
from ragqa.answer.prompting import worked_examples
from ragqa.answer.records import Source
from ragqa.answer.support import FEATURES, ClaimSupport, best_source, features, source_text
from ragqa.config import PROJECT_DIR
from ragqa.retrieval.hits import Hit
from ragqa.text.clean import CJK
from ragqa.text.sentences import content_words

from .claim_sentences import norm

DATA = PROJECT_DIR / "evals" / "datasets" / "claim_sentences.jsonl"
OUT = PROJECT_DIR / "ragqa" / "calibration" / "claim-support.json"
RESULTS = PROJECT_DIR / "evals" / "reports" / "claim-support-20261206" / "results.json"
COST = 2
GRID = [round(t / 100, 2) for t in range(2, 99)]
FOLDS = 5
# the model's features (a design choice, not a search): a sentence's words are its source's, or only the question's
# (echoed, unsupported), or neither's (written by the model); P falls with the shares of the last two and the count of
# new words, with a negation or a name the source lacks, and when the source holds little of the question. --compare
# fits the neighbouring sets: they differ by a few sentences (nested costs 106-129 against today's 115), too little to
# choose on; the echo share (asked for as a feature) was left out because with it a sentence sharing no word with its
# source scores as supported (P 0.65, that set's own threshold; PROBES)
MODEL_FEATURES = ("new_share", "question_only_share", "new_words", "missing_names", "negation", "question_in_source")
FEATURE_SETS = {
    "all eleven": FEATURES,
    "first fit: echo instead of the two shares": ("share_all", "new_words", "missing_names", "echo", "negation",
                                                  "question_in_source"),
    "without new_words (count)": tuple(f for f in MODEL_FEATURES if f != "new_words"),
    "with length and cited": (*MODEL_FEATURES, "length", "cited"),
    "without missing_names": tuple(f for f in MODEL_FEATURES if f != "missing_names"),
    "without question_in_source": tuple(f for f in MODEL_FEATURES if f != "question_in_source"),
    "share alone (today's cited share)": ("share",),
    "share_all alone": ("share_all",),
}
# sentences their source holds no word of, under no question, one the source answers and one it does not
_DIFFAUG = ({"label": "DiffAug", "venue": "ICLR 2024"}, ["DiffAug augments training images with one diffusion step, "
                                                        "which makes image classifiers more robust."])
PROBES = [(s, source_text(*_DIFFAUG), q)
          for s in ("The 2022 World Cup was won by France [1].", "It works on SO(3) [1].")
          for q in ("", "How does DiffAug augment training images?", "Who won the 2022 World Cup?")]
CELLS = ("kept/supported", "kept/unsupported", "dropped/supported", "dropped/unsupported")


def sources_of(row: dict) -> list[Source]:
    return [Source(n=s["n"], hit=Hit(s["paper_id"], 0.0, None, "", {k: s[k] for k in ("label", "title", "venue",
                                                                                     "year")}),
                   evidence=tuple(s["evidence"])) for s in row["sources"]]


def answers(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r["answer_id"], []).append(r)
    return {k: sorted(v, key=lambda r: r["sentence_index"]) for k, v in out.items()}


def check_input(row: dict) -> tuple[str, str, str, bool] | None:
    """(sentence, source text, question, cited) as resolve_citations hands a row's sentence to the check; None for a
    sentence not scored."""
    sources = sources_of(row)
    by_n = {s.n: s for s in sources}
    sentence = citations.cite_named(row["sentence"], sources)
    cited = [n for _, ns in citations.parse_markers(sentence) for n in dict.fromkeys(ns) if n in by_n]
    if cited:
        text = " ".join(source_text(by_n[n].hit.meta, by_n[n].evidence) for n in dict.fromkeys(cited))
    else:
        allowed = set(row["resolved"]["cited"]) or set(by_n)
        n = best_source(sentence, {s.n: source_text(s.hit.meta, s.evidence) for s in sources if s.n in allowed})
        if n is None:
            return None
        text = source_text(by_n[n].hit.meta, by_n[n].evidence)
    return (sentence, text, row["asked"], bool(cited)) if features(sentence, text, row["asked"]) else None


def fit(x: np.ndarray, y: np.ndarray, names: tuple[str, ...], threshold: float = 0.5, **extra) -> ClaimSupport:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=1.0, max_iter=5000).fit((x - mean) / scale, y)
    return ClaimSupport(features=names, mean=tuple(mean.tolist()), scale=tuple(scale.tolist()),
                        coef=tuple(model.coef_[0].tolist()), intercept=float(model.intercept_[0]),
                        threshold=threshold, **extra)


def decisions(text: str, dropped: list[str]) -> list[str]:
    """Per sentence of `text`: kept / dropped / empty, a dropped form counted against the last sentences that have it
    (claim_sentences.sentence_rows' rule)."""
    sentences = citations.split_answer_sentences(text)
    keys = [norm(s) for s in sentences]
    left = Counter(norm(d) for d in dropped)
    out = ["kept" if k else "empty" for k in keys]
    for i in range(len(sentences) - 1, -1, -1):
        if left[keys[i]] > 0:
            out[i], left[keys[i]] = "dropped", left[keys[i]] - 1
    return out


class Replay:
    """resolve_citations over logged answers, with the claim-support model in place of the three thresholds (and,
    variant b, of the echo guard too), called as the product would call it (ClaimSupport.supported / credited)."""

    def __init__(self):
        self.examples = worked_examples(PROJECT_DIR / "prompts")
        self.sources: dict[str, list[Source]] = {}
        self.original = citations.supporting_source

    def run(self, rows: list[dict], model: ClaimSupport | None, threshold: float, variant: str) -> list[str]:
        """Decisions for one answer's rows; model None: today's checks."""
        first = rows[0]
        sources = self.sources.setdefault(first["answer_id"], sources_of(first))
        question = first["asked"]
        with ExitStack() as stack:
            if model is not None:
                model = replace(model, threshold=threshold)
                stack.enter_context(mock.patch.object(citations, "_supported", lambda sentence, cited, *_: (
                    model.supported(sentence, " ".join(source_text(s.hit.meta, s.evidence) for s in cited), question))))
                stack.enter_context(mock.patch.object(citations, "supporting_source", lambda sentence, srcs, allowed,
                                                      *rest: self._credit(model, sentence, srcs, allowed, question,
                                                                          *rest)))
                if variant == "b":
                    stack.enter_context(mock.patch.object(citations, "echoes", lambda *_: False))
            _, _, _, dropped = citations.resolve_citations(first["raw_text"], sources, None, [], question,
                                                           self.examples)
        out = decisions(first["raw_text"], dropped)
        return [out[r["sentence_index"]] for r in rows]

    def _credit(self, model: ClaimSupport, sentence: str, sources: list[Source], allowed: set[int], question: str,
                *rest) -> int | None:
        """supporting_source with the model: Chinese as today; a sentence little more than its papers' names claims
        nothing (as today); else ClaimSupport.credited among the allowed sources."""
        if CJK.search(sentence):
            return self.original(sentence, sources, allowed, *rest)
        labels = content_words(" ".join(s.hit.meta.get("label") or "" for s in sources))
        if len(content_words(sentence) - labels) < 2:
            return None
        return model.credited(sentence, {s.n: source_text(s.hit.meta, s.evidence) for s in sources if s.n in allowed},
                              question)


def table(rows: list[dict], decided: dict[int, str]) -> dict:
    """kept / dropped x supported / unsupported over the claims (no_claim and wordless sentences apart), for all
    sentences and per language, and what became of the no_claim ones."""
    claims = [(i, r) for i, r in enumerate(rows) if r["support"] in ("supported", "unsupported")
              and decided[i] in ("kept", "dropped")]

    def cells(subset):
        return {c: sum(f"{decided[i]}/{r['support']}" == c for i, r in subset) for c in CELLS}
    return {"all": cells(claims), "en": cells([(i, r) for i, r in claims if r["lang"] == "en"]),
            "zh": cells([(i, r) for i, r in claims if r["lang"] == "zh"]),
            "cited": cells([(i, r) for i, r in claims if r["markers"]]),
            "uncited": cells([(i, r) for i, r in claims if not r["markers"]]),
            "no_claim": dict(Counter(decided[i] for i, r in enumerate(rows) if r["support"] == "no_claim"))}


def cost(t: dict) -> int:
    return t["all"]["dropped/supported"] + COST * t["all"]["kept/unsupported"]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--results", type=Path, default=RESULTS)
    p.add_argument("--variant", choices=("a", "b"), default="b", help="whose threshold the written model carries")
    p.add_argument("--embeddings", action="store_true", help="also measure the MiniLM cosine feature")
    p.add_argument("--compare", action="store_true", help="also evaluate FEATURE_SETS (~15 min)")
    args = p.parse_args(argv)
    # the replay asks for the same sentences' features at every threshold
    with mock.patch.object(support, "features", lru_cache(maxsize=None)(support.features)), \
            mock.patch.object(support, "claim_words", lru_cache(maxsize=None)(support.claim_words)):
        return run(args)


def run(args) -> int:
    from sklearn.metrics import log_loss, roc_auc_score
    from sklearn.model_selection import GroupKFold

    rows = [json.loads(line) for line in args.data.read_text("utf-8").splitlines() if line.strip()]
    by_answer = answers(rows)
    index = {id(r): i for i, r in enumerate(rows)}

    # the fitted rows: English claims the check scores
    inputs = [check_input(r) if r["support"] in ("supported", "unsupported") else None for r in rows]
    fitted = [i for i, x in enumerate(inputs) if x is not None]
    x = np.array([[features(*inputs[i])[f] for f in FEATURES] for i in fitted])
    y = np.array([rows[i]["support"] == "supported" for i in fitted])
    if np.isnan(x).any():
        raise ValueError("a fitted row has an unknown feature (a question without English content words)")
    groups = np.array([rows[i]["answer_id"] for i in fitted])
    answer_ids = sorted(by_answer)
    fold_of = {}
    for k, (_, test) in enumerate(GroupKFold(FOLDS).split(answer_ids, groups=answer_ids)):
        fold_of.update({answer_ids[j]: k for j in test})
    fold = np.array([fold_of[g] for g in groups])

    def models(names: tuple[str, ...], train: np.ndarray, folds: np.ndarray, k_folds: int) -> list[ClaimSupport]:
        cols = [FEATURES.index(f) for f in names]
        return [fit(x[train & (folds != k)][:, cols], y[train & (folds != k)], names) for k in range(k_folds)]

    def oof(names: tuple[str, ...]) -> np.ndarray:
        cols, out = [FEATURES.index(f) for f in names], np.zeros(len(y))
        for k, m in enumerate(models(names, np.ones(len(y), bool), fold, FOLDS)):
            z = ((x[fold == k][:, cols] - np.array(m.mean)) / np.array(m.scale)) @ np.array(m.coef) + m.intercept
            out[fold == k] = 1 / (1 + np.exp(-z))
        return out

    def scores(names: tuple[str, ...]) -> dict:
        q = oof(names)
        return {"auc": round(roc_auc_score(y, q), 3), "log_loss": round(log_loss(y, q), 3)}

    replay = Replay()

    def replayed(fold_models: list[ClaimSupport] | None, answer_fold: dict[str, int], threshold: float,
                 variant: str) -> dict[int, str]:
        out = {}
        for aid in answer_fold:
            rs = by_answer[aid]
            model = fold_models[answer_fold[aid]] if fold_models else None
            out.update({index[id(r)]: d for r, d in zip(rs, replay.run(rs, model, threshold, variant))})
        return out

    def tabled(decided: dict[int, str]) -> dict:
        kept = sorted(decided)
        return table([rows[i] for i in kept], {j: decided[i] for j, i in enumerate(kept)})

    def choose(fold_models, answer_fold, variant) -> tuple[float, list]:
        """The rule's threshold over the out-of-fold replay of these answers (lowest on a tie)."""
        sweep = [(t, tabled(replayed(fold_models, answer_fold, t, variant))) for t in GRID]
        return min(sweep, key=lambda st: (cost(st[1]), st[0]))[0], sweep

    def evaluate(names: tuple[str, ...], nested: bool) -> dict:
        out = {}
        fold_models = models(names, np.ones(len(y), bool), fold, FOLDS)
        for variant in ("a", "b"):
            threshold, sweep = choose(fold_models, fold_of, variant)
            # the other rule one could state: no more unsupported kept than today, the fewest supported dropped
            capped = min((st for st in sweep if st[1]["all"]["kept/unsupported"] <= today_all["kept/unsupported"]),
                         key=lambda st: (st[1]["all"]["dropped/supported"], st[0]))
            out[variant] = {"threshold": threshold, "table": tabled(replayed(fold_models, fold_of, threshold, variant)),
                            "at_most_today_kept_wrong": {"threshold": capped[0], "all": capped[1]["all"]},
                            "sweep": {f"{t:.2f}": [st["all"][c] for c in CELLS] for t, st in sweep}}
            if not nested:
                continue
            # the threshold chosen the same way on each training part's own out-of-fold replay (4 inner folds),
            # applied to its held-out fold with that fold's model
            decided: dict[int, str] = {}
            thresholds = []
            for k in range(FOLDS):
                inner_ids = sorted(a for a, f in fold_of.items() if f != k)
                inner_of = {}
                for j, (_, test) in enumerate(GroupKFold(FOLDS - 1).split(inner_ids, groups=inner_ids)):
                    inner_of.update({inner_ids[m]: j for m in test})
                inner = np.array([inner_of.get(g, -1) for g in groups])
                t_k, _ = choose(models(names, fold != k, inner, FOLDS - 1), inner_of, variant)
                thresholds.append(t_k)
                decided.update(replayed(fold_models, {a: f for a, f in fold_of.items() if f == k}, t_k, variant))
            out[variant].update(nested_thresholds=thresholds, nested_table=tabled(decided))
            print(f"{','.join(names)} variant {variant}: threshold {threshold}, nested {thresholds}", file=sys.stderr)
        return out

    today = replayed(None, fold_of, 0.0, "a")
    today_all = table(rows, today)["all"]
    results: dict = {
        "data": str(args.data.relative_to(PROJECT_DIR)), "rows": len(rows), "answers": len(by_answer),
        "fitted": {"sentences": len(y), "supported": int(y.sum()), "unsupported": int((~y).sum()),
                   "answers": len(set(groups))},
        "replay_matches_logged": f"{sum(today[i] == r['decision'] for i, r in enumerate(rows))}/{len(rows)}",
        "rule": f"min dropped/supported + {COST} x kept/unsupported over P {GRID[0]}-{GRID[-1]} (step 0.01)",
        "today": table(rows, today), "features": list(MODEL_FEATURES),
        "single_feature_auc": {f: round(roc_auc_score(y, x[:, FEATURES.index(f)]), 3) for f in FEATURES},
        "oof": scores(MODEL_FEATURES),
        "drop_one_feature": {f: scores(tuple(g for g in MODEL_FEATURES if g != f)) for f in MODEL_FEATURES},
        "variants": evaluate(MODEL_FEATURES, nested=True)}
    final_of = {}

    def probe(names: tuple[str, ...]) -> float:
        """The highest P of PROBES under the model fitted on every row."""
        model = final_of.setdefault(names, fit(x[:, [FEATURES.index(f) for f in names]], y, names))
        return round(max(model.probability(*p) for p in PROBES), 3)
    results["probes_max_p"] = probe(MODEL_FEATURES)
    if args.compare:
        results["feature_sets"] = {}
        for name, names in FEATURE_SETS.items():
            evaluated = evaluate(names, nested=True)
            results["feature_sets"][name] = {
                "features": list(names), **scores(names), "probes_max_p": probe(names),
                **{v: {"threshold": r["threshold"], "all": r["table"]["all"], "cost": cost(r["table"]),
                       "nested_all": r["nested_table"]["all"], "nested_cost": cost(r["nested_table"])}
                   for v, r in evaluated.items()}}
    chosen = results["variants"][args.variant]
    decided = replayed(models(MODEL_FEATURES, np.ones(len(y), bool), fold, FOLDS), fold_of, chosen["threshold"],
                       args.variant)
    p_of = dict(zip(fitted, oof(MODEL_FEATURES)))
    results["errors"] = [{"answer_id": r["answer_id"], "sentence": r["sentence"], "support": r["support"],
                          "decision": decided[i], "today": r["decision"], "drop_rule": r["drop_rule"],
                          "p": round(float(p_of[i]), 3) if i in p_of else None, "why": r.get("why")}
                         for i, r in enumerate(rows) if r["support"] in ("supported", "unsupported")
                         and decided[i] in ("kept", "dropped")
                         and (decided[i] == "kept") != (r["support"] == "supported")]
    if args.embeddings:
        results["embeddings"] = embedding_feature(rows, fitted, inputs, x[:, [FEATURES.index(f) for f in
                                                                               MODEL_FEATURES]], y, fold)
    cols = [FEATURES.index(f) for f in MODEL_FEATURES]
    final = fit(x[:, cols], y, MODEL_FEATURES, chosen["threshold"], counts=results["fitted"],
                source=f"python -m evals.experiments.claim_support --variant {args.variant} "
                       f"({args.data.relative_to(PROJECT_DIR)}; threshold: {results['rule']}, variant "
                       f"{args.variant}: {'the echo guard too' if args.variant == 'b' else 'the three thresholds'})")
    results["model"] = {**final.to_json(), "variant": args.variant}
    args.out.write_text(json.dumps(final.to_json(), indent=1) + "\n", encoding="utf-8")
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print_summary(results)
    return 0


def embedding_feature(rows: list[dict], fitted: list[int], inputs: list, x: np.ndarray, y: np.ndarray,
                      fold: np.ndarray) -> dict:
    """MiniLM (the query embedder) cosine of the sentence to the best evidence sentence of the source it is checked
    against, as one more column: out-of-fold AUC, log loss and unsupported rows kept where 95% of the supported are,
    with and without it (each row's score alone, no replay)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss, roc_auc_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ragqa.config import Settings
    from ragqa.models.weights import load_embedder

    embedder = load_embedder(Settings(), queries=True)
    cosines, texts, start = [], 0, time.perf_counter()
    for i in fitted:
        sentence, text = citations._MARKER.sub(" ", inputs[i][0]).strip(), inputs[i][1]
        evidence = [e for s in rows[i]["sources"] if source_text(s, s["evidence"]) in text for e in s["evidence"]]
        vectors = np.asarray(embedder.get_text_embedding_batch([sentence, *evidence]), dtype=float)
        texts += 1 + len(evidence)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        cosines.append(float((vectors[1:] @ vectors[0]).max()) if len(vectors) > 1 else 0.0)

    def measured(columns: np.ndarray) -> dict:
        p = np.zeros(len(y))
        for k in sorted(set(fold)):
            model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=5000))
            p[fold == k] = model.fit(columns[fold != k], y[fold != k]).predict_proba(columns[fold == k])[:, 1]
        bar = np.sort(p[y])[int(0.05 * y.sum())]
        return {"auc": round(roc_auc_score(y, p), 3), "log_loss": round(log_loss(y, p), 3),
                "unsupported_kept_at_95pct_supported": int((p[~y] >= bar).sum())}
    seconds = time.perf_counter() - start
    return {"embedder": type(embedder).__name__, "ms_per_text": round(1000 * seconds / texts, 1),
            "cosine_alone_auc": round(roc_auc_score(y, cosines), 3), "without": measured(x),
            "with": measured(np.c_[x, cosines])}


def print_summary(results: dict) -> None:
    def cells(t: dict) -> str:
        return "/".join(str(t[c]) for c in CELLS)

    def line(name: str, t: dict) -> str:
        a = t["all"]
        return (f"| {name} | " + " | ".join(str(a[c]) for c in CELLS) + " | "
                + " | ".join(cells(t[g]) for g in ("en", "zh", "cited", "uncited"))
                + f" | {cost(t)} | {t['no_claim']} |")
    print(f"fitted: {results['fitted']}; replay of today's checks = logged decisions: "
          f"{results['replay_matches_logged']}; out-of-fold {results['oof']}; rule: {results['rule']}")
    print("| | kept right | kept wrong | dropped right | dropped wrong | en | zh | cited | uncited | cost | no_claim |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(line("today", results["today"]))
    for v, r in results["variants"].items():
        print(line(f"{v}, P >= {r['threshold']}", r["table"]))
        print(line(f"{v}, nested (P >= {', '.join(map(str, r['nested_thresholds']))})", r["nested_table"]))
    model = results["model"]
    print("coefficients (standardised):", {f: round(w, 3) for f, w in zip(model["features"], model["coef"])},
          "intercept", round(model["intercept"], 3), "threshold", model["threshold"], "variant", model["variant"])
    print("highest P of a sentence its source holds no word of (PROBES):", results["probes_max_p"])
    print("single-feature AUC:", results["single_feature_auc"])
    print("drop one feature:", results["drop_one_feature"])
    for v, r in results["variants"].items():
        print(f"sweep {v} (kr/kw/dr/dw):", {t: "/".join(map(str, c)) for t, c in r["sweep"].items()
                                              if round(float(t) * 100) % 5 == 0})
        capped = r["at_most_today_kept_wrong"]
        print(f"{v}, unsupported kept <= today's, fewest supported dropped: P >= {capped['threshold']}: "
              + "/".join(str(capped["all"][c]) for c in CELLS))
    for name, r in results.get("feature_sets", {}).items():
        print(f"feature set {name}: auc {r['auc']} log loss {r['log_loss']} probes max P {r['probes_max_p']}; "
              + "; ".join(f"{v} P >= {r[v]['threshold']}: {cells(r[v]['all'])} cost {r[v]['cost']}, nested "
                          f"{cells(r[v]['nested_all'])} cost {r[v]['nested_cost']}" for v in ("a", "b")))
    if "embeddings" in results:
        print("embeddings:", results["embeddings"])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
