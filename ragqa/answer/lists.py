"""Answers about the collection: the papers on a subject (in two tiers: on it, and weaker matches), how many there
are, the papers grouped by venue, year or author, and what a metadata filter admits (no subject); one cited line per
paper, written in code. Each a strategy: AnswerContext -> events. Which one answers is ask.py's."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from ragqa.answer.citations import make_citations
from ragqa.answer.compose import (
    CITED_PER_GROUP,
    GROUPS_SHOWN,
    cite_groups,
    group_order,
    group_rows,
    group_text,
    lead,
    list_items,
    no_paper_on_text,
    rule_text,
    weaker_heading,
)
from ragqa.answer.context import AnswerContext, Event
from ragqa.answer.messages import messages
from ragqa.answer.records import Answer, Source
from ragqa.answer.scope import asks_every_paper, label_is_the_subject, near_subject
from ragqa.answer.topical import aside_readings, judge_topical, label_readings, label_text, topical_query
from ragqa.query.intent import COUNT, GROUP, asks_newest, group_key
from ragqa.query.metadata import names_a_topic
from ragqa.retrieval.hits import Hit
from ragqa.retrieval.retrieve import SearchResult


def collection_tiers(judgement, topicality, labels: list[str], meta_of) -> tuple[list[str], list[str]]:
    """(papers on the subject, weaker matches) of a list, count or group-by: the papers the question names, those the
    topical model puts on its subject, those that answer on their own and those labelled with the whole subject; when
    the subject is a label, a paper labelled otherwise is a weaker match however close (held-out ICLR keywords:
    first-tier precision 0.91 against 0.77 when such papers join it, recall 0.986 either way).
    `meta_of(pid)` -> the paper's record."""
    elsewhere = {pid for pid in topicality.on
                 if labels and pid not in set(labels) and label_text(meta_of(pid)).strip()}
    on = list(dict.fromkeys([*judgement.named, *(p for p in topicality.on if p not in elsewhere),
                             *judgement.answering]))
    on += [pid for pid in labels if pid not in set(on)]
    weaker = [pid for pid in dict.fromkeys([*elsewhere, *topicality.related, *judgement.listed]) if pid not in set(on)]
    return on, weaker


def whole_collection(form: str, result: SearchResult, history) -> bool:
    """A count or group-by that names neither a filter nor a subject, outside a conversation, asks about the whole
    collection ("How many papers are indexed per year?", "Which venue has the most papers?"): the words left are
    request wording (metadata.FRAME_WORDS), as for a question that names only metadata."""
    return (form in (COUNT, GROUP) and not result.filters.active() and not history
            and not names_a_topic(result.query, []))


NO_SUBJECT_NOTE = "no subject besides the filters (read by the model): every paper they admit"


def collection(ctx: AnswerContext) -> Iterator[Event]:
    """A list, count or group-by of the papers on the question's subject (topical.py), in two tiers; a count with
    none on it is 0; a list with none abstains."""
    by_id = {h.paper_id: h for h in ctx.retrieved}
    labelled = _labelled(ctx)
    subject = topical_query(ctx.result)
    topicality = judge_topical(ctx.pipeline.topical, subject, ctx.candidates,
                               {h.paper_id: h.meta for h in ctx.retrieved}, ctx.searcher.term_stats(),
                               also=aside_readings(ctx.result) + label_readings(ctx.result))
    by_id.update({h.paper_id: h for h in labelled if h.paper_id not in by_id})
    on, weaker = collection_tiers(ctx.judgement, topicality, [h.paper_id for h in labelled], lambda p: by_id[p].meta)
    if not on and label_is_the_subject(ctx):  # again, the label the subject
        yield from collection(ctx)
        return
    if not on and asks_every_paper(ctx):  # "… and what does each one find?": the filters' papers are the answer
        ctx.result = replace(ctx.result, names_topic=False, notes=[*ctx.result.notes, NO_SUBJECT_NOTE])
        yield from (metadata_group if ctx.form == GROUP else metadata_list)(ctx)
        return
    if not on and weaker and _only_listed_afar(ctx, subject, topicality, weaker):
        weaker = []
    if not on and not weaker:
        if ctx.form == COUNT and not ctx.scoped:  # a count of none is 0, out of what was counted
            yield from _count_none(ctx)
        else:
            yield from ctx.not_covered(why="not on the subject", judgement=ctx.judgement)
        return
    retrieved = ctx.retrieved + [h for h in labelled if h.paper_id not in {r.paper_id for r in ctx.retrieved}]
    ranked = [by_id[pid] for pid in on + weaker]
    if ctx.form == GROUP:
        key = group_key(ctx.question) or "year"
        yield from _group_answer(ctx, key, group_rows(ranked, key), {h.paper_id: h for h in ranked}, ctx.judgement,
                                 counted=[h.paper_id for h in ranked])
        return
    newest = asks_newest(ctx.question)
    ranked = sorted(ranked, key=lambda h: (h.paper_id in set(weaker), -(h.meta.get("year") or 0) if newest else 0))
    yield from _list_answer(ctx, ranked, retrieved, ctx.qvec, ctx.judgement, labelled=len(labelled), newest=newest,
                            weaker=set(weaker), coverage="answered" if on else "related", topicality=topicality)


def _only_listed_afar(ctx: AnswerContext, subject: str, topicality, weaker: list[str]) -> bool:
    """A list over the whole collection whose weaker matches only answerability's list point took (a one-paper
    point, set for recall: P >= 0.001), none of them near its subject by the topical model, read whole or by any
    run of two or more of its words that holds most of its weight (scope.near_subject: request words beside a
    subject sink a paper's P, and a generic run is not the subject): the collection holds nothing on the subject,
    and the answer says so (those papers are the nearest it names). Within filters they stay a weaker tier: the
    answer is drawn from what the filter admits."""
    if ctx.result.filters.active() or not set(weaker).isdisjoint(topicality.related):
        return False
    return not near_subject(ctx, tuple(weaker), subject)


def metadata_list(ctx: AnswerContext) -> Iterator[Event]:
    """What the filters read from the question admit, newest first ("What did X publish here?", "How many ICLR 2024
    orals?"): the count and the ids from the postings; only the lines shown read their records (a filter may admit
    1M papers). No subject to be close to: each line sums its paper up."""
    searcher, filters = ctx.searcher, ctx.result.filters
    admitted = searcher.admitted(filters)
    counted = list(searcher.index.catalog.ids()) if admitted is None else sorted(admitted)
    shown = searcher.index.catalog.newest(admitted, ctx.settings.list_max)
    metas = searcher.paper_meta().many(shown)
    ranked = [Hit.of_paper(pid, metas[pid], relevance=1.0) for pid in shown if pid in metas]
    yield from _list_answer(ctx, ranked, ranked, None, None, filters=filters, counted=counted)


def metadata_group(ctx: AnswerContext) -> Iterator[Event]:
    """What a metadata filter admits (the whole collection when none is set) by venue or year: counts and ids from
    the postings, records read only for the papers the lines cite (the newest of each shown group). By author, every
    admitted record is read (a paper counts once per author; there are no author postings to count from)."""
    searcher, filters = ctx.searcher, ctx.result.filters
    key = group_key(ctx.question) or "year"
    if key == "author":
        papers = searcher.matching(filters)
        ranked = [Hit.of_paper(pid, m, relevance=1.0) for pid, m in
                  sorted(papers.items(), key=lambda kv: (-(kv[1].get("year") or 0), kv[1].get("label") or ""))]
        yield from _group_answer(ctx, key, group_rows(ranked, key), {h.paper_id: h for h in ranked}, None,
                                 rule=filters)
        return
    rows = group_order(key, searcher.groups(key, searcher.admitted(filters)))
    firsts = searcher.index.catalog.newest_of_each(dict(rows[:GROUPS_SHOWN]), CITED_PER_GROUP)
    rows = [(name, firsts.get(name, []) + sorted(ids.difference(firsts.get(name, [])))) for name, ids in rows]
    cited = [pid for _, ids in rows[:GROUPS_SHOWN] for pid in ids[:CITED_PER_GROUP]]
    metas = searcher.paper_meta().many(cited)
    hits = {pid: Hit.of_paper(pid, m, relevance=1.0) for pid, m in metas.items()}
    yield from _group_answer(ctx, key, rows, hits, None, rule=filters)


def _labelled(ctx: AnswerContext) -> list[Hit]:
    """The papers (within the filters) whose topic, keywords or title name the question's whole subject, newest
    first."""
    topic = ctx.result.topic
    if topic is None:
        return []
    admitted = ctx.searcher.admitted(ctx.result.filters)  # ids only: the records read are the labelled papers'
    records = ctx.searcher.paper_meta().many(
        sorted(pid for pid in topic.papers | topic.titled if admitted is None or pid in admitted))
    ids = sorted(records, key=lambda pid: (-(records[pid].get("year") or 0), records[pid].get("label") or ""))
    return [Hit.of_paper(pid, records[pid]) for pid in ids]


def _list_answer(ctx: AnswerContext, ranked, retrieved, qvec, judgement, *, filters=None, labelled: int = 0,
                 counted: list[str] | None = None, newest: bool = False, weaker: set[str] = frozenset(),
                 coverage: str = "answered", topicality=None) -> Iterator[Event]:
    """Every accepted paper (or, with `filters`, every paper the metadata filters match), one cited line each,
    streamed item by item. `counted`: the ids of every paper counted when `ranked` holds only the first.
    `weaker`: papers listed below the answer point, ranked last; a heading says so when stronger ones come first."""
    question, result = ctx.question, ctx.result
    counted = counted if counted is not None else [h.paper_id for h in ranked]
    shown = ranked[: ctx.settings.list_max]
    sources = [Source(n=n, hit=h, evidence=()) for n, h in enumerate(shown, 1)]
    items = list_items(question, qvec, sources, ctx.searcher.sentences)
    by_n = {s.n: s for s in sources}
    sources = [replace(by_n[n], evidence=(sentence,)) for n, _, sentence in items]
    yield ctx.sources_found(sources)
    scope = _scope(ctx) if filters is None else None  # a subject within filters: how many they admit
    text = lead(question, len(items), len(counted) if len(counted) > len(shown) else None, filters,
                labelled=(result.topic.span, labelled) if result.topic and labelled else None, newest=newest,
                weaker=sum(1 for pid in counted if pid in weaker), scope=scope)
    strong_counted = sum(1 for pid in counted if pid not in weaker)
    if ctx.form == COUNT and topicality is not None and strong_counted:  # a count says what it counted
        text += messages(question)("count.counted", point=f"{ctx.pipeline.topical.on_point:.2f}")
    yield ctx.text(text)
    strong = sum(1 for n, _, _ in items if by_n[n].hit.paper_id not in weaker)
    for i, (_, line, _) in enumerate(items):
        delta = ("\n\n" + weaker_heading(question) if i == strong and 0 < strong < len(items) else "") + "\n- " + line
        yield Event("token", delta=delta)
        text += delta
    verdict = judgement.as_json() if judgement else {}
    if topicality is not None:
        verdict["topical"] = topicality.as_json()
    yield ctx.finish(Answer(question, text, False, "list", "",
                            citations=make_citations([n for n, _, _ in items], sources), retrieved=retrieved,
                            form=ctx.form, judgement=verdict, counted=counted, coverage=coverage))


def _scope(ctx: AnswerContext) -> tuple[str, int] | None:
    """The question's filters as a reader sees them and how many papers they admit, when it has any."""
    filters = ctx.result.filters
    if not filters.active():
        return None
    return rule_text(filters.active()), len(ctx.searcher.admitted(filters) or ())


def _count_none(ctx: AnswerContext) -> Iterator[Event]:
    """A count question with no paper on its subject: 0, of the collection's or the filters' papers; no citation."""
    text = no_paper_on_text(ctx.question, ctx.searcher.index.catalog.count(), _scope(ctx))
    yield ctx.sources_found([], first_token=True)
    yield ctx.text(text)
    yield ctx.finish(Answer(ctx.question, text, False, "list", "no paper on the subject", retrieved=ctx.result.hits,
                            form=COUNT, judgement=ctx.judgement.as_json(), counted=[], coverage="answered"))


def _group_answer(ctx: AnswerContext, key, rows, hits, judgement, rule=None, counted=None) -> Iterator[Event]:
    """Grouped papers (accepted by the answerability model, or admitted by the metadata filter): rows of (group
    name, its paper ids, the ones to cite first), largest group first; `hits` holds at least the papers the lines
    cite; `counted`: every paper counted, in rank order (default: as the rows list them)."""
    result = ctx.result
    lines, cited_ids = cite_groups(rows)
    sources = [Source(n=n, hit=hits[pid], evidence=()) for n, pid in enumerate(cited_ids, 1)]
    counted = counted if counted is not None else list(dict.fromkeys(pid for _, ids in rows for pid in ids))
    yield ctx.sources_found(sources, first_token=True)
    text = group_text(ctx.question, key, lines, len(counted), rule.active() if rule is not None else None,
                      result.query, labelled=result.topic.span if result.topic else None)
    yield ctx.text(text)
    table = [{"group": name, "count": len(ids), "papers": ids} for name, ids in rows]
    yield ctx.finish(Answer(ctx.question, text, not counted, "list" if counted else "abstain",
                            "" if counted else "not answerable",
                            citations=make_citations([s.n for s in sources], sources), retrieved=result.hits,
                            form=GROUP, judgement=judgement.as_json() if judgement else {}, table=table,
                            counted=counted))
