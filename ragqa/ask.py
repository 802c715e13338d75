"""One question -> streamed events: retrieval (with evidence) first, then tokens, then the Answer.

Shared by the CLI, the chat UI and the answer evals. Condensing a follow-up and translating a
Chinese question happen here with the same LLM; retrieval and citation checking live elsewhere.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterator

from .answer import (
    REFUSAL, Answer, Source, abstain_text, build_messages, extractive_answer, fit_budget, is_refusal,
    make_citations, name_bare_markers, resolve_citations, select_evidence,
)
from .clean import CJK
from .retrieve import Filters, Hit, SearchResult, require_question, search
from .rewrite import condense_question


@dataclass
class Event:
    kind: str  # "retrieved" | "token" | "done"
    result: SearchResult | None = None
    sources: list[Source] | None = None
    delta: str = ""
    answer: Answer | None = None


def _prompt_hits(pipeline, result: SearchResult, cited_before: list[str] | None) -> list[Hit]:
    s = pipeline.settings
    floor = max(s.min_relevance, result.top_relevance - s.relative_margin)  # near the best match only
    hits = [h for h in result.hits if h.relevance is None or h.relevance >= floor][: s.answer_papers]
    have = {h.paper_id for h in hits}
    meta = pipeline.searcher.paper_meta()
    earlier = [Hit(paper_id=pid, score=0.0, relevance=None, text=meta[pid].get("text", ""), meta=meta[pid])
               for pid in dict.fromkeys(cited_before or []) if pid not in have and pid in meta][:2]
    # keep earlier citations available to a follow-up, right after the best new match
    return hits[:1] + earlier + hits[1:]


def _earlier_papers(pipeline, history: list[str], filters: Filters | None, translate) -> list[str]:
    """For a follow-up given only earlier questions (batch input, evals), the papers the previous
    question brings into its prompt stand in for the ones its answer cited, as in the chat."""
    previous = search(pipeline.searcher, history[-1], filters, translate=translate)
    if previous.top_relevance < pipeline.settings.min_relevance or previous.missing_name:
        return []
    return [h.paper_id for h in _prompt_hits(pipeline, previous, None)]


def stream_answer(pipeline, question: str, filters: Filters | None = None, history: list[str] | None = None,
                  k: int | None = None, cited_before: list[str] | None = None, fast: bool = False) -> Iterator[Event]:
    settings = pipeline.settings
    question = require_question(question)
    llm = pipeline.llm(fast=fast)  # models and indexes load once per process, before the clock starts
    pipeline.searcher.refresh()
    pipeline.embedder
    model = getattr(llm.metadata, "model_name", "") or settings.llm_model
    rewriter = pipeline.rewrite_llm() if history or CJK.search(question) else None
    start = time.perf_counter()
    translate = pipeline.translate if settings.translate_queries else None
    if history and cited_before is None:
        cited_before = _earlier_papers(pipeline, history, filters, translate)
    result = search(
        pipeline.searcher, question, filters, k, history=history,
        rewrite=(lambda q, h: condense_question(rewriter, h, q, settings)),
        translate=translate,
    )
    timings = {"retrieve_s": 0.0, "first_token_s": None, "total_s": 0.0}

    def finish(answer: Answer) -> Event:
        timings["total_s"] = round(time.perf_counter() - start, 3)
        answer.timings, answer.model, answer.query, answer.notes = timings, model, result.query, result.notes
        return Event("done", result=result, answer=answer)

    def abstain(why: str) -> Iterator[Event]:
        timings["retrieve_s"] = round(time.perf_counter() - start, 3)
        yield Event("retrieved", result=result, sources=[])
        yield finish(Answer(question, abstain_text(result, settings), True, "abstain", why, retrieved=result.hits))

    if result.missing_name or (result.top_relevance < settings.min_relevance and not cited_before):
        yield from abstain("unknown name" if result.missing_name else "weak match")
        return
    hits = _prompt_hits(pipeline, result, cited_before)
    found = {h.paper_id for h in result.hits}
    retrieved = result.hits + [h for h in hits if h.paper_id not in found]  # + earlier citations put in the prompt
    qvec = pipeline.embedder.get_query_embedding(result.query)
    sources = select_evidence(qvec, hits, pipeline.embedder, settings, result.query)
    if not cited_before and max((s.closeness for s in sources), default=0.0) < settings.min_evidence:
        yield from abstain("weak evidence")  # the papers match, but no sentence of theirs is close to the question
        return
    sources = fit_budget(sources, settings)
    timings["retrieve_s"] = round(time.perf_counter() - start, 3)
    yield Event("retrieved", result=result, sources=sources)

    # the model reads a follow-up as rewritten ("how do they get rid of them?" -> "... of high-norm tokens in
    # ViT feature maps?"), unless the rewrite failed (both turns) or the question is Chinese (its language sets the answer's)
    asked = question
    if result.rewritten and not CJK.search(question):
        asked = result.query
    text = ""
    for chunk in llm.stream_chat(build_messages(asked, sources, settings)):
        if timings["first_token_s"] is None:
            timings["first_token_s"] = round(time.perf_counter() - start, 3)
        text += chunk.delta or ""
        yield Event("token", delta=chunk.delta or "")
    text = text.strip()
    refused = is_refusal(text)
    if refused and result.top_relevance < settings.trust_refusal_below:
        yield finish(Answer(question, abstain_text(result, settings), True, "abstain", "model refused", retrieved=retrieved,
                            dropped_sentences=[text] if text != REFUSAL else []))
        return
    # the small model over-refuses: with a strong match a refusal, like an answer with no supported
    # claim, becomes the quoted, cited evidence
    answer_text, cited, invalid, dropped = ("", [], [], [text]) if refused else resolve_citations(text, sources)
    mode, why = "llm", ""
    if cited:
        answer_text = name_bare_markers(answer_text, sources)
    else:
        answer_text, cited = extractive_answer(sources, question)
        mode, why = "extractive", "model refused" if refused else "no supported sentence"
    yield finish(Answer(question, answer_text, False, mode, why, citations=make_citations(cited, sources),
                        retrieved=retrieved, invalid_markers=invalid, dropped_sentences=dropped))


def ask(pipeline, question: str, **kwargs) -> Answer:
    for event in stream_answer(pipeline, question, **kwargs):
        if event.kind == "done":
            return event.answer
    raise RuntimeError("stream_answer ended without an answer")
