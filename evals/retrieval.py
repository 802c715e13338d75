"""Retrieval evaluation over the current index (our datasets) or a BEIR corpus in its own collection."""
from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from ragqa.query.request import Filters

from .dataset import EvalQuestion, load_beir
from .metrics import METRICS, ir_metrics, percentile


def run_dataset(pipeline, questions: list[EvalQuestion], k: int = 10, translate: bool = True,
                progress: bool = True) -> dict:
    """Search every question; -> {"overall", "by_type", "by_lang", "unanswerable", "latency", "per_query"}."""
    from tqdm import tqdm

    run, top_rel, latency, errors = {}, {}, [], {}
    for q in tqdm(questions, desc="retrieval eval", file=sys.stderr, disable=not progress):
        start = time.perf_counter()
        try:
            result = pipeline.search(q.question, Filters(**q.filters), k=k, history=list(q.history) or None,
                                     translate=translate)
        except Exception as exc:  # a failing question is a result, not a crash
            errors[q.id] = f"{type(exc).__name__}: {exc}"
            run[q.id] = {}
            continue
        latency.append(time.perf_counter() - start)
        run[q.id] = {h.paper_id: float(len(result.hits) - i) for i, h in enumerate(result.hits)}
        top_rel[q.id] = result.top_relevance
    qrels = {q.id: {g: 1 for g in q.gold} for q in questions}
    overall, per = ir_metrics(qrels, run)
    groups: dict[str, dict[str, list[str]]] = {"by_type": defaultdict(list), "by_lang": defaultdict(list)}
    for q in questions:
        if q.gold:
            groups["by_type"][q.type].append(q.id)
            groups["by_lang"][q.lang].append(q.id)
    out = {"n": len(questions), "scored": sum(1 for q in questions if q.gold), "overall": overall}
    for name, group in groups.items():
        out[name] = {key: {"n": len(ids), **{m: round(sum(per[m][i] for i in ids) / len(ids), 4) for m in METRICS}}
                     for key, ids in sorted(group.items())}
    answerable = [top_rel[q.id] for q in questions if q.gold and q.id in top_rel]
    unanswerable = [top_rel[q.id] for q in questions if not q.gold and q.id in top_rel]
    threshold = pipeline.settings.min_relevance
    out["abstention_signal"] = {
        "threshold": threshold,
        "unanswerable_below": round(sum(r < threshold for r in unanswerable) / max(1, len(unanswerable)), 3),
        "answerable_below": round(sum(r < threshold for r in answerable) / max(1, len(answerable)), 3),
        "n_unanswerable": len(unanswerable), "n_answerable": len(answerable),
    }
    out["latency"] = {"p50_s": percentile(latency, 0.5), "p95_s": percentile(latency, 0.95)}
    out["errors"] = errors
    out["per_query"] = {q.id: {"type": q.type, "gold": list(q.gold), "top": list(run[q.id])[:k],
                               "top_relevance": round(top_rel.get(q.id, 0.0), 4),
                               **{m: per[m].get(q.id) for m in ("recall@10", "mrr@10")}} for q in questions}
    return out


def beir_collection_prefix(folder: Path) -> str:
    digest = hashlib.sha1((Path(folder) / "corpus.jsonl").read_bytes()).hexdigest()[:10]
    return f"beir-{Path(folder).name}-{digest}"


def beir_papers(beir, folder: Path):
    """BEIR documents as Paper records (title + text) -> (papers, paper id -> document id)."""
    from ragqa.ingest.paper import Paper, paper_id_for
    from ragqa.text.clean import make_label

    papers, to_doc = [], {}
    for row in beir.corpus:
        text = " ".join(x for x in (row.get("title"), row.get("text")) if x).strip()
        if not text:
            continue
        paper = Paper(paper_id=paper_id_for(f"{row['_id']} {text}"), abstract=text, text=text,
                      label=make_label(text, row.get("title")), title=row.get("title") or None,
                      source_id=str(row["_id"]), sources=(Path(folder).name,))
        papers.append(paper)
        to_doc[paper.paper_id] = str(row["_id"])
    return papers, to_doc


def run_beir(settings, folder: Path, split: str, modes=("hybrid",), progress: bool = True,
             limit: int | None = None) -> dict:
    """Index a BEIR corpus once into its own collection (keyed by corpus content + model), then
    score nDCG@10 and Recall@100 per retrieval mode, as BEIR reports them."""
    from tqdm import tqdm

    from ragqa.ingest.paper import LoadReport
    from ragqa.pipeline import Pipeline

    beir = load_beir(folder, split)
    settings = settings.model_copy(update={"collection_prefix": beir_collection_prefix(folder), "top_k": 100,
                                           "candidates": 100})
    pipeline = Pipeline(settings)
    papers, to_doc = beir_papers(beir, folder)
    ingest = pipeline.ingest(LoadReport(papers=papers, entries=len(papers)), progress=progress)
    queries = list(beir.queries.items())[:limit] if limit else list(beir.queries.items())
    out = {"dataset": Path(folder).name, "split": split, "queries": len(queries), "corpus": len(papers),
           "embedded_now": ingest.embedded_chunks, "collection": pipeline.index().name, "modes": {}}
    for mode in modes:
        pipeline.settings.retrieval_mode = mode
        run, latency = {}, []
        for qid, text in tqdm(queries, desc=f"BEIR {mode}", file=sys.stderr, disable=not progress):
            start = time.perf_counter()
            result = pipeline.search(text, k=100, translate=False)
            latency.append(time.perf_counter() - start)
            run[qid] = {to_doc[h.paper_id]: float(100 - i) for i, h in enumerate(result.hits)}
        means, _ = ir_metrics({q: beir.qrels[q] for q, _ in queries}, run,
                              ["ndcg@10", "recall@100", "recall@10", "mrr@10"])
        out["modes"][mode] = {**means, "p50_s": percentile(latency, 0.5)}
    return out


def dump(obj, path: Path) -> None:
    path.write_text(json.dumps(obj, indent=1, ensure_ascii=False), encoding="utf-8")
