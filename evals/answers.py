"""Answer evaluation: runs `ask` per question; citation validity, precision/recall vs gold,
abstention on unanswerable vs false abstention on answerable, latency."""
from __future__ import annotations

import sys
from collections import Counter

from ragqa.retrieve import Filters

from .dataset import EvalQuestion
from .metrics import percentile


def run_answers(pipeline, questions: list[EvalQuestion], fast: bool = False, progress: bool = True) -> dict:
    from tqdm import tqdm

    from ragqa.ask import ask

    pipeline.warm_up(fast=fast)  # as `serve` and `chat` do: no row pays for loading or the prefix prefill
    rows = []
    for q in tqdm(questions, desc="answer eval", file=sys.stderr, disable=not progress):
        answer = ask(pipeline, q.question, filters=Filters(**q.filters), history=list(q.history) or None, fast=fast)
        retrieved = {h.paper_id for h in answer.retrieved}
        cited = [c.paper_id for c in answer.citations]
        valid = all(c in retrieved for c in cited) and not answer.invalid_markers  # every marker resolved
        gold = set(q.gold)
        rows.append({
            "id": q.id, "type": q.type, "kind": q.kind, "lang": q.lang, "answerable": bool(gold), "abstained": answer.abstained,
            "mode": answer.mode, "why": answer.why, "citations_valid": valid, "marker_errors": len(answer.invalid_markers),
            "cited": cited, "gold": list(gold),
            "precision": (len(gold & set(cited)) / len(set(cited))) if cited and gold else None,
            "recall": (len(gold & set(cited)) / len(gold)) if gold and not answer.abstained else (0.0 if gold else None),
            "timings": answer.timings, "answer": answer.text, "query": answer.query,
            "dropped": answer.dropped_sentences, "model": answer.model,
        })
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    answered = [r for r in answerable if not r["abstained"]]

    def mean(values):
        values = [v for v in values if v is not None]
        return round(sum(values) / len(values), 3) if values else None

    first = [r["timings"]["first_token_s"] for r in rows if r["timings"].get("first_token_s") is not None]
    total = [r["timings"]["total_s"] for r in rows if not r["abstained"] or r["timings"].get("first_token_s")]
    return {
        "n": len(rows), "model": rows[0]["model"] if rows else "",
        "citations_valid_share": mean([1.0 if r["citations_valid"] else 0.0 for r in rows]),
        "answers_with_llm_citations": mean([1.0 if r["mode"] == "llm" else 0.0 for r in answered]),
        "extractive_fallback_share": mean([1.0 if r["mode"] == "extractive" else 0.0 for r in answered]),
        "extractive_because": dict(Counter(r["why"] for r in answered if r["mode"] == "extractive")),
        "llm_citations_by_lang": {lang: f"{sum(r['mode'] == 'llm' for r in answered if r['lang'] == lang)}/"
                                        f"{sum(r['lang'] == lang for r in answered)}"
                                  for lang in sorted({r["lang"] for r in answered})},
        "invalid_markers_dropped": sum(r["marker_errors"] for r in rows),
        "citation_precision": mean([r["precision"] for r in answered]),
        "citation_recall": mean([r["recall"] for r in answered]),
        "abstention_on_unanswerable": mean([1.0 if r["abstained"] else 0.0 for r in unanswerable]),
        "false_abstention_on_answerable": mean([1.0 if r["abstained"] else 0.0 for r in answerable]),
        "abstained_by_kind": {kind: f"{sum(r['abstained'] for r in unanswerable if r['kind'] == kind)}/"
                                    f"{sum(r['kind'] == kind for r in unanswerable)}"
                              for kind in sorted({r["kind"] for r in unanswerable if r["kind"]})},
        "latency": {
            "retrieve_p50_s": percentile([r["timings"]["retrieve_s"] for r in rows], 0.5),
            "retrieve_p95_s": percentile([r["timings"]["retrieve_s"] for r in rows], 0.95),
            "first_token_p50_s": percentile(first, 0.5), "first_token_p95_s": percentile(first, 0.95),
            "total_p50_s": percentile(total, 0.5), "total_p95_s": percentile(total, 0.95),
        },
        "rows": rows,
    }
