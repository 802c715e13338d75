"""Reading a question once, before retrieval (-> QueryPlan): the filters it names, matched against the collection's
values, the author and topic label, whether a subject is left, a follow-up rewritten, Chinese translated, recency
words and spelling slips taken out, and a method name no indexed paper carries. It looks things up in the collection
through the Searcher's views; it retrieves nothing."""
from __future__ import annotations

import re
from typing import Callable

from ragqa.query.intent import without_recency
from ragqa.query.metadata import TopicMatch, names_a_topic, span_pattern
from ragqa.query.plan import QueryPlan
from ragqa.query.request import Filters, require_question, venue_spans, venue_year
from ragqa.query.rewrite import both_turns
from ragqa.query.spelling import correct, corrections, english_words
from ragqa.retrieval.filtering import _parsed
from ragqa.text.clean import CJK


def read_question(searcher, question: str, filters: Filters | None = None, history: list[str] | None = None,
                  rewrite: Callable[[str, list[str]], str] | None = None,
                  translate: Callable[[str], str] | None = None, auto_filters: bool = True) -> QueryPlan:
    """What the question asks (`searcher`: a retrieve.Searcher, for the collection's values and names)."""
    question = require_question(question, searcher.settings.max_question_chars)
    filters = given = filters or Filters()
    notes: list[str] = []
    author = topic = None
    if auto_filters:
        filters, notes, author, topic = searcher.filters_from_question(question, filters)
    filters = searcher.check_filters(filters)
    spans = [author.span if author else "", *(str(v) for v in filters.active().values())]
    if auto_filters and author:  # "work by Hidenori Tanaka and Ekdeep Singh Lubana": people, no subject
        spans += searcher.authors().full_names(question)
    topical = names_a_topic(question, spans)
    label = topic
    topic = _whole_subject(topic, question, spans, notes)
    query, rewritten = question, False
    if history:
        fallback = both_turns(history, question)
        query = rewrite(question, history) if rewrite else fallback
        rewritten = query not in (question, fallback)
        if query != question:
            notes.append(f"standalone question: {query}")
    from_history = query != question  # before any translation: a Chinese question's English query is no rewrite
    metadata_only = not topical and bool(filters.active()) and not history  # "Yoshua Bengio 发表了哪些论文？"
    if CJK.search(query) and not metadata_only:
        if translate is not None:
            query = translate(query)
            notes.append(f"translated: {query}")
            # 可解释性领域 -> "interpretability area"
            if auto_filters and not filters.topic and not topic and not history:
                filters, topic, label = _topic_of_translation(searcher, question, query, filters, spans, notes)
                if filters.topic:  # the area named in Chinese: what is left of the translation says if more is asked
                    topical = names_a_topic(query, [*spans, filters.topic])
        else:
            notes.append("Chinese question searched untranslated (no LLM available): results may be poor")
    topic_words = without_recency(query)  # "the latest papers on X": the order of the answer, not its subject
    if topic_words != query:
        query = topic_words
        notes.append(f"searched without its recency words: {query}")
    fixes = corrections(query, searcher.index.catalog.term_frequencies, english_words(),
                        min_papers=searcher.settings.query.spelling_min_papers)
    if fixes:  # "concept bottlenck models": a word no paper has, one slip from one that several have
        query = correct(query, fixes)
        notes.append("spelling: " + ", ".join(f"{typed} -> {meant}" for typed, meant in fixes.items()))
    # the user's own words too: a rewrite or translation may drop or expand the name
    translated = CJK.search(question) is not None
    # what the question names of the collection's own values is no unknown name: an author the filters matched (folded:
    # "Szepesvári" is the indexed "Szepesvari"), a filter's value, a topic label or keyword ("Social Aspects · …")
    known = [author.span] if author is not None and author.name and author.span else []
    known += [str(v) for v in filters.active().values()] + ([topic.span] if topic is not None else [])
    known += venue_spans(filters.venue) if filters.venue else []
    known += _venues_written(searcher, question)
    searched = _without(query, known)
    name, verb = (searcher.missing_name(searched, phrases=not translated)
                  # a Chinese question's words are read from its translation
                  or (query != question and searcher.missing_name(_without(question, known),
                                                                  context=searched if translated else None))
                  or (None, ""))
    if name:
        notes.append(f"no indexed paper {verb} {name}")
    return QueryPlan(question=question, query=query, filters=filters, given=given, notes=notes,
                     missing_name=name, missing_verb=verb, rewritten=rewritten, from_history=from_history,
                     author=author, topic=topic, names_topic=topical or not filters.active() or bool(history),
                     label=label if topic is None and not filters.topic and not history else None)


def _topic_of_translation(searcher, question, query, filters, spans, notes):
    """A Chinese question's topic area or keyword, read from its translation. -> (filters, the label when it is the
    whole subject, the label named)."""
    from ragqa.query.metadata import ZH_CUE

    topic = searcher.topic_index().find(query)
    if topic is None:
        return filters, None, None
    if topic.cued or ZH_CUE.search(question):
        return searcher.check_filters(_parsed(filters, notes, "topic", topic.span)), None, None
    return filters, _whole_subject(topic, query, spans, notes), topic


def _whole_subject(topic: TopicMatch | None, text: str, spans: list[str], notes: list[str]) -> TopicMatch | None:
    """The label, if it is all the question asks about ("Which papers study robustness?"), noted;
    None when it is only part of it ("robustness of deep learning models")."""
    if topic is None or names_a_topic(text, spans + [topic.span]):
        return None
    notes.append(f"topic label from question: {topic.carried}")
    return topic


def _venues_written(searcher, text: str) -> list[str]:
    """An indexed venue's name as the question writes it with a year, however short ("NeurIPS24", "icml'24",
    "ICLR 2025"): a venue, never an unknown method name."""
    names = {venue_year(v)[0] for v in searcher.venues()}
    return [m[0] for name in names if name
            for m in re.finditer(rf"(?<![A-Za-z]){re.escape(name)}\s?['’]?(?:\d\d){{1,2}}(?!\d)", text, re.I)]


def _without(text: str, spans: list[str]) -> str:
    """`text` less the spans, however the question punctuates them (metadata.span_pattern), longest first."""
    for span in sorted(filter(None, spans), key=len, reverse=True):
        text = re.sub(span_pattern(span), " ", text, flags=re.I)
    return text
