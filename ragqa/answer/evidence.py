"""Evidence for a prompt: abstracts split into sentences, their vectors cached per paper (with each
paper's closeness to a question), the sentences chosen per paper, trimmed to the prompt's token budget.
Which papers are used is the caller's; rendering them into the prompt is prompting.py's. A sentence that
addresses the model or the reader (untrusted.is_instruction) never enters the cache, so no prompt, list
line or quoted fallback can carry it.
"""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from ragqa.answer.prompting import render_sources
from ragqa.answer.records import Source
from ragqa.config import Settings
from ragqa.retrieval.hits import Hit
from ragqa.retrieval.sentence_cache import SentenceCache
from ragqa.text.sentences import available_at, content_words, own_part_first, split_sentences

_CONTRIBUTION = re.compile(r"\b(?:we|this (?:paper|work))\s+(?:\w+\s+)?(?:introduce|propose|present|develop)s?\b", re.I)


def select_evidence(question_vec, hits: list[Hit], embedder, settings: Settings, query: str = "",
                    cache=None) -> list[Source]:
    """Per paper: the sentence stating its contribution, then the sentences closest to the question
    (cosine plus a bonus for sharing the question's content words), kept in abstract order.
    `cache` (a SentenceCache) reuses sentence vectors across questions."""
    query_words = content_words(query) - {"what", "which", "does", "paper"}
    embedded = (cache or SentenceCache(embedder, split_sentences)).get(hits)
    q = np.asarray(question_vec)
    sources = []
    for n, (hit, (sents, vectors)) in enumerate(zip(hits, embedded), 1):
        label = hit.meta.get("label") or ""
        q_paper = q
        if query and len(label) >= 3 and label.lower() in query.lower():  # the name says nothing within its paper
            q_paper = np.asarray(embedder.get_query_embedding(re.sub(re.escape(label), "it", query, flags=re.I)))
        sims = vectors @ q_paper if sents else np.zeros(0)
        closeness = float((vectors @ q).max()) if sents else 0.0
        words = query_words - content_words(label)
        if words and sents:
            sims = sims + np.array([0.3 * len(words & content_words(x)) / len(words) for x in sents])
        # the sentence that says what the paper contributes comes first, then the closest ones
        intro = next((i for i, sentence in enumerate(sents) if _CONTRIBUTION.search(sentence)), None)
        late = {i for i, sentence in enumerate(sents) if available_at(sentence)}
        ranked = sorted(np.argsort(-sims).tolist(), key=lambda i: i in late)  # stable: code links last
        order = ([intro] if intro is not None else []) + [i for i in ranked if i != intro]
        keep = sorted(order[: settings.evidence_sentences])
        sources.append(Source(n=n, hit=hit, evidence=tuple(sents[i] for i in keep), closeness=closeness,
                              closest=tuple(sents[i] for i in own_part_first(ranked, sents)[:4])))
    return sources


def count_tokens(text: str) -> int:
    import tiktoken

    return len(tiktoken.get_encoding("cl100k_base").encode(text))


def fit_budget(sources: list[Source], settings: Settings) -> list[Source]:
    """Drop the last sentence of the lowest-ranked paper (then the paper) until the sources fit."""
    sources = list(sources)
    while sources and count_tokens(render_sources(sources, settings)) > settings.prompt_budget:
        last = sources[-1]
        if len(last.evidence) > 1:
            sources[-1] = replace(last, evidence=last.evidence[:-1])
        elif len(sources) > 1:
            sources.pop()
        else:  # one sentence that is itself too long: clip by words
            words = last.evidence[0].split()
            sources[-1] = replace(last, evidence=(" ".join(words[: max(10, len(words) * 2 // 3)]),))
            if len(words) <= 10:
                break
    return sources
