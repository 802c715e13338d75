"""What a question about the collection selects, beyond the filters it names: whether the words the rules leave name a
research subject at all (asked of the LLM: query/subject.py), which of a filter's few papers an explain answer is
about, and whether a topic label beside request words is the subject. Each is asked only where the rules' reading
would end in a refusal or a weaker list; ask.py and lists.py act on the answers.
"""
from __future__ import annotations

from dataclasses import replace

from ragqa.answer.context import AnswerContext
from ragqa.answer.topical import judge_topical, subject_words
from ragqa.query.intent import COUNT, LIST
from ragqa.query.metadata import RESEARCH_WORDS
from ragqa.query.subject import names_subject, subject_phrase
from ragqa.text.clean import CJK


def asks_every_paper(ctx: AnswerContext) -> bool:
    """No paper is firmly on the subject the rules read, and the question selects papers by metadata (or counts the
    whole collection, outside a conversation): do the words the rules read as its subject name one at all ("each one
    find" of "… and what does each one find?" does not)? Asked of the LLM (query/subject.py); off with
    Settings.query.ask_subject."""
    result = ctx.result
    if not ctx.settings.query.ask_subject or ctx.earlier or result.from_history:
        return False
    active = result.filters.active()
    if (not active and ctx.form != COUNT) or (active and not ctx.searcher.admitted(result.filters)):
        return False
    words = subject_words(result)  # none left of the searched words (a translation may read so): no subject
    return not words or not _names_subject(ctx, words)


def _asked(ctx: AnswerContext, ask, words: str):
    """`ask` (query/subject.py's names_subject or subject_phrase) of `words`, asked of the LLM once per question."""
    key = (ask.__name__, words)
    if key not in ctx.subject_checks:
        ctx.subject_checks[key] = ask(ctx.pipeline.rewrite_llm(), words, ctx.settings.prompts_dir)
    return ctx.subject_checks[key]


def _names_subject(ctx: AnswerContext, words: str) -> bool:
    return _asked(ctx, names_subject, words)


def filter_papers_answer(ctx: AnswerContext, chosen: tuple[str, ...]) -> tuple[str, ...]:
    """Which of the few papers a filter admits answer a question about them: all of them when the question names no
    subject besides the filter ("Which paper did X co-author, and what does it propose?": the rules read none, or the
    LLM reads none in the words left); when it names one, those the topical model puts on or near it (near_subject:
    "Which of Tanaka's papers is about in-context learning?" names that one), or near the words of it the LLM reads as
    the subject ("overfitting" of "overfitting reading list"); none when no paper is ("ICLR 2025 orals
    on LLMs?" over one oral on something else: answered from the filter as a list, or not covered). Off with
    Settings.query.ask_subject, as the other subject checks."""
    result = ctx.result
    if not result.names_topic or not ctx.settings.query.ask_subject or ctx.earlier or result.from_history:
        return chosen
    words = subject_words(result)  # Chinese words are left only when no LLM translated the question: unread
    if not words or CJK.search(words):
        return chosen
    by_runs = ctx.form != LIST  # a list reads its subject whole, as its topical tiers do: "graph neural networks" is
    # not "neural networks" (a run stands for request words beside a subject in an explain question)
    near = near_subject(ctx, chosen, words, by_runs)
    if len(near) == len(chosen):
        return near
    if not _names_subject(ctx, words):
        return chosen
    phrase = _subject_phrase(ctx, words)
    return near_subject(ctx, chosen, phrase, by_runs) if phrase != words else near


def _subject_phrase(ctx: AnswerContext, words: str) -> str:
    """query/subject.py's subject_phrase of `words` (which the subject check said name a subject). Used only to name a
    filter's few papers: on lists it turned near-misses into answers (the phrase drops a qualifier: "graph neural
    networks" of "graph neural networks traffic forecasting"; 6 of 746 dataset questions, answer_paths
    --subject-llm)."""
    return _asked(ctx, subject_phrase, words)


def near_subject(ctx: AnswerContext, chosen: tuple[str, ...], words: str, by_runs: bool = True) -> tuple[str, ...]:
    """The `chosen` papers the topical model puts at least near (related_point) the subject read from `words`, or
    (`by_runs`) from any run of them that stands for it (standing_runs): the rules leave request words beside a
    subject ("in-context learning: what's the headline result?"), and those sink the P of the paper on it (0.003
    here), so a run stands for the subject; but a generic run does not ("neural networks" is not what "graph neural
    networks for traffic forecasting" asks about), in a list or of a filter's few papers alike."""
    within = [c for c in ctx.candidates if c.paper_id in set(chosen)]
    metas, stats, model = {h.paper_id: h.meta for h in ctx.retrieved}, ctx.searcher.term_stats(), ctx.pipeline.topical
    best = {pid: 0.0 for pid in chosen}
    for run in sorted(standing_runs(stats, words) if by_runs else {words}):
        for pid, p in judge_topical(model, run, within, metas, stats).probabilities.items():
            best[pid] = max(best.get(pid, 0.0), p)
    return tuple(pid for pid in chosen if best[pid] >= model.related_point)


def standing_runs(stats, words: str) -> set[str]:
    """`words` and its runs of two or more words that can stand for it: a run holding most of the subject's weight
    (_weight) and its heaviest term, the one that most sets it apart ("diffusion models" holds most of the weight of
    "video generation using diffusion models", but not "video", which no paper has and research writes: it names
    a broader subject than the one asked about); and `words` less the words that weigh nothing (a slip or a
    shortening no paper has and research does not write: "interp" of "SAEs for interp"), whatever its length."""
    split = words.split()
    runs = {" ".join(split[i:j]) for i in range(len(split)) for j in range(i + 2, len(split) + 1)}
    weights = _weights(stats, words)
    total, top = sum(weights.values()), max(weights.values(), default=0.0)
    heaviest = {t for t, w in weights.items() if w >= top}
    weighed = " ".join(w for w in split if _weight(stats, w) > 0)  # the subject less words that weigh nothing
    return {run for run in runs if _weight(stats, run) > 0.5 * total
            and heaviest & set(stats.subject_terms(run))} | {words} | ({weighed} if weighed else set())


def _weights(stats, text: str) -> dict[str, float]:
    """The weight of each term of `text` as a subject: its IDF when some indexed paper has it or ML research writes it
    (metadata.RESEARCH_WORDS: "unlearning" of "machine unlearning, removing the influence of training data" is what it
    asks about, and "training data" does not stand for it); a word neither is request wording or a slip ("pls")."""
    found = stats.subject_terms(text)
    df = stats.df(found)
    return {t: stats.idf(t) for t in found if t in df or t in RESEARCH_WORDS}


def _weight(stats, text: str) -> float:
    """The weight of `text` as a subject: the sum of its (distinct) terms' weights (_weights)."""
    return sum(_weights(stats, text).values())


def label_is_the_subject(ctx: AnswerContext) -> bool:
    """No paper is firmly on the subject the rules read, and the question names a topic label beside other words
    ("For my NeurIPS 2024 papers whose topic is Computer Vision, what's the main idea of each?"): when those words name
    no subject (none left, or the LLM says so: query/subject.py), the label is the subject: ctx.result says so."""
    result = ctx.result
    label = result.label
    if label is None or not ctx.settings.query.ask_subject or ctx.earlier or result.from_history:
        return False
    admitted = ctx.searcher.admitted(result.filters)
    carrying = label.papers | label.titled
    if not (carrying if admitted is None else carrying & admitted):
        return False
    words = subject_words(result, also=(label.span,))
    if words and _names_subject(ctx, words):
        return False
    note = f"topic label from question: {label.carried}; no other subject (read by the model)"
    ctx.result = replace(result, topic=label, label=None, notes=[*result.notes, note])
    return True
