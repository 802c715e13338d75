"""`ragqa eval calibrate`: fit the answerability model on questions built automatically from a real
corpus, never on the hand-written sets we report on.

Construction: the bundled papers plus a seeded half of the corpus are indexed (their own collection);
questions are made from titles, method names and abstract spans (with word dropout, so they are not
verbatim) of indexed papers (answerable, gold = that paper) and of the held-out half (on-topic
near-misses no indexed paper was written for). Question papers are split 70/30: the model is fitted
on the first part, the operating point chosen there, and both are reported on the other part; a
second corpus (--transfer) checks the fitted model where it never saw any question.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ragqa.answer.answerability import FEATURES, KNOWN, MEASURED, Calibration, candidates_for, judge, with_context
from ragqa.retrieval.retrieve import search
from ragqa.text.clean import method_name
from ragqa.text.terms import terms

TEMPLATES = {
    "topic-list": ["Which papers study {t}?", "Is there work on {t}?", "Are there papers about {t}?",
                   "What does the collection have on {t}?"],
    "topic-explain": ["{t}", "What is known about {t}?", "How do researchers approach {t}?"],
    "method": ["What is {m} and what does it do?", "How does {m} work?", "What did the {m} paper find?"],
    "span": ["Is there a paper that {s}?", "How can one {s}?", "{s}"],
}
_WORD = re.compile(r"\S+")
# forms not made from a paper's own wording: people's questions (--beir) and the LLM's paraphrases (--generated);
# the operating points are set on these
HUMAN_FORMS = ("claim", "generated")


@dataclass
class Question:
    id: str
    text: str
    form: str
    gold: tuple[str, ...] | None  # the indexed papers that answer it; None: built from held-out papers only
    paper: str  # the paper it was built from (the split unit)


def _dropout(words: list[str], rng: random.Random, keep: float, minimum: int = 3) -> str:
    kept = [w for w in words if rng.random() < keep or len(words) <= minimum]
    return " ".join(kept if len(kept) >= minimum else words[:minimum])


def make_questions(paper, gold: str | None, rng: random.Random) -> list[Question]:
    """Two or three questions of different forms from one paper's title and abstract."""
    out = []
    title = (paper.title or "").strip()
    if title:
        topic = title.split(":", 1)[1].strip() if method_name(title) else title
        words = _WORD.findall(topic.lower())
        form = rng.choice(["topic-list", "topic-explain"])
        out.append((form, rng.choice(TEMPLATES[form]).format(t=_dropout(words, rng, 0.75).rstrip("?.!"))))
        name = method_name(title)
        if name:
            out.append(("method", rng.choice(TEMPLATES["method"]).format(m=name)))
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", paper.text) if 8 <= len(s.split()) <= 60][1:] or \
                [s for s in re.split(r"(?<=[.!?])\s+", paper.text) if len(s.split()) >= 8]
    if sentences:
        words = _WORD.findall(rng.choice(sentences).rstrip(".!?").lower())
        start = rng.randrange(0, max(1, len(words) - 12))
        out.append(("span", rng.choice(TEMPLATES["span"]).format(s=_dropout(words[start:start + 12], rng, 0.7, 5))))
    return [Question(f"{paper.paper_id}-{i}", text, form, gold, paper.paper_id) for i, (form, text) in enumerate(out)]


def collection(corpus: str, fraction: float, seed: int) -> str:
    """The collection prefix a corpus's indexed `fraction` goes into (corpus: a listing's stem, or beir-<folder>)."""
    return f"calib-{corpus}-{int(fraction * 100)}-{seed}"


def _half(paper_id: str, fraction: float, seed: int) -> bool:
    return int(hashlib.sha1(f"{seed}:{paper_id}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < fraction


def index_half(pipeline_factory, corpus: Path, fraction: float, seed: int, progress: bool = True):
    """Index bundled + a seeded `fraction` of `corpus` in its own collection (idempotent: a second call adds
    nothing); -> (pipeline, indexed papers, held-out papers)."""
    from ragqa.ingest.corpus import load_paths
    from ragqa.ingest.listing import load_manifest
    from ragqa.ingest.merge import merge_all
    from ragqa.ingest.paper import LoadReport

    base = pipeline_factory(None)
    bundled, _ = load_paths([base.settings.data_dir], load_manifest(base.settings.data_dir))
    report, errors = load_paths([corpus])
    if errors:
        raise SystemExit(f"cannot read {corpus}: {errors[0]}")
    bundled_ids = {p.paper_id for p in bundled.papers}
    indexed = [p for p in report.papers if _half(p.paper_id, fraction, seed) or p.paper_id in bundled_ids]
    held = [p for p in report.papers if p not in indexed]
    pipeline = pipeline_factory(collection(corpus.stem, fraction, seed))
    pipeline.ingest(LoadReport(papers=merge_all(list(bundled.papers) + indexed)), progress=progress)
    return pipeline, indexed, held


def generated_id(question_id: str, paper_id: str) -> str:
    """A written question's id in the calibration rows."""
    return f"gen-{question_id}-{paper_id}"


def generated_questions(generated: tuple, indexed, held) -> list[Question]:
    """The written questions (read_generated; gold = the paper the writer read) about this corpus's papers, as form
    "generated": answerable when their paper was indexed, near-misses when it was held out."""
    indexed_ids, held_ids = {p.paper_id for p in indexed}, {p.paper_id for p in held}
    out = []
    for g in generated:
        pid = g.gold[0] if g.gold else None
        if pid in indexed_ids or pid in held_ids:
            out.append(Question(generated_id(g.id, pid), g.question, "generated",
                                (pid,) if pid in indexed_ids else None, pid))
    return out


def build(pipeline_factory, corpus: Path, fraction: float, seed: int, limit: int | None, progress: bool = True,
          generated: tuple = ()):
    """Index bundled + a `fraction` of `corpus`; -> (pipeline, questions). `generated`: written questions
    (generated_questions) join, outside `limit`."""
    pipeline, indexed, held = index_half(pipeline_factory, corpus, fraction, seed, progress)
    rng = random.Random(seed)
    questions = [q for p in indexed for q in make_questions(p, (p.paper_id,), rng)]
    questions += [q for p in held for q in make_questions(p, None, rng)]
    rng.shuffle(questions)
    questions = questions[:limit] if limit else questions
    return pipeline, questions + generated_questions(generated, indexed, held)


def add_generated(pipeline_factory, corpus: Path, fraction: float, seed: int, rows: list[dict],
                  generated: tuple) -> list[dict]:
    """`rows` (saved by an earlier run) plus the features of the written questions they do not hold yet."""
    if not generated:
        return rows
    pipeline, indexed, held = index_half(pipeline_factory, corpus, fraction, seed)
    have = {r["id"] for r in rows}
    return rows + featurise(pipeline, [q for q in generated_questions(generated, indexed, held) if q.id not in have])


def read_generated(paths) -> tuple:
    """The questions of `ragqa eval generate` files, read and checked as any dataset (evals/dataset.py)."""
    from .dataset import load_dataset

    return tuple(q for path in paths or [] for q in load_dataset(path))


def build_beir(pipeline_factory, folder: Path, fraction: float, seed: int, limit: int | None, progress: bool = True):
    """A BEIR set (human-written queries, e.g. SciFact claims): a seeded `fraction` of its documents
    is indexed; a query is answerable when one of its relevant documents is indexed, else a near-miss."""
    from ragqa.ingest.paper import LoadReport

    from .dataset import load_beir
    from .retrieval import beir_papers

    beir = load_beir(folder, "train" if (Path(folder) / "qrels" / "train.tsv").exists() else "test")
    papers, to_doc = beir_papers(beir, folder)
    indexed = [p for p in papers if _half(p.paper_id, fraction, seed)]
    by_doc = {to_doc[p.paper_id]: p.paper_id for p in indexed}
    pipeline = pipeline_factory(collection(f"beir-{Path(folder).name}", fraction, seed))
    pipeline.ingest(LoadReport(papers=indexed), progress=progress)
    questions = []
    for qid, text in beir.queries.items():
        gold = tuple(by_doc[d] for d in beir.qrels[qid] if d in by_doc)
        questions.append(Question(f"beir-{qid}", text, "claim", gold or None, f"beir-{qid}"))
    return pipeline, questions[:limit] if limit else questions


def featurise(pipeline, questions: list[Question], progress: bool = True) -> list[dict]:
    """Per question: its candidates' feature vectors and labels, or the name gate's verdict."""
    from tqdm import tqdm

    searcher, settings = pipeline.searcher, pipeline.settings
    rows = []
    for q in tqdm(questions, desc="features", file=sys.stderr, disable=not progress):
        result = search(searcher, q.text, k=settings.judge_k)
        row = {"id": q.id, "form": q.form, "gold": q.gold, "paper": q.paper, "question": q.text}
        if result.missing_name:
            row.update(gate="unknown name", x=[], y=[])
        else:
            qvec = pipeline.embedder.get_query_embedding(result.query)
            candidates = candidates_for(searcher, result, qvec)
            row.update(gate="", ids=[c.paper_id for c in candidates], x=[c.vector(MEASURED) for c in candidates],
                       y=[int(c.paper_id in (q.gold or ())) for c in candidates])
        rows.append(row)
    return rows


def _model_x(rows: list[dict]) -> None:
    """Keep, in place, only the columns of FEATURES from rows that hold every MEASURED feature (CONTEXT
    columns are derived from a question's candidates, as at answer time)."""
    for r in rows:
        if r.get("features", MEASURED) != FEATURES:
            # saved before qlen was measured: it is the question's, as at answer time
            if r["x"] and len(r["x"][0]) < len(MEASURED):
                qlen = float(len(set(terms(r["question"]))))
                r["x"] = [v + [qlen] for v in r["x"]]
            cols = {f: [v[MEASURED.index(f)] for v in r["x"]] for f in MEASURED}
            cols.update(with_context(cols))
            r["x"] = [[cols[f][i] for f in FEATURES] for i in range(len(r["x"]))]
            r["features"] = FEATURES


# the direction each feature may move P: closer, better covered, named -> up; further from the best -> down
# leading the other candidates by more -> up
MONOTONE = {"cosine": 1, "closeness": 1, "coverage": 1, "gap": -1, "named": 1, "qlen": 0,
            "lead": 1, "lead_closeness": 1, "lead_coverage": 1, "spread": 1}


def _model(kind: str, seed: int):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))
    # sklearn-like defaults, not searched: 200 rounds at 0.05,
    # 15 leaves; monotone constraints from the features' meaning
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, l2_regularization=1.0,
                                          monotonic_cst=[MONOTONE[f] for f in FEATURES], random_state=seed)


def _as_calibration(model, kind: str, embed_model: str, x: np.ndarray) -> Calibration:
    """The fitted sklearn model as a calibration file's fields (trees as node tables), checked against sklearn."""
    base = dict(embed_model=embed_model, features=FEATURES, answer_threshold=0.5, list_threshold=0.5)
    if kind == "logistic":
        scaler, logistic = model[0], model[-1]
        calibration = Calibration(**base, mean=tuple(scaler.mean_), scale=tuple(scaler.scale_),
                                  coef=tuple(logistic.coef_[0]), intercept=float(logistic.intercept_[0]))
    else:
        trees = tuple({"feature": n["feature_idx"].tolist(), "threshold": n["num_threshold"].tolist(),
                       "left": n["left"].tolist(), "right": n["right"].tolist(),
                       "leaf": n["is_leaf"].astype(bool).tolist(),
                       "value": n["value"].tolist()} for n in (p[0].nodes for p in model._predictors))
        calibration = Calibration(**base, mean=(), scale=(), coef=(), intercept=0.0, trees=trees,
                                  baseline=float(np.ravel(model._baseline_prediction)[0]))
    ours = calibration.probability(_candidates({"ids": [str(i) for i in range(len(x))], "x": x.tolist()}))
    if not np.allclose(ours, model.predict_proba(x)[:, 1], atol=1e-6):
        raise RuntimeError("the exported model's probabilities differ from scikit-learn's")
    return calibration


def fit(rows: list[dict], embed_model: str, target_false_abstention: float, seed: int,
        list_recall: float = 0.9, operating_forms: tuple[str, ...] = HUMAN_FORMS,
        kind: str = "trees") -> tuple[Calibration, dict]:
    from sklearn.model_selection import GroupKFold, cross_val_predict

    x = np.array([v for r in rows for v in r["x"]])
    y = np.array([v for r in rows for v in r["y"]])
    groups = np.array([r["paper"] for r in rows for _ in r["x"]])
    cv = cross_val_predict(_model(kind, seed), x, y, groups=groups, cv=GroupKFold(n_splits=5),
                           method="predict_proba")[:, 1]
    calibration = _as_calibration(_model(kind, seed).fit(x, y), kind, embed_model, x)
    # operating points from cross-validated probabilities, never from the fitted model's own rows
    offset, best_cv, row_of = 0, [], []
    for i, r in enumerate(rows):
        n = len(r["x"])
        best_cv.append(float(cv[offset:offset + n].max()) if n else 0.0)
        row_of += [i] * n
        offset += n
    # the operating points are set on human-written questions where there are any (--beir): templated questions
    # share their paper's wording, so their P runs high and a point set on them over-abstains on people's questions
    human = np.array([r["form"] in operating_forms for r in rows]) if operating_forms else np.ones(len(rows), bool)
    if not human.any():
        human = np.ones(len(rows), bool)
    # answerable = some paper that answers it is among the candidates (a retrieval miss is no answer to abstain from)
    answerable = np.array([r["gold"] is not None and any(r["y"]) for r in rows]) & human
    gated = np.array([bool(r["gate"]) for r in rows])
    scores = np.array(best_cv)
    # a question that names an indexed paper is answered whatever
    # its P (answerability.judge): it spends none of the budget
    ok = answerable & ~gated & ~np.array([_names_a_paper(r) for r in rows], dtype=bool)
    # the highest threshold whose false abstention (gate included) stays within the target
    allowed = int(np.floor(target_false_abstention * answerable.sum())) - int((answerable & gated).sum())
    ordered = np.sort(scores[ok])
    answer_threshold = float(ordered[max(0, allowed)]) if len(ordered) else 0.5
    # list membership: the paper-level threshold at which cross-validated recall of answering papers reaches
    # list_recall (the list target); a question answered with no paper above it is answered from its best paper
    positives = np.sort(cv[(y == 1) & human[np.array(row_of, dtype=int)]])
    list_threshold = (float(positives[int(np.floor((1 - list_recall) * len(positives)))]) if len(positives)
                      else answer_threshold)
    calibration = replace(calibration, answer_threshold=round(answer_threshold, 4),
                          list_threshold=round(list_threshold, 4))
    return calibration, {"cv_question_scores": best_cv}


def evaluate(calibration: Calibration, rows: list[dict], scores: list[float] | None = None) -> dict:
    """Question-level ROC AUC and rates at the operating point, overall and per form."""
    from sklearn.metrics import roc_auc_score

    best, decided = [], []
    for i, r in enumerate(rows):
        if r["gate"]:
            best.append(0.0)
            decided.append(False)
            continue
        s = scores[i] if scores is not None else judge(calibration, _candidates(r)).best
        named = _names_a_paper(r)  # answered whatever its P, as the product answers it (answerability.judge)
        best.append(1.0 if named else s)
        decided.append(named or s >= calibration.answer_threshold)
    answerable = np.array([r["gold"] is not None for r in rows], dtype=bool)  # a set with no rows too
    missed = np.array([r["gold"] is not None and not r["gate"] and not any(r["y"]) for r in rows], dtype=bool)
    out = {"questions": len(rows), "answerable": int(answerable.sum()), "near_miss": int((~answerable).sum()),
           "gold_not_retrieved": int(missed.sum())}
    if answerable.any() and (~answerable).any():
        out["roc_auc"] = round(float(roc_auc_score(answerable, best)), 4)

    def rates(mask) -> dict:
        a, u = mask & answerable, mask & ~answerable
        form = {"false_abstention": f"{int((a & ~np.array(decided, dtype=bool)).sum())}/{int(a.sum())}",
                "near_miss_abstention": f"{int((u & ~np.array(decided, dtype=bool)).sum())}/{int(u.sum())}"}
        # the form's own ROC AUC: how well P separates its answerable from its near-miss questions
        if a.any() and u.any():
            form["roc_auc"] = round(float(roc_auc_score(answerable[mask], np.array(best)[mask])), 4)
        return form
    out.update(rates(np.ones(len(rows), bool)))
    out["by_form"] = {f: rates(np.array([r["form"] == f for r in rows], dtype=bool))
                      for f in sorted({r["form"] for r in rows})}
    out["gold_listed"] = _list_recall(calibration, rows)
    out["_best"] = best
    return out


def check_rows(pipeline, path: Path) -> list[dict]:
    """A hand-written set's candidate rows over the bundled index (standalone English questions only: Chinese
    ones need the LLM to translate, follow-ups to rewrite), as measured (all MEASURED features)."""
    from .dataset import load_dataset

    questions = [q for q in load_dataset(path) if not q.history and q.lang == "en"]
    return featurise(pipeline, [Question(q.id, q.question, q.kind or q.type, tuple(q.gold) or None, q.id)
                                for q in questions], progress=False)


def check_dataset(calibration: Calibration, rows: list[dict]) -> dict:
    """The fitted model's decisions on a hand-written set's rows (check_rows)."""
    rows = json.loads(json.dumps(rows))
    _model_x(rows)
    out = evaluate(calibration, rows)
    out.pop("_best")
    return out


def _names_a_paper(row: dict) -> bool:
    """Some candidate is a paper the question names by title or method name (rows holding FEATURES)."""
    return any(v[FEATURES.index("named")] >= 1.0 for v in row["x"])


def _candidates(row: dict):
    from ragqa.answer.answerability import Candidate

    return [Candidate(pid, **{**{f: 0.0 for f in KNOWN}, **dict(zip(FEATURES, vec))})
            for pid, vec in zip(row["ids"], row["x"])]


def _list_recall(calibration: Calibration, rows: list[dict]) -> str:
    hit = total = 0
    for r in rows:
        if r["gold"] is None or r["gate"]:
            continue
        total += 1
        j = judge(calibration, _candidates(r))
        hit += j.answerable and bool(set(r["gold"]) & set(j.listed))
    return f"{hit}/{total}"


def plot_roc(series: dict[str, tuple[list[bool], list[float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import roc_curve

    fig, ax = plt.subplots(figsize=(5, 5))
    for name, (labels, scores) in series.items():
        fpr, tpr, _ = roc_curve(labels, scores)
        ax.plot(fpr, tpr, label=name)
    ax.plot([0, 1], [0, 1], ls=":", c="grey")
    ax.set_xlabel("near-miss questions answered (false positive rate)")
    ax.set_ylabel("answerable questions answered (true positive rate)")
    ax.set_title("Answerability, question level")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def calibrate(args) -> Path:
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline

    from .report import git_revision, new_report_dir

    base = Settings(**({"embed_model": args.embed} if args.embed else {}))
    shared = Pipeline(base)  # loads each embedder once for every collection: questions' as answers use it, and ingest's
    embedder, ingest_embedder = shared.embedder, shared.ingest_embedder

    def factory(prefix):
        return Pipeline(base if prefix is None else base.model_copy(update={"collection_prefix": prefix}),
                        embedder=embedder, ingest_embedder=ingest_embedder)
    cached = _cached_rows(args.rows) if args.rows else {}
    generated = read_generated(args.generated)
    if cached:  # refit on the features of an earlier run (same corpora and settings), plus written questions it lacks
        rows = add_generated(factory, args.corpus, args.fraction, args.seed, cached["main"], generated)
    else:
        pipeline, questions = build(factory, args.corpus, args.fraction, args.seed, args.limit, generated=generated)
        rows = featurise(pipeline, questions)
        for folder in args.beir or []:
            bp, bq = build_beir(factory, folder, args.fraction, args.seed, args.limit)
            rows += featurise(bp, bq)
    raw = [json.loads(json.dumps(r)) for r in rows]  # saved as measured, all features
    _model_x(rows)
    calib_rows = [r for r in rows if not _half(r["paper"], 0.3, args.seed + 1)]
    test_rows = [r for r in rows if _half(r["paper"], 0.3, args.seed + 1)]
    embed_name = factory(None).embed_name
    evaluated = getattr(args, "evaluate", None)  # a calibration file measured, not fitted
    if evaluated:  # its calibration part is the one it was fitted on (in sample)
        calibration, extra = (Calibration.from_json(json.loads(evaluated.read_text(encoding="utf-8"))),
                              {"cv_question_scores": None})
    else:
        calibration, extra = fit(calib_rows, embed_name, args.target, args.seed, args.list_recall,
                                 {"all": (), "written": ("generated",)}.get(args.operating_on, HUMAN_FORMS), args.model)
        calibration = replace(calibration, source=(
            f"ragqa eval calibrate --corpus {args.corpus.name}{''.join(' --beir ' + b.name for b in args.beir or [])} "
            f"--fraction {args.fraction} --seed {args.seed} --target {args.target} --list-recall {args.list_recall} "
            f"--operating-on {args.operating_on} --model {args.model} --limit "
            f"{args.limit}{''.join(' --transfer ' + t.name for t in args.transfer or [])}"
            f"{' --generated ' + ' '.join(Path(g).name for g in args.generated) if args.generated else ''} (git "
            f"{git_revision()})"))
    report = {"corpus": str(args.corpus.name), "embed_model": embed_name, "calibration": calibration.to_json(),
              "questions_by_form": dict(Counter(r["form"] for r in rows)),
              "calibration_split": evaluate(calibration, calib_rows, extra["cv_question_scores"]),
              "held_out_split": evaluate(calibration, test_rows)}
    if evaluated:
        report["evaluated"] = f"{evaluated.name}, measured on these rows, not fitted (git {git_revision()})"
    series = {
        ("calibration split (in sample)" if evaluated else "calibration split (5-fold CV)"): (
            [r["gold"] is not None for r in calib_rows], report["calibration_split"].pop("_best")),
        "held-out split": ([r["gold"] is not None for r in test_rows], report["held_out_split"].pop("_best"))}
    transfer_rows = {}
    for transfer in args.transfer or []:
        if transfer.name in cached:
            trows = add_generated(factory, transfer, args.fraction, args.seed, cached[transfer.name], generated)
        else:
            tp, tq = build(factory, transfer, args.fraction, args.seed, args.transfer_limit or args.limit,
                           generated=generated)
            trows = featurise(tp, tq)
        transfer_rows[transfer.name] = json.loads(json.dumps(trows))
        _model_x(trows)
        report[f"transfer:{transfer.name}"] = evaluate(calibration, trows)
        series[f"transfer: {transfer.stem}"] = ([r["gold"] is not None for r in trows],
                                                report[f"transfer:{transfer.name}"].pop("_best"))
    for dataset in args.check or []:  # saved with the report, so a --rows refit reports them without the index
        name = f"check-{dataset.name}"
        transfer_rows[name] = cached.get(name) or check_rows(factory(None), dataset)
        report[f"check:{dataset.name}"] = check_dataset(calibration, transfer_rows[name])
    out = args.out or evaluated or base.calibration_dir / f"{re.sub(r'[^A-Za-z0-9._-]+', '-', embed_name)}.json"
    if out != evaluated:  # a measured file is left as it is
        out.parent.mkdir(parents=True, exist_ok=True)
        dropped = out.exists() and "answered_by_size" in json.loads(out.read_text(encoding="utf-8"))
        out.write_text(json.dumps(calibration.to_json(), indent=1) + "\n", encoding="utf-8")
        if dropped:  # a point by size set for the earlier model is not this one's
            print(f"{out}: the answered point by collection size was not refit (the file had one); set it again with "
                  "python -m evals.experiments.coverage_points --small <runs> --write", file=sys.stderr)
    folder = new_report_dir(args.report_dir, f"calibration-{embed_name}")
    plot_roc(series, folder / "roc.png")
    (folder / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    (folder / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raw), encoding="utf-8")
    for name, trows in transfer_rows.items():
        (folder / f"rows-{name}").write_text("".join(json.dumps(r) + "\n" for r in trows), encoding="utf-8")
    (folder / "report.md").write_text(_markdown(report, out), encoding="utf-8")
    return folder


def _cached_rows(folder: Path) -> dict[str, list[dict]]:
    def read(path: Path) -> list[dict]:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = {"main": read(folder / "rows.jsonl")}
    for path in folder.glob("rows-*"):
        out[path.name.removeprefix("rows-")] = read(path)
    return out


def _markdown(report: dict, out: Path) -> str:
    c = report["calibration"]
    lines = [f"# Answerability calibration: {report['embed_model']} on {report['corpus']}", "",
             f"Command: `{c['source']}`", f"Calibration file: `{out.name}`", "",
             *([f"**Measured, not fitted**: {report['evaluated']}; its calibration split is the part it was fitted on "
                "(in sample).", ""]
               if report.get("evaluated") else []),
             f"Operating point: answer when the best paper's P >= {c['answer_threshold']}; list papers with P >= "
             f"{c['list_threshold']}.", "",
             f"Model: {Calibration.from_json(c).describe()}", "",
             f"Questions by form: {report['questions_by_form']}", "",
             "| split | questions | ROC AUC | false abstention | near-miss abstention | gold listed |",
             "|---|---|---|---|---|---|"]
    splits = [(k, v) for k, v in report.items() if isinstance(v, dict) and "roc_auc" in v]
    for name, s in splits:
        lines.append(f"| {name} | {s['questions']} | {s.get('roc_auc')} | {s['false_abstention']} | "
                     f"{s['near_miss_abstention']} | {s['gold_listed']} |")
    lines += ["",
              "Per form (false abstention on answerable / abstention on near-miss, ROC AUC where the form has both), "
              f"all at the one operating point P >= {c['answer_threshold']}:", ""]
    for name, s in splits:
        lines.append(f"- {name}: " + "; ".join(f"{f} {v['false_abstention']} / {v['near_miss_abstention']}"
                                               + (f" (AUC {v['roc_auc']})" if "roc_auc" in v else "")
                                               for f, v in s["by_form"].items()))
    lines += ["", "![ROC](roc.png)", ""]
    return "\n".join(lines)
