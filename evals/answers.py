"""Answer evaluation: runs `ask` per question; citation validity, precision/recall vs gold,
abstention on unanswerable vs false abstention on answerable, latency."""
from __future__ import annotations

import sys
from collections import Counter

from ragqa.query.request import Filters
from ragqa.retrieval.hits import Hit

from .dataset import EvalQuestion
from .metrics import percentile


def run_answers(pipeline, questions: list[EvalQuestion], fast: bool = False, progress: bool = True) -> dict:
    from tqdm import tqdm

    from ragqa.answer.conversation import Conversation

    pipeline.warm_up(fast=fast)  # as `serve` and `chat` do: no row pays for loading or the prefix prefill
    rows = []
    for q in tqdm(questions, desc="answer eval", file=sys.stderr, disable=not progress):
        # a follow-up row carries its earlier questions only: the papers they cited are recovered by asking them
        answer = pipeline.ask(q.question, Filters(**q.filters), Conversation.of(q.history) if q.history else None,
                              fast=fast)
        retrieved = {h.paper_id for h in answer.retrieved}
        cited = [c.paper_id for c in answer.citations]
        resolved = all(c in retrieved for c in cited) and not answer.invalid_markers  # every marker resolved
        supported = citations_supported(answer)
        gold = set(q.gold)
        facts = list(getattr(q, "facts", ()) or key_facts(pipeline, q)) if gold else []
        rows.append({
            "id": q.id, "type": q.type, "kind": q.kind, "lang": q.lang, "answerable": bool(gold),
            "abstained": answer.abstained,
            "mode": answer.mode, "why": answer.why, "form": answer.form, "coverage": answer.coverage,
            "citations_valid": resolved and supported is not False,
            "citations_resolved": resolved, "citations_supported": supported,
            "marker_errors": len(answer.invalid_markers),
            "best_p": answer.judgement.get("best"), "listed": answer.judgement.get("listed", []),
            "cited": cited, "gold": list(gold),
            "precision": (len(gold & set(cited)) / len(set(cited))) if cited and gold else None,
            "recall": (len(gold & set(cited)) / len(gold)) if gold and not answer.abstained
                else (0.0 if gold else None),
            "facts": facts, "fact_recall": fact_recall(answer.text, facts) if facts and not answer.abstained
                else (0.0 if facts else None),
            # the same, counting only what the model wrote itself: quoted abstract text removed
            "fact_recall_prose": fact_recall(prose(answer.text), facts) if facts and not answer.abstained
                else (0.0 if facts else None),
            "guards": answer.guards,
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
        "citations_supported_share": mean([1.0 if r["citations_supported"] else 0.0 for r in rows
                                           if r["citations_supported"] is not None]),
        "list_gold_recall": mean([r["recall"] for r in answered
                                  if r["form"] in ("list", "count") and len(r["gold"]) > 1]),
        "list_precision": mean([r["precision"] for r in answered
                                if r["form"] in ("list", "count") and len(r["gold"]) > 1]),
        # each tier's questions, answerable / not: "related" on an answerable question is a weaker answer, not a refusal
        "coverage": {tier: f"{sum(r['coverage'] == tier for r in answerable)} answerable / "
                           f"{sum(r['coverage'] == tier for r in unanswerable)} unanswerable"
                     for tier in ("answered", "related", "not_covered")},
        "coverage_by_form": {f: dict(Counter(r["coverage"] for r in rows if r["form"] == f))
                             for f in sorted({r["form"] for r in rows})},
        # figures of the model's own sentences that none of the cited
        # sources holds (the grounded-numbers guard drops them)
        "invented_numbers": sum(r["guards"].count("grounded-numbers") for r in rows),
        "false_abstention_by_form": {
            f: f"{sum(r['abstained'] for r in answerable if r['form'] == f)}/{sum(r['form'] == f for r in answerable)}"
            for f in sorted({r["form"] for r in answerable})},
        "fact_recall": mean([r["fact_recall"] for r in answered]),
        "fact_recall_explain": mean([r["fact_recall"] for r in answered if r["form"] == "explain"]),
        "fact_recall_explain_prose": mean([r["fact_recall_prose"] for r in answered if r["form"] == "explain"]),
        "guards_fired": dict(Counter(g for r in rows for g in r["guards"])),
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


def _record_line(citation) -> str:
    """What a cited record says besides its abstract: title, authors, venue, year (a record answer states these)."""
    return " ".join([citation.title or "", *citation.authors, citation.venue or "", str(citation.year or "")])


def citations_supported(answer) -> bool | None:
    """Every cited sentence is supported by what it cites (citations._supported, the fitted claim-support check the
    answerer uses at its fitted threshold, the question's own words not counting as support, here against the whole
    abstract and the record's title, authors, venue and year): a check that can fail. A related answer's first
    paragraph, the line naming the closest papers (compose.related_text), is written in code and claims nothing of
    theirs: not checked. None when the answer cites nothing."""
    from ragqa.answer.citations import _MARKER, _supported, parse_markers, split_answer_sentences
    from ragqa.answer.records import Source
    from ragqa.answer.support import load_claim_support

    if not answer.citations:
        return None
    by_n = {c.n: c for c in answer.citations}
    check = load_claim_support()
    text = answer.text.split("\n\n", 1)[-1] if getattr(answer, "coverage", "") == "related" else answer.text
    for sentence in split_answer_sentences(text):
        numbers = [n for _, ns in parse_markers(sentence) for n in ns]
        if not numbers:
            continue
        cited = [Source(n=n, hit=Hit(paper_id=by_n[n].paper_id, score=0.0, relevance=None, text="",
                                     meta={"label": by_n[n].label}),
                        evidence=(by_n[n].abstract, _record_line(by_n[n]))) for n in numbers if n in by_n]
        if len(cited) < len(set(numbers)) or not _supported(_MARKER.sub(" ", sentence), cited, check,
                                                             getattr(answer, "question", "")):
            return False
    return True


def key_facts(pipeline, q, n: int = 2, own_part: bool = False) -> list[str]:
    """A question's key facts: the dataset's own, else the n sentences of its gold abstracts closest
    to the question (MiniLM cosine): what a good answer should state. `own_part`: closest among each paper's
    own part first, its background last (evidence.own_part_first), a measure of what the paper itself does."""
    import numpy as np

    from ragqa.text.sentences import part_rank, split_sentences

    meta = pipeline.searcher.paper_meta()
    sentences, rank = [], []  # rank: evidence.part_rank of each sentence within its own abstract
    for pid in q.gold:
        sents = split_sentences((meta.get(pid) or {}).get("text") or "")
        sentences += sents
        rank += part_rank(sents)
    if not sentences:
        return []
    embedder = pipeline.embedder
    sims = np.asarray(embedder.get_text_embedding_batch(sentences)) @ np.asarray(
        embedder.get_query_embedding(q.question))
    order = np.argsort(-sims).tolist()
    if own_part:
        order.sort(key=lambda i: rank[i])  # stable: by closeness within each group
    return [sentences[i] for i in order[:n]]


def prose(answer: str) -> str:
    """An answer without its quotes ("..." and “...”): what the model stated in its own words."""
    import re

    return re.sub(r'"[^"]*"|“[^”]*”', " ", answer)


def fact_recall(answer: str, facts: list[str]) -> float:
    """Share of key facts the answer states: a fact counts when at least half of its content words
    (evidence.content_words) appear in the answer."""
    from ragqa.text.sentences import content_words

    said = content_words(answer)
    hits = [len(content_words(f) & said) / max(1, len(content_words(f))) >= 0.5 for f in facts]
    return round(sum(hits) / len(hits), 3) if hits else 0.0


def rescore_facts(pipeline, questions: list[EvalQuestion], report: dict, own_part: bool = False) -> dict:
    """Fact recall of the answers stored in an earlier answer report (e.g. one committed before
    this measure existed), by the same measure as run_answers; `own_part` picks the key facts from each gold
    paper's own part first (key_facts). All answered rows, explain answers, and explain answers' own prose."""
    by_id = {q.id: q for q in questions}
    every, explain, explain_prose = [], [], []
    for row in report["rows"]:
        q = by_id.get(row["id"])
        if q is None or not q.gold or row["abstained"]:
            continue
        facts = list(getattr(q, "facts", ()) or key_facts(pipeline, q, own_part=own_part))
        if facts:
            every.append(fact_recall(row["answer"], facts))
            if row.get("form") == "explain":
                explain.append(every[-1])
                explain_prose.append(fact_recall(prose(row["answer"]), facts))

    def mean(values):
        return round(sum(values) / len(values), 3) if values else None
    return {"answered_rows": len(every), "fact_recall": mean(every), "fact_recall_explain": mean(explain),
            "fact_recall_explain_prose": mean(explain_prose), "own_part": own_part}
