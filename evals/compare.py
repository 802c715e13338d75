"""`ragqa eval compare`: the same questions over several retrieval configurations, one report."""
from __future__ import annotations

import sys
from pathlib import Path

from .report import git_revision, new_report_dir, write_compare_report

ROOT = Path(__file__).resolve().parent.parent

# name -> Settings overrides; every config indexes the same corpus into its own collection
CONFIGS = {
    "dense": {"retrieval_mode": "dense"},
    "bm25": {"retrieval_mode": "bm25"},
    "hybrid": {"retrieval_mode": "hybrid"},
    "hybrid-dense2x": {"retrieval_mode": "hybrid", "dense_weight": 2.0},
    "hybrid-chunk120": {"retrieval_mode": "hybrid", "chunk_size": 120, "chunk_overlap": 24},
    "hybrid-chunk400": {"retrieval_mode": "hybrid", "chunk_size": 400, "chunk_overlap": 40},
    "dense-chunk400": {"retrieval_mode": "dense", "chunk_size": 400, "chunk_overlap": 40},
    "hash-hybrid": {"retrieval_mode": "hybrid", "embed_model": "hash"},
}
DEFAULT_COMPARE = ["dense", "bm25", "hybrid", "hybrid-dense2x", "hybrid-chunk120", "hybrid-chunk400", "hash-hybrid"]


def compare(args):
    from ragqa.config import Settings
    from ragqa.errors import QueryError
    from ragqa.models.weights import embed_name
    from ragqa.pipeline import Pipeline

    names = args.configs or DEFAULT_COMPARE
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        raise QueryError(f"Unknown config(s) {unknown}. Choose from: {', '.join(CONFIGS)}.")
    if bool(args.dataset) == bool(args.beir):
        raise QueryError("Give exactly one of --dataset FILE.jsonl or --beir DIR.")
    base = Settings(**({"vectorstore_dir": args.store} if args.store else {}))
    stamp = {"git": git_revision(),
             "llm_for_translation": base.fast_llm_model if base.rewrite_with_fast_model else base.llm_model,
             "rrf_k": base.rrf_k,
             "candidates": base.candidates, "default_chunking": f"{base.chunk_size}/{base.chunk_overlap} cl100k"}
    results = {}
    if args.beir:
        from .retrieval import run_beir

        by_index: dict[tuple, list[str]] = {}
        for name in names:  # configs sharing an index run in one pass
            cfg = CONFIGS[name]
            key = tuple(sorted((k, v) for k, v in cfg.items() if k not in ("retrieval_mode", "dense_weight")))
            by_index.setdefault(key, []).append(name)
        for key, group in by_index.items():
            for name in group:
                settings = base.model_copy(update=CONFIGS[name])
                out = run_beir(settings, args.beir, args.split, modes=(settings.retrieval_mode,), limit=args.limit)
                results[name] = {**out["modes"][settings.retrieval_mode], "embed_model": embed_name(settings)}
                stamp[f"{name}.collection"] = out["collection"]
                print(f"{name}: {results[name]}", file=sys.stderr)
        folder = new_report_dir(args.out, f"beir-{args.beir.name}-{args.split}")
        title = f"BEIR {args.beir.name} ({args.split} split): retrieval configurations"
        return write_compare_report(folder, title, results, stamp, kind="beir")

    from .dataset import load_dataset
    from .retrieval import run_dataset

    questions = load_dataset(args.dataset)[: args.limit]
    corpus = args.corpus or [ROOT / "data"]
    translations: dict[str, str] = {}
    for name in names:
        settings = base.model_copy(update=CONFIGS[name])
        pipeline = Pipeline(settings)
        pipeline.translations = translations  # translate each Chinese question once for all configs
        report, _ = pipeline.load(corpus)
        pipeline.ingest(report, progress=False)
        results[name] = run_dataset(pipeline, questions)
        results[name]["embed_model"] = embed_name(settings)
        print(f"{name}: {results[name]['overall']}", file=sys.stderr)
    stamp["dataset"] = str(args.dataset)
    stamp["questions"] = len(questions)
    folder = new_report_dir(args.out, args.dataset.stem)
    return write_compare_report(folder, f"Retrieval on {args.dataset.name}", results, stamp)
