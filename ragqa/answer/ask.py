"""One question -> streamed events: retrieval (with evidence) first, then tokens, then the Answer.

Composes the stages for Pipeline.stream / Pipeline.ask (which the CLI, the chat UI and the evals call).
Condensing a follow-up and translating a Chinese question happen here with the same LLM; retrieval,
evidence, the prompt, citation checking, code-written text and the guards live in their own modules.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Iterator

from ragqa.answer.answerability import assess
from ragqa.answer.citations import make_citations, name_bare_markers, resolve_citations
from ragqa.answer.compose import (
    CITED_PER_GROUP,
    GROUPS_SHOWN,
    abstain_text,
    author_text,
    byline,
    cite_groups,
    extractive_answer,
    field_text,
    group_order,
    group_rows,
    group_text,
    lead,
    list_items,
    no_paper_on_text,
    quote_top_up,
    record_text,
    rule_text,
    weaker_heading,
)
from ragqa.answer.evidence import fit_budget, select_evidence
from ragqa.answer.guards import NAME_BARE_MARKERS, QUOTE_TOP_UP, REFUSAL_TO_QUOTES
from ragqa.answer.prompting import build_messages, is_refusal, worked_examples
from ragqa.answer.records import Answer, Source
from ragqa.answer.topical import judge_topical, label_text, topical_query
from ragqa.ingest.corpus import without_abstract
from ragqa.query.intent import COUNT, EXPLAIN, GROUP, LIST, asks_field, asks_newest, classify, group_key
from ragqa.query.metadata import names_a_topic
from ragqa.query.request import Filters, require_question
from ragqa.query.rewrite import condense_question, leans_on_history
from ragqa.retrieval.hits import Hit
from ragqa.retrieval.retrieve import SearchResult, search
from ragqa.text.clean import CJK


@dataclass
class Event:
    kind: str  # "retrieved" | "token" | "done"
    result: SearchResult | None = None
    sources: list[Source] | None = None
    delta: str = ""
    answer: Answer | None = None


def _earlier_papers(pipeline, history: list[str], filters: Filters | None, translate, auto_filters: bool = True) -> list[str]:
    """For a follow-up given only earlier questions (batch input, evals), the papers the previous
    question's answer would use stand in for the ones it cited, as in the chat."""
    previous = search(pipeline.searcher, history[-1], filters, translate=translate, auto_filters=auto_filters)
    if previous.missing_name:
        return []
    qvec = pipeline.embedder.get_query_embedding(previous.query)
    _, judgement = assess(pipeline.searcher, previous, qvec, pipeline.calibration)
    return judgement.explain(pipeline.settings.explain_papers) if judgement.answerable else []


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
    start = time.perf_counter()
    translate = pipeline.translate if settings.translate_queries else None
    if history and cited_before is None:
        cited_before = _earlier_papers(pipeline, history, filters, translate, auto_filters)
    form = classify(question)
    result = search(  # a count or group-by judges more papers: it must see every one it counts
        pipeline.searcher, question, filters, k or (settings.aggregate_k if form in (COUNT, GROUP) else settings.judge_k), history=history,
        rewrite=(lambda q, h: condense_question(rewriter, h, q, settings)),
        translate=translate, auto_filters=auto_filters,
    )
    timings = {"retrieve_s": 0.0, "first_token_s": None, "total_s": 0.0}

    def finish(answer: Answer) -> Event:
        timings["total_s"] = round(time.perf_counter() - start, 3)
        answer.timings, answer.model, answer.query, answer.notes = timings, model, result.query, result.notes
        return Event("done", result=result, answer=answer)

    def abstain(why: str, judgement=None) -> Iterator[Event]:
        timings["retrieve_s"] = round(time.perf_counter() - start, 3)
        yield Event("retrieved", result=result, sources=[])
        admitted = len(pipeline.searcher.admitted(result.filters) or ()) if result.filters.active() else 0
        yield finish(Answer(question, abstain_text(result, settings, admitted), True, "abstain", why, retrieved=result.hits,
                            judgement=judgement.as_json() if judgement else {}))

    if result.author and not result.author.name:  # an ambiguous surname or an author not indexed: say so, don't guess
        timings["retrieve_s"] = round(time.perf_counter() - start, 3)
        yield Event("retrieved", result=result, sources=[])
        why = "unknown author" if result.author.unknown else "ambiguous author"
        yield finish(Answer(question, author_text(result.author, question), True, "abstain", why, retrieved=result.hits))
        return
    if result.missing_name:
        yield from abstain("unknown name")
        return
    if not result.names_topic or whole_collection(form, result, history):
        # "What did X publish here?", "How many ICLR 2024 orals?": the filter is the answer; "How many papers per
        # venue?": no filter, no subject, no conversation: the whole collection is
        searcher = pipeline.searcher
        if form == GROUP:
            yield from _metadata_group(pipeline, question, start, timings, finish, result)
            return
        # the count and the ids from the postings; only the lines shown read their records (a filter may admit 1M papers)
        admitted = searcher.admitted(result.filters)
        counted = list(searcher.index.catalog.ids()) if admitted is None else sorted(admitted)
        shown = searcher.index.catalog.newest(admitted, settings.list_max)
        metas = searcher.paper_meta().many(shown)
        ranked = [Hit.of_paper(pid, metas[pid], relevance=1.0) for pid in shown if pid in metas]
        # no subject to be close to ("What did X publish here?"): each line sums its paper up
        yield from _list_answer(pipeline, question, form, ranked, ranked, None, start, timings, finish, result, None,
                                filters=result.filters, counted=counted)
        return
    result, earlier = _earlier_hits(pipeline, result, cited_before)
    qvec = pipeline.embedder.get_query_embedding(result.query)
    candidates, judgement = assess(pipeline.searcher, result, qvec, pipeline.calibration, earlier)
    retrieved = result.hits + earlier  # earlier citations are never among the hits (_earlier_hits)
    by_id = {h.paper_id: h for h in retrieved}
    admitted = pipeline.searcher.admitted(result.filters) if result.filters.active() else None
    chosen = tuple(pid for pid in by_id if admitted and pid in admitted)
    if chosen and len(admitted) <= settings.explain_papers and not judgement.named and form not in (LIST, COUNT, GROUP):
        # the filters name the papers ("Which paper did X co-author, and what does it propose?": X has one)
        judgement = replace(judgement, answerable=True, named=chosen)
    scoped = bool(admitted) and not judgement.answerable and form not in (LIST, COUNT, GROUP)
    if form in (LIST, COUNT, GROUP) or scoped:
        # a question scoped by metadata that no paper answers on its own ("What RL work from ICLR 2024 do we have?")
        # is answered from what the filters admit, as a list of the papers on its subject
        yield from _collection_answer(pipeline, question, LIST if scoped else form, scoped, result, candidates, judgement,
                                      retrieved, qvec, start, timings, finish, abstain)
        return
    if not judgement.answerable:
        yield from abstain("not answerable", judgement)
        return
    hits = [by_id[pid] for pid in judgement.explain(settings.explain_papers)]
    hits = hits[:1] + [h for h in earlier if h not in hits][:2] + hits[1:]  # earlier citations right after the best match
    field = asks_field(question)
    if field:  # "Who wrote InterpBench?", "Where was it published?": the record answers, not the abstract or the model
        yield from _field_answer(question, field, hits[: settings.explain_papers], retrieved, start, timings, finish, result,
                                 judgement)
        return
    named_bare = [h for h in hits if h.paper_id in set(judgement.named) and without_abstract(h.meta)]
    if named_bare or all(without_abstract(h.meta) for h in hits):  # asked what a paper held without its abstract says
        yield from _record_answer(question, named_bare or hits[:1], retrieved, start, timings, finish, result, judgement)
        return
    hits = [h for h in hits if not without_abstract(h.meta)]  # a title is no evidence of what a paper says
    sources = select_evidence(qvec, hits, pipeline.embedder, settings, result.query, cache=pipeline.searcher.sentences)
    sources = fit_budget(sources, settings)
    timings["retrieve_s"] = round(time.perf_counter() - start, 3)
    yield Event("retrieved", result=result, sources=sources)

    # the model reads a follow-up as rewritten ("how do they get rid of them?" -> "... of high-norm tokens in
    # ViT feature maps?"), unless the rewrite failed (both turns) or the question is Chinese (its language sets the answer's)
    asked = question
    if result.rewritten and not CJK.search(question):
        asked = result.query
    text = ""
    profile, fired = pipeline.profile, []
    for chunk in llm.stream_chat(build_messages(asked, sources, settings, offer_refusal=profile.trusts_refusal)):
        if timings["first_token_s"] is None:
            timings["first_token_s"] = round(time.perf_counter() - start, 3)
        text += chunk.delta or ""
        yield Event("token", delta=chunk.delta or "")
    text = text.strip()
    refused = is_refusal(text)
    if refused and not profile.on(REFUSAL_TO_QUOTES):  # a capable model's refusal is trusted
        yield finish(Answer(question, abstain_text(result, settings), True, "abstain", "model refused", retrieved=result.hits,
                            form=form, judgement=judgement.as_json()))
        return
    # the answerability model has accepted the question: a refusal, like an answer with no supported
    # claim, becomes the quoted, cited evidence (the 1.5B's refusals carry little information: issue notes)
    answer_text, cited, invalid, dropped = ("", [], [], [text]) if refused else resolve_citations(
        text, sources, profile, fired, asked, worked_examples(settings.prompts_dir))
    mode, why = "llm", ""
    if cited:
        if profile.on(NAME_BARE_MARKERS):
            named = name_bare_markers(answer_text, sources)
            fired += [NAME_BARE_MARKERS] if named != answer_text else []
            answer_text = named
        if profile.on(QUOTE_TOP_UP):
            topped = quote_top_up(answer_text, sources, cited, question)
            fired += [QUOTE_TOP_UP] if topped != answer_text else []
            answer_text = topped
    else:
        answer_text, cited = extractive_answer(sources, question)
        mode, why = "extractive", "model refused" if refused else "no supported sentence"
        fired += [REFUSAL_TO_QUOTES] if refused else []
    yield finish(Answer(question, answer_text, False, mode, why, citations=make_citations(cited, sources),
                        retrieved=retrieved, invalid_markers=invalid, dropped_sentences=dropped,
                        form=form, judgement=judgement.as_json(), guards=list(dict.fromkeys(fired))))


def collection_tiers(judgement, topicality, labels: list[str], meta_of) -> tuple[list[str], list[str]]:
    """(papers on the subject, weaker matches) of a list, count or group-by: the papers the question names, those the
    topical model puts on its subject, those that answer on their own and those labelled with the whole subject; when
    the subject is a label, a paper labelled otherwise is a weaker match however close (held-out ICLR keywords: first-tier
    precision 0.91 against 0.77 when such papers join it, recall 0.986 either way). `meta_of(pid)` -> the paper's record."""
    elsewhere = {pid for pid in topicality.on if labels and pid not in set(labels) and label_text(meta_of(pid)).strip()}
    on = list(dict.fromkeys([*judgement.named, *(p for p in topicality.on if p not in elsewhere), *judgement.answering]))
    on += [pid for pid in labels if pid not in set(on)]
    weaker = [pid for pid in dict.fromkeys([*elsewhere, *topicality.related, *judgement.listed]) if pid not in set(on)]
    return on, weaker


def _collection_answer(pipeline, question, form, scoped, result, candidates, judgement, retrieved, qvec, start, timings,
                       finish, abstain):
    """A list, count or group-by of the papers on the question's subject (topical.py), in two tiers; a count with none
    on it is 0; a list with none abstains."""
    by_id = {h.paper_id: h for h in retrieved}
    labelled = _labelled(pipeline, result)
    topicality = judge_topical(pipeline.topical, topical_query(result), candidates, {h.paper_id: h.meta for h in retrieved},
                               pipeline.searcher.term_stats())
    by_id.update({h.paper_id: h for h in labelled if h.paper_id not in by_id})
    on, weaker = collection_tiers(judgement, topicality, [h.paper_id for h in labelled], lambda pid: by_id[pid].meta)
    if not on and not weaker:
        if form == COUNT and not scoped:  # a count of none is 0, out of what was counted
            yield from _count_none(pipeline, question, start, timings, finish, result, judgement)
        else:
            yield from abstain("not on the subject", judgement)
        return
    retrieved = retrieved + [h for h in labelled if h.paper_id not in {r.paper_id for r in retrieved}]
    ranked = [by_id[pid] for pid in on + weaker]
    if form == GROUP:
        key = group_key(question) or "year"
        yield from _group_answer(question, key, group_rows(ranked, key), {h.paper_id: h for h in ranked}, start,
                                 timings, finish, result, judgement, counted=[h.paper_id for h in ranked])
        return
    newest = asks_newest(question)
    ranked = sorted(ranked, key=lambda h: (h.paper_id in set(weaker), -(h.meta.get("year") or 0) if newest else 0))
    yield from _list_answer(pipeline, question, form, ranked, retrieved, qvec, start, timings, finish, result, judgement,
                            labelled=len(labelled), newest=newest, weaker=set(weaker),
                            coverage="answered" if on else "related", topicality=topicality)


def whole_collection(form: str, result: SearchResult, history) -> bool:
    """A count or group-by that names neither a filter nor a subject, outside a conversation, asks about the whole
    collection ("How many papers are indexed per year?", "Which venue has the most papers?"): the words left are
    request wording (metadata.FRAME_WORDS), as for a question that names only metadata."""
    return form in (COUNT, GROUP) and not result.filters.active() and not history and not names_a_topic(result.query, [])


def _labelled(pipeline, result: SearchResult) -> list[Hit]:
    """The papers (within the filters) whose topic, keywords or title name the question's whole subject, newest first."""
    if result.topic is None:
        return []
    admitted = pipeline.searcher.admitted(result.filters)  # ids only: the records read are the labelled papers'
    records = pipeline.searcher.paper_meta().many(
        sorted(pid for pid in result.topic.papers | result.topic.titled if admitted is None or pid in admitted))
    ids = sorted(records, key=lambda pid: (-(records[pid].get("year") or 0), records[pid].get("label") or ""))
    return [Hit.of_paper(pid, records[pid]) for pid in ids]


def _earlier_hits(pipeline, result: SearchResult, cited_before: list[str] | None) -> tuple[SearchResult, list[Hit]]:
    """The papers the last answer cited, as papers the follow-up names (relevance 1.0: "it", "they" name them, as a
    question naming a method does), when it refers back: those retrieval found again are marked so in the result (they
    were left as ordinary hits, so 它们 after a B-cos answer lost B-cos to a closer paper), the others are added."""
    if not leans_on_history(result.question, result.from_history):  # a new subject: answered as a standalone question
        return result, []
    meta = pipeline.searcher.paper_meta()
    named = [pid for pid in dict.fromkeys(cited_before or []) if pid in meta][:2]
    have = {h.paper_id for h in result.hits}
    hits = [replace(h, relevance=1.0) if h.paper_id in named else h for h in result.hits]
    return replace(result, hits=hits), [Hit.of_paper(pid, meta[pid], relevance=1.0) for pid in named if pid not in have]


def _list_answer(pipeline, question, form, ranked, retrieved, qvec, start, timings, finish, result, judgement, filters=None,
                 labelled: int = 0, counted: list[str] | None = None, newest: bool = False, weaker: set[str] = frozenset(),
                 coverage: str = "answered", topicality=None):
    """Every accepted paper (or, with `filters`, every paper the metadata filters match), one cited
    line each, streamed item by item. `counted`: the ids of every paper counted when `ranked` holds only the first.
    `weaker`: papers listed below the answer point, ranked last; a heading says so when stronger ones come first."""
    counted = counted if counted is not None else [h.paper_id for h in ranked]
    settings = pipeline.settings
    shown = ranked[: settings.list_max]
    sources = [Source(n=n, hit=h, evidence=()) for n, h in enumerate(shown, 1)]
    items = list_items(question, qvec, sources, pipeline.searcher.sentences)
    timings["retrieve_s"] = round(time.perf_counter() - start, 3)
    by_n = {s.n: s for s in sources}
    sources = [replace(by_n[n], evidence=(sentence,)) for n, _, sentence in items]
    yield Event("retrieved", result=result, sources=sources)
    scope = _scope(pipeline, result) if filters is None else None  # a subject within filters: how many they admit
    text = lead(question, len(items), len(counted) if len(counted) > len(shown) else None, filters,
                labelled=(result.topic.span, labelled) if result.topic and labelled else None, newest=newest,
                weaker=sum(1 for pid in counted if pid in weaker), scope=scope)
    timings["first_token_s"] = round(time.perf_counter() - start, 3)
    yield Event("token", delta=text)
    strong = sum(1 for n, _, _ in items if by_n[n].hit.paper_id not in weaker)
    for i, (_, line, _) in enumerate(items):
        delta = ("\n\n" + weaker_heading(question) if i == strong and 0 < strong < len(items) else "") + "\n- " + line
        yield Event("token", delta=delta)
        text += delta
    verdict = judgement.as_json() if judgement else {}
    if topicality is not None:
        verdict["topical"] = topicality.as_json()
    yield finish(Answer(question, text, False, "list", "", citations=make_citations([n for n, _, _ in items], sources),
                        retrieved=retrieved, form=form, judgement=verdict, counted=counted, coverage=coverage))


def _field_answer(question, field, hits, retrieved, start, timings, finish, result, judgement):
    """The asked field (authors, venue, year) of the papers the question names, else of the closest one alone, from
    their records, each cited; no LLM call. Each source's evidence is the record line the sentence states."""
    named = set(judgement.named)
    hits = [h for h in hits if h.paper_id in named] or hits[:1]
    sources = [Source(n=n, hit=h, evidence=(byline(h.meta),)) for n, h in enumerate(hits, 1)]
    timings["retrieve_s"] = round(time.perf_counter() - start, 3)
    yield Event("retrieved", result=result, sources=sources)
    text = field_text(question, field, sources, named)
    timings["first_token_s"] = round(time.perf_counter() - start, 3)
    yield Event("token", delta=text)
    yield finish(Answer(question, text, False, "record", "", citations=make_citations([s.n for s in sources], sources),
                        retrieved=retrieved, form=EXPLAIN, judgement=judgement.as_json()))


def _scope(pipeline, result) -> tuple[str, int] | None:
    """The question's filters as a reader sees them and how many papers they admit, when it has any."""
    if not result.filters.active():
        return None
    return rule_text(result.filters.active()), len(pipeline.searcher.admitted(result.filters) or ())


def _count_none(pipeline, question, start, timings, finish, result, judgement):
    """A count question with no paper on its subject: 0, of the collection's or the filters' papers; no citation."""
    scope = _scope(pipeline, result)
    text = no_paper_on_text(question, pipeline.searcher.index.catalog.count(), scope)
    timings["retrieve_s"] = timings["first_token_s"] = round(time.perf_counter() - start, 3)
    yield Event("retrieved", result=result, sources=[])
    yield Event("token", delta=text)
    yield finish(Answer(question, text, False, "list", "no paper on the subject", retrieved=result.hits, form=COUNT,
                        judgement=judgement.as_json(), counted=[], coverage="answered"))


def _record_answer(question, hits, retrieved, start, timings, finish, result, judgement):
    """What a paper held without its abstract says cannot be answered: its record, cited, and that."""
    sources = [Source(n=n, hit=h, evidence=(byline(h.meta),)) for n, h in enumerate(hits, 1)]
    timings["retrieve_s"] = round(time.perf_counter() - start, 3)
    yield Event("retrieved", result=result, sources=sources)
    text = record_text(question, sources)
    timings["first_token_s"] = round(time.perf_counter() - start, 3)
    yield Event("token", delta=text)
    yield finish(Answer(question, text, False, "record", "no abstract", citations=make_citations([s.n for s in sources], sources),
                        retrieved=retrieved, form=EXPLAIN, judgement=judgement.as_json()))


def _metadata_group(pipeline, question, start, timings, finish, result):
    """What a metadata filter admits (the whole collection when none is set) by venue or year: counts and ids from the
    postings, records read only for the papers the lines cite (the newest of each shown group). By author, every admitted
    record is read (a paper counts once per author; there are no author postings to count from)."""
    searcher = pipeline.searcher
    key = group_key(question) or "year"
    if key == "author":
        papers = searcher.matching(result.filters)
        ranked = [Hit.of_paper(pid, m, relevance=1.0) for pid, m in
                  sorted(papers.items(), key=lambda kv: (-(kv[1].get("year") or 0), kv[1].get("label") or ""))]
        yield from _group_answer(question, key, group_rows(ranked, key), {h.paper_id: h for h in ranked}, start, timings,
                                 finish, result, None, rule=result.filters)
        return
    rows = group_order(key, searcher.groups(key, searcher.admitted(result.filters)))
    firsts = searcher.index.catalog.newest_of_each(dict(rows[:GROUPS_SHOWN]), CITED_PER_GROUP)
    rows = [(name, firsts.get(name, []) + sorted(ids.difference(firsts.get(name, [])))) for name, ids in rows]
    cited = [pid for _, ids in rows[:GROUPS_SHOWN] for pid in ids[:CITED_PER_GROUP]]
    metas = searcher.paper_meta().many(cited)
    hits = {pid: Hit.of_paper(pid, m, relevance=1.0) for pid, m in metas.items()}
    yield from _group_answer(question, key, rows, hits, start, timings, finish, result, None, rule=result.filters)


def _group_answer(question, key, rows, hits, start, timings, finish, result, judgement, rule=None, counted=None):
    """Grouped papers (accepted by the answerability model, or admitted by the metadata filter): rows of (group name,
    its paper ids, the ones to cite first), largest group first; `hits` holds at least the papers the lines cite;
    `counted`: every paper counted, in rank order (default: as the rows list them)."""
    lines, cited_ids = cite_groups(rows)
    sources = [Source(n=n, hit=hits[pid], evidence=()) for n, pid in enumerate(cited_ids, 1)]
    counted = counted if counted is not None else list(dict.fromkeys(pid for _, ids in rows for pid in ids))
    timings["retrieve_s"] = timings["first_token_s"] = round(time.perf_counter() - start, 3)
    yield Event("retrieved", result=result, sources=sources)
    text = group_text(question, key, lines, len(counted), rule.active() if rule is not None else None, result.query,
                      labelled=result.topic.span if result.topic else None)
    yield Event("token", delta=text)
    table = [{"group": name, "count": len(ids), "papers": ids} for name, ids in rows]
    yield finish(Answer(question, text, not counted, "list" if counted else "abstain", "" if counted else "not answerable",
                        citations=make_citations([s.n for s in sources], sources), retrieved=result.hits, form=GROUP,
                        judgement=judgement.as_json() if judgement else {}, table=table, counted=counted))


def final_answer(events: Iterator[Event]) -> Answer:
    """The Answer an event stream ends with (the stream is drained)."""
    for event in events:
        if event.kind == "done":
            return event.answer
    raise RuntimeError("the answer stream ended without an answer")


def ask(pipeline, question: str, **kwargs) -> Answer:
    return final_answer(stream_answer(pipeline, question, **kwargs))
