"""Answers about particular papers: what they propose or find (the LLM writes it from chosen evidence, citations
checked, guards applied, quoted evidence as the fallback), a field of their record (who wrote it, where it was
published: from the record, no LLM), and the record of a paper held without its abstract. Each a strategy:
AnswerContext -> events. Which one answers is ask.py's."""
from __future__ import annotations

from typing import Iterator

from ragqa.answer.citations import make_citations, name_bare_markers, resolve_citations
from ragqa.answer.compose import (
    abstain_text,
    byline,
    extractive_answer,
    field_text,
    quote_named,
    quote_top_up,
    record_text,
    related_text,
)
from ragqa.answer.context import AnswerContext, Event
from ragqa.answer.evidence import fit_budget, select_evidence
from ragqa.answer.guards import NAME_BARE_MARKERS, QUOTE_NAMED, QUOTE_TOP_UP, REFUSAL_TO_QUOTES
from ragqa.answer.prompting import build_messages, is_refusal, worked_examples
from ragqa.answer.records import Answer, Source
from ragqa.ingest.paper import without_abstract
from ragqa.query.intent import EXPLAIN, asks_field
from ragqa.retrieval.hits import Hit
from ragqa.text.clean import CJK


def explain_hits(ctx: AnswerContext) -> list[Hit]:
    """The papers an explain answer is drawn from: those the answerability model accepts, the papers the last answer
    cited right after the best match."""
    by_id = {h.paper_id: h for h in ctx.retrieved}
    hits = [by_id[pid] for pid in ctx.judgement.explain(ctx.settings.explain_papers)]
    return hits[:1] + [h for h in ctx.earlier if h not in hits][:2] + hits[1:]


def explain_kind(ctx: AnswerContext) -> str:
    """"field" (the question asks a record field), "record" (the papers it is about are held without an abstract)
    or "explain"."""
    hits = explain_hits(ctx)
    if asks_field(ctx.question):
        return "field"
    named_bare = [h for h in hits if h.paper_id in set(ctx.judgement.named) and without_abstract(h.meta)]
    return "record" if named_bare or all(without_abstract(h.meta) for h in hits) else "explain"


def explain(ctx: AnswerContext) -> Iterator[Event]:
    """The LLM's answer from each accepted paper's evidence, its citations checked; quotes when nothing holds."""
    settings, result, judgement = ctx.settings, ctx.result, ctx.judgement
    hits = [h for h in explain_hits(ctx) if not without_abstract(h.meta)]  # a title is no evidence of what it says
    sources = select_evidence(ctx.qvec, hits, ctx.pipeline.embedder, settings, result.query,
                              cache=ctx.searcher.sentences)
    sources = fit_budget(sources, settings)
    yield ctx.sources_found(sources)
    # the model reads a follow-up as rewritten ("how do they get rid of them?" -> "... of high-norm tokens in ViT
    # feature maps?"), unless the rewrite failed (both turns) or the question is Chinese (its language sets the
    # answer's)
    asked = result.query if result.rewritten and not CJK.search(ctx.question) else ctx.question
    text, profile, fired = "", ctx.pipeline.profile, []
    for chunk in ctx.llm.stream_chat(build_messages(asked, sources, settings, offer_refusal=profile.trusts_refusal)):
        ctx.first_token()
        text += chunk.delta or ""
        yield Event("token", delta=chunk.delta or "")
    text = text.strip()
    refused = is_refusal(text)
    if refused and not profile.on(REFUSAL_TO_QUOTES):  # a capable model's refusal is trusted
        yield ctx.finish(Answer(ctx.question, abstain_text(result, settings), True, "abstain", "model refused",
                                retrieved=result.hits, form=ctx.form, judgement=judgement.as_json()))
        return
    # the answerability model has accepted the question: a refusal, like an answer with no supported claim, becomes
    # the quoted, cited evidence (the 1.5B's refusals carry little information: issue notes)
    answer_text, cited, invalid, dropped = ("", [], [], [text]) if refused else resolve_citations(
        text, sources, profile, fired, asked, worked_examples(settings.prompts_dir))
    mode, why = "llm", ""
    if cited:
        answer_text = _guarded(answer_text, sources, cited, ctx.question, profile, fired)
        if profile.on(QUOTE_NAMED):
            quoted, cited = quote_named(answer_text, sources, cited, ctx.filter_named, ctx.question)
            fired += [QUOTE_NAMED] if quoted != answer_text else []
            answer_text = quoted
    else:
        answer_text, cited = extractive_answer(sources, ctx.question, profile.knobs.extractive_papers)
        mode, why = "extractive", "model refused" if refused else "no supported sentence"
        fired += [REFUSAL_TO_QUOTES] if refused else []
    coverage = judgement.coverage or "answered"
    if coverage == "related":  # the closest papers, named as such: every source is cited by the line naming it
        answer_text, cited = related_text(ctx.question, sources, answer_text), sorted({*cited, *(s.n for s in sources)})
    yield ctx.finish(Answer(ctx.question, answer_text, False, mode, why, citations=make_citations(cited, sources),
                            retrieved=ctx.retrieved, invalid_markers=invalid, dropped_sentences=dropped,
                            form=ctx.form, judgement=judgement.as_json(), guards=list(dict.fromkeys(fired)),
                            coverage=coverage))


def _guarded(text: str, sources, cited, question: str, profile, fired: list[str]) -> str:
    """The repairs a model profile turns on that work on a cited answer, each listed in `fired` when it changed it."""
    for guard, repair in ((NAME_BARE_MARKERS, lambda t: name_bare_markers(t, sources)),
                          (QUOTE_TOP_UP, lambda t: quote_top_up(t, sources, cited, question, profile.knobs.top_up_below,
                                                            profile.knobs.top_up_most))):
        if profile.on(guard):
            repaired = repair(text)
            fired += [guard] if repaired != text else []
            text = repaired
    return text


def field_answer(ctx: AnswerContext) -> Iterator[Event]:
    """The asked field (authors, venue, year) of the papers the question names, else of the closest one alone, from
    their records, each cited; no LLM call. Each source's evidence is the record line the sentence states."""
    named = set(ctx.judgement.named)
    hits = explain_hits(ctx)[: ctx.settings.explain_papers]
    hits = [h for h in hits if h.paper_id in named] or hits[:1]
    sources = [Source(n=n, hit=h, evidence=(byline(h.meta),)) for n, h in enumerate(hits, 1)]
    yield ctx.sources_found(sources)
    text = field_text(ctx.question, asks_field(ctx.question), sources, named)
    yield ctx.text(text)
    yield ctx.finish(Answer(ctx.question, text, False, "record", "",
                            citations=make_citations([s.n for s in sources], sources), retrieved=ctx.retrieved,
                            form=EXPLAIN, judgement=ctx.judgement.as_json()))


def record_answer(ctx: AnswerContext) -> Iterator[Event]:
    """What a paper held without its abstract says cannot be answered: its record, cited, and that."""
    hits = explain_hits(ctx)
    named_bare = [h for h in hits if h.paper_id in set(ctx.judgement.named) and without_abstract(h.meta)]
    sources = [Source(n=n, hit=h, evidence=(byline(h.meta),)) for n, h in enumerate(named_bare or hits[:1], 1)]
    yield ctx.sources_found(sources)
    text = record_text(ctx.question, sources)
    yield ctx.text(text)
    yield ctx.finish(Answer(ctx.question, text, False, "record", "no abstract",
                            citations=make_citations([s.n for s in sources], sources), retrieved=ctx.retrieved,
                            form=EXPLAIN, judgement=ctx.judgement.as_json()))
