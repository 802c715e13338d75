"""`ragqa eval retrieval|answers|compare|generate`: argument parsing and printing only."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .compare import CONFIGS, DEFAULT_COMPARE  # noqa: F401  (also imported from here)

ROOT = Path(__file__).resolve().parent.parent
# translations and follow-up rewrites of dataset questions, per model and prompt (ragqa/models/completion_cache.py):
# a rerun measures retrieval, not the LLM; git-ignored
REWRITE_CACHE = ROOT / "evals" / "datasets" / ".cache" / "rewrites.jsonl"


def _cache_report(pipeline) -> None:
    cache = pipeline._cached_rewrites
    if cache is not None and cache.hits + cache.misses:
        print(f"(translations and rewrites: {cache.hits} from {cache.path}, {cache.misses} by the model)",
              file=sys.stderr)


def register_commands(sub) -> None:
    """`ragqa eval`, registered through the `ragqa.commands` entry-point group (pyproject.toml)."""
    add_eval_command(sub)


def add_eval_command(sub) -> None:
    p = sub.add_parser("eval", help="retrieval and answer quality evaluations")
    ev = p.add_subparsers(dest="eval_command", required=True)

    r = ev.add_parser("retrieval", help="Recall@k, MRR@10, nDCG@10 over the current index or a BEIR set")
    r.add_argument("--dataset", type=Path, nargs="+", help="one or more of our JSONL sets (repeats asked once)")
    r.add_argument("--beir", type=Path, help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")
    r.add_argument("--split", default="test")
    r.add_argument("--mode", choices=["hybrid", "dense", "bm25"], default=None)
    r.add_argument("--k", type=int, default=10)
    r.add_argument("--limit", type=int, default=None, help="first N queries only")
    r.add_argument("--lang", default=None, help="only the questions in this language (en, zh)")
    r.add_argument("--no-translate", action="store_true", help="search Chinese questions untranslated (no LLM)")
    r.add_argument("--json", action="store_true", help="one JSON object on stdout")

    a = ev.add_parser("answers", help="citation validity/precision/recall, abstention, latency")
    a.add_argument("--dataset", type=Path, nargs="+", required=True,
                   help="one or more JSONL sets (ids prefixed by set when several)")
    a.add_argument("--lang", default=None,
                   help="only the questions in this language (en, zh); repeats across sets asked once")
    a.add_argument("--fast", action="store_true")
    a.add_argument("--limit", type=int, default=None)
    a.add_argument("--json", action="store_true")
    a.add_argument("--out", type=Path, default=None, help="also write the full result (with answers) here")

    c = ev.add_parser("compare", help="several retrieval configs -> one report (md, json, png)")
    c.add_argument("--dataset", type=Path)
    c.add_argument("--beir", type=Path)
    c.add_argument("--split", default="test")
    c.add_argument("--corpus", type=Path, nargs="*", default=None, help="what to index for --dataset (default: data/)")
    c.add_argument("--configs", nargs="*", default=None, help=f"from: {', '.join(CONFIGS)}")
    c.add_argument("--store", type=Path, default=None, help="Chroma folder for the compare (default vectorstore/)")
    c.add_argument("--out", type=Path, default=None, help="reports folder (default evals/reports)")
    c.add_argument("--limit", type=int, default=None)

    g = ev.add_parser("generate", help="a starter dataset written by the local LLM from your corpus")
    g.add_argument("--corpus", type=Path, nargs="+", required=True)
    g.add_argument("--n", type=int, default=50)
    g.add_argument("--out", type=Path, default=Path("evals/datasets/generated.jsonl"))
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--fast", action="store_true", help="write questions with the small model")
    m = ev.add_parser("metadata",
                      help="metadata/aggregate questions: exact counts, listed-set F1, nDCG@10, "
                           "ambiguous/unknown authors")
    m.add_argument("--dataset", type=Path, default=ROOT / "evals" / "datasets" / "metadata.jsonl")
    m.add_argument("--out", type=Path, default=None, help="also write the per-question rows here")
    f = ev.add_parser("facts", help="fact recall of the answers in an earlier answer report")
    f.add_argument("--dataset", type=Path, required=True)
    f.add_argument("--report", type=Path, required=True)
    f.add_argument("--own-part", action="store_true",
                   help="key facts from each gold paper's own part first (its 'we ...' sentences), background last")

    k = ev.add_parser("calibrate",
                      help="fit the answerability model on questions built from a corpus (writes the calibration file)")
    k.add_argument("--corpus", type=Path, required=True,
                   help="JSONL/CSV corpus: part is indexed, the rest makes near-miss questions")
    k.add_argument("--transfer", type=Path, nargs="*", default=None, help="other corpora to check the fitted model on")
    k.add_argument("--beir", type=Path, nargs="*", default=None,
                   help="BEIR folders whose human-written queries join the calibration set")
    k.add_argument("--generated", type=Path, nargs="*", default=None,
                   help="`ragqa eval generate` files over --corpus / --transfer papers: paraphrased questions that "
                        "join the set")
    k.add_argument("--rows", type=Path, default=None,
                   help="an earlier calibration report folder: refit on its saved features")
    k.add_argument("--evaluate", type=Path, default=None, metavar="CALIBRATION",
                   help="measure this calibration file on the rows instead of fitting one (e.g. the shipped one after "
                        "a code change)")
    k.add_argument("--check", type=Path, nargs="*", default=None,
                   help="hand-written datasets to report the fitted model's decisions on (bundled index)")
    k.add_argument("--transfer-limit", type=int, default=None, help="at most N questions per transfer corpus")
    k.add_argument("--fraction", type=float, default=0.5, help="share of the corpus indexed")
    k.add_argument("--target", type=float, default=0.04, help="false abstention allowed at the operating point")
    k.add_argument("--list-recall", type=float, default=0.9,
                   help="share of answering papers a list must include (sets the list threshold)")
    k.add_argument("--model", choices=["trees", "logistic"], default="trees",
                   help="gradient-boosted trees, monotone in each feature (default), or a logistic model")
    k.add_argument("--operating-on", choices=["human", "written", "all"], default="human",
                   help="set the operating points on the human-written (--beir) and generated (--generated) questions, "
                        "on the generated ones alone (written), or on all")
    k.add_argument("--seed", type=int, default=0)
    k.add_argument("--limit", type=int, default=None, help="at most N questions per corpus")
    k.add_argument("--embed", default=None, help="embedding model (default: Settings')")
    k.add_argument("--out", type=Path, default=None, help="calibration file (default: ragqa/calibration/<embed>.json)")
    k.add_argument("--report-dir", type=Path, default=None, help="reports folder (default evals/reports)")
    p.set_defaults(func=run)


def _answer_questions(paths: list[Path], lang: str | None) -> list:
    """The questions of one or more sets (ids prefixed by the set's name when several; a question with the same history
    asked once), optionally those in one language."""
    from dataclasses import replace

    from .dataset import load_dataset

    out, seen = [], set()
    for path in paths:
        for q in load_dataset(path):
            if (lang and q.lang != lang) or (q.question, q.history) in seen:
                continue
            seen.add((q.question, q.history))
            out.append(replace(q, id=f"{path.stem}:{q.id}") if len(paths) > 1 else q)
    return out


def _settings(**overrides):
    from ragqa.config import Settings

    return Settings(**overrides)


def _print_dataset_result(result: dict) -> None:
    o = result["overall"]
    print(f"{result['scored']} scored questions (+{result['n'] - result['scored']} unanswerable)")
    print("  " + "  ".join(f"{m}={v:.3f}" for m, v in o.items()))
    for group in ("by_type", "by_lang"):
        for key, v in result[group].items():
            print(f"  {group[3:]}={key:<13} n={v['n']:<3} R@3={v['recall@3']:.3f} R@10={v['recall@10']:.3f} "
                  f"MRR@10={v['mrr@10']:.3f} nDCG@10={v['ndcg@10']:.3f}")
    a = result["abstention_signal"]
    print(f"  threshold {a['threshold']}: {a['unanswerable_below']:.0%} of unanswerable and "
          f"{a['answerable_below']:.0%} of answerable questions score below it")
    if result["errors"]:
        print(f"  {len(result['errors'])} questions failed: "
              + "; ".join(f"{k}: {v}" for k, v in list(result["errors"].items())[:3]))


def run(args) -> int:
    from ragqa.errors import QueryError
    from ragqa.pipeline import Pipeline

    from .dataset import load_dataset

    if args.eval_command == "retrieval":
        if bool(args.dataset) == bool(args.beir):
            raise QueryError("Give exactly one of --dataset FILE.jsonl or --beir DIR.")
        overrides = {"retrieval_mode": args.mode} if args.mode else {}
        if args.beir:
            from .retrieval import run_beir

            result = run_beir(_settings(**overrides), args.beir, args.split, modes=(args.mode or "hybrid",),
                              limit=args.limit)
            if args.json:
                print(json.dumps(result))
            else:
                for mode, m in result["modes"].items():
                    print(f"{result['dataset']} {args.split} ({result['queries']} queries, {result['corpus']} docs) "
                          f"{mode}: " + "  ".join(f"{k}={v}" for k, v in m.items()))
            return 0
        from .retrieval import run_dataset

        questions = _answer_questions(args.dataset, args.lang)[: args.limit]
        pipeline = Pipeline(_settings(**overrides))
        pipeline.rewrite_cache = REWRITE_CACHE
        result = run_dataset(pipeline, questions, k=args.k, translate=not args.no_translate)
        _cache_report(pipeline)
        if args.json:
            print(json.dumps({k: v for k, v in result.items() if k != "per_query"}, ensure_ascii=False))
        else:
            _print_dataset_result(result)
        return 0
    if args.eval_command == "answers":
        from .answers import run_answers

        questions = _answer_questions(args.dataset, args.lang)[: args.limit]
        pipeline = Pipeline(_settings(**({"llm_model": _settings().fast_llm_model} if args.fast else {})))
        pipeline.rewrite_cache = REWRITE_CACHE
        result = run_answers(pipeline, questions)
        _cache_report(pipeline)
        if args.out:
            args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
        summary = {k: v for k, v in result.items() if k != "rows"}
        print(json.dumps(summary, ensure_ascii=False) if args.json
              else json.dumps(summary, indent=1, ensure_ascii=False))
        return 0
    if args.eval_command == "compare":
        from .compare import compare

        path = compare(args)
        print(f"report: {path}")
        return 0
    if args.eval_command == "metadata":
        from .metadata import load_metadata_questions, run_metadata

        result = run_metadata(Pipeline(_settings()), load_metadata_questions(args.dataset))
        if args.out:
            args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
        print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))
        return 0
    if args.eval_command == "facts":
        from .answers import rescore_facts

        report = json.loads(args.report.read_text(encoding="utf-8"))
        print(json.dumps(rescore_facts(Pipeline(_settings()), load_dataset(args.dataset), report, args.own_part)))
        return 0
    if args.eval_command == "calibrate":
        from .calibrate import calibrate

        print(f"report: {calibrate(args)}")
        return 0
    if args.eval_command == "generate":
        from .generate import generate

        n = generate(args)
        print(f"wrote {n} questions to {args.out}")
        return 0
    return 2
