"""One question -> streamed events: retrieval (with evidence) first, then tokens, then the Answer.

Reads the question (its form, the search with its filters, a follow-up's earlier papers), makes the decisions
(answerability, and for lists the topical model), and hands the AnswerContext to one strategy from STRATEGIES:
not covered, metadata list or group, collection (list, count, group on a subject), record field, record, explain.
What each strategy writes is in explain.py and lists.py; Pipeline.stream / Pipeline.ask call this.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

from ragqa.answer import explain, lists, scope
from ragqa.answer.answerability import assess
from ragqa.answer.compose import author_text
from ragqa.answer.context import AnswerContext, Event, final_answer
from ragqa.answer.records import Answer
from ragqa.query.intent import COUNT, EXPLAIN, GROUP, LIST, classify
from ragqa.query.request import Filters, require_question
from ragqa.query.rewrite import condense_question, leans_on_history
from ragqa.retrieval.hits import Hit
from ragqa.retrieval.retrieve import SearchResult, search
from ragqa.text.clean import CJK

__all__ = ["Event", "ask", "stream_answer", "final_answer", "STRATEGIES"]


def _author(ctx: AnswerContext) -> Iterator[Event]:
    """An ambiguous surname or an author not indexed: say so, don't guess."""
    author = ctx.result.author
    yield from ctx.not_covered(author_text(author, ctx.question),
                               "unknown author" if author.unknown else "ambiguous author")


def _not_covered(ctx: AnswerContext) -> Iterator[Event]:
    yield from ctx.not_covered(judgement=ctx.judgement)


STRATEGIES: dict[str, Callable[[AnswerContext], Iterator[Event]]] = {
    "author": _author, "not covered": _not_covered,
    "metadata list": lists.metadata_list, "metadata group": lists.metadata_group, "collection": lists.collection,
    "field": explain.field_answer, "record": explain.record_answer, "explain": explain.explain,
}


def route(ctx: AnswerContext, history: list[str] | None, cited_before: list[str] | None) -> str:
    """The strategy that answers, deciding (ctx.judgement and the rest) when the answer depends on the papers."""
    result, form = ctx.result, ctx.form
    if result.author and not result.author.name:
        return "author"
    if result.missing_name:
        ctx.why = "unknown name"
        return "not covered"
    if not result.names_topic or lists.whole_collection(form, result, history):
        # "What did X publish here?", "How many ICLR 2024 orals?": the filter is the answer; "How many papers per
        # venue?": no filter, no subject, no conversation: the whole collection is
        return "metadata group" if form == GROUP else "metadata list"
    judge(ctx, cited_before)
    if form in (LIST, COUNT, GROUP) or ctx.scoped:
        # a question scoped by metadata that no paper answers on its own ("What RL work from ICLR 2024 do we
        # have?") is answered from what the filters admit, as a list of the papers on its subject
        ctx.form = LIST if ctx.scoped else form
        return "collection"
    if not ctx.judgement.answerable:
        ctx.why = "not answerable"
        return "not covered"
    return explain.explain_kind(ctx)


def judge(ctx: AnswerContext, cited_before: list[str] | None) -> None:
    """The answerability decision over the hits and the papers the last answer cited; a filter admitting no more
    papers than an answer explains names those that answer it ("Which paper did X co-author, and what does it
    propose?"; scope.filter_papers_answer)."""
    settings, searcher = ctx.settings, ctx.searcher
    ctx.result, ctx.earlier = _earlier_hits(ctx.pipeline, ctx.result, cited_before)
    ctx.qvec = ctx.pipeline.embedder.get_query_embedding(ctx.result.query)
    ctx.candidates, judgement = assess(searcher, ctx.result, ctx.qvec, ctx.pipeline.collection_calibration(),
                                       ctx.earlier)
    ctx.retrieved = ctx.result.hits + ctx.earlier  # earlier citations are never among the hits (_earlier_hits)
    admitted = searcher.admitted(ctx.result.filters) if ctx.result.filters.active() else None
    chosen = tuple(h.paper_id for h in ctx.retrieved if admitted and h.paper_id in admitted)
    if (chosen and len(admitted) <= settings.explain_papers and not judgement.named
            and ctx.form not in (COUNT, GROUP)):  # a list of them or an explain answer: the same few papers
        ctx.filter_named = scope.filter_papers_answer(ctx, chosen)
        if ctx.filter_named:
            judgement = replace(judgement, answerable=True, named=ctx.filter_named, coverage="answered")
    ctx.judgement = judgement
    ctx.scoped = bool(admitted) and not judgement.answerable and ctx.form not in (LIST, COUNT, GROUP)


def stream_answer(pipeline, question: str, filters: Filters | None = None, history: list[str] | None = None,
                  k: int | None = None, cited_before: list[str] | None = None, fast: bool = False,
                  auto_filters: bool = True) -> Iterator[Event]:
    """auto_filters=False: venue, year, author, status and topic named in the question are not read as
    filters (the UI's undo of a parsed filter)."""
    settings = pipeline.settings
    question = require_question(question, settings.max_question_chars)
    llm = pipeline.llm(fast=fast)  # models and indexes load once per process, before the clock starts
    pipeline.searcher.refresh()
    pipeline.embedder
    model = getattr(llm.metadata, "model_name", "") or settings.llm_model
    rewriter = pipeline.rewrite_llm() if history or CJK.search(question) else None
    form = classify(question, pipeline.form)
    ctx = AnswerContext(pipeline, question, form, None, model, llm)  # the clock starts here
    translate = pipeline.translate if settings.translate_queries else None
    if history and cited_before is None:
        cited_before = _earlier_papers(pipeline, history, filters, translate, auto_filters)
    ctx.result = search(  # a count or group-by judges more papers: it must see every one it counts
        pipeline.searcher, question, filters,
        k or (settings.aggregate_k if ctx.form in (COUNT, GROUP) else settings.judge_k), history=history,
        rewrite=(lambda q, h: condense_question(rewriter, h, q, settings)), translate=translate,
        auto_filters=auto_filters)
    if ctx.form == EXPLAIN and not history and _translation_asks_for_a_list(pipeline, question, ctx.result.query):
        ctx.form = LIST
        ctx.result = replace(ctx.result, notes=[*ctx.result.notes, "answer form read from the translation: list"])
    yield from STRATEGIES[route(ctx, history, cited_before)](ctx)


def _translation_asks_for_a_list(pipeline, question: str, query: str) -> bool:
    """A Chinese question the Chinese rules read as explain, searched by its English translation: is the translation,
    read as an English question (intent.classify: the rules, then the form model), a list? ("我的论文库里有做联邦学习
    的吗？" -> "Do I have any papers on federated learning?"). Of the datasets' Chinese questions the Chinese rules
    read as explain, 28 of 33 list questions and 1 of 10 one-paper ones (`python -m
    evals.experiments.form_model --translated`); the form model never saw a Chinese question or translation."""
    return bool(CJK.search(question)) and not CJK.search(query) and classify(query, pipeline.form) == LIST


def ask(pipeline, question: str, **kwargs) -> Answer:
    return final_answer(stream_answer(pipeline, question, **kwargs))


def _earlier_papers(pipeline, history: list[str], filters: Filters | None, translate,
                    auto_filters: bool = True) -> list[str]:
    """For a follow-up given only earlier questions (batch input, evals), the papers the previous
    question's answer would use stand in for the ones it cited, as in the chat."""
    previous = search(pipeline.searcher, history[-1], filters, translate=translate, auto_filters=auto_filters)
    if previous.missing_name:
        return []
    qvec = pipeline.embedder.get_query_embedding(previous.query)
    _, judgement = assess(pipeline.searcher, previous, qvec, pipeline.collection_calibration())
    return judgement.explain(pipeline.settings.explain_papers) if judgement.answerable else []


def _earlier_hits(pipeline, result: SearchResult, cited_before: list[str] | None) -> tuple[SearchResult, list[Hit]]:
    """The papers the last answer cited, as papers the follow-up names (relevance 1.0: "it", "they" name them, as a
    question naming a method does), when it refers back: those retrieval found again are marked so in the result
    (they were left as ordinary hits, so 它们 after a B-cos answer lost B-cos to a closer paper), the others added."""
    if not leans_on_history(result.question, result.from_history):  # a new subject: answered as a standalone question
        return result, []
    meta = pipeline.searcher.paper_meta()
    named = [pid for pid in dict.fromkeys(cited_before or []) if pid in meta][:2]
    have = {h.paper_id for h in result.hits}
    hits = [replace(h, relevance=1.0) if h.paper_id in named else h for h in result.hits]
    return replace(result, hits=hits), [Hit.of_paper(pid, meta[pid], relevance=1.0) for pid in named if pid not in have]
