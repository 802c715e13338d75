"""LLM query rewrites before retrieval: follow-up condensing and translation to English."""
from __future__ import annotations

import re

from ragqa.config import Settings
from ragqa.models.prompts import render
from ragqa.query.metadata import is_zh_frame
from ragqa.text.clean import CJK, CONTENT_WORD

# words that point back at an earlier turn ("they", "either of them", "this paper")
_ANAPHOR = re.compile(r"\b(?:they|them|their|these|those|either|both|its"
                      r"|it(?! is| was)(?!\s+(?:possible|true|feasible|necessary|worth|better|important|hard|easy)\b)"
                      r"|this (?:paper|work|method|model|approach)|the (?:paper|authors|method))\b"
                      r"|它|他们|这篇|这些|那些|该论文|该方法", re.I)


def leans_on_history(question: str, from_history: bool) -> bool:
    """A follow-up that refers back to the conversation: its search query was rewritten from the history
    (`SearchResult.from_history`; a translation alone is not), or it says "they" / "this paper" / 它们. "Who won the
    2022 World Cup?" after a question on B-cos networks does not, so the papers cited before are not what it asks
    about."""
    return from_history or bool(_ANAPHOR.search(question))


def _same(a: str, b: str) -> bool:
    return re.sub(r"\W+", " ", a).strip().lower() == re.sub(r"\W+", " ", b).strip().lower()


def _first_line(text: str) -> str:
    text = text.strip().strip('"').strip()
    line = next((l.strip() for l in text.splitlines() if l.strip()), "")
    return re.sub(r"^(standalone question|question|english)\s*:\s*", "", line, flags=re.I).strip('"')


# words a rewrite may drop or replace: function words, question words, and what "they" resolves to
_FILLER = {"what", "which", "when", "where", "does", "did", "were", "was", "have", "has", "had", "they", "them",
           "their", "these", "those", "this", "that", "either", "both", "also", "same", "paper", "papers", "work",
           "with", "from", "about", "into", "there", "other", "then", "than", "would", "could", "should", "tell",
           "more", "some", "any"}


def _content(text: str) -> set[str]:
    """Lower-cased word stems (first 5 letters) of the words that carry a question's content."""
    return {w[:5] for w in CONTENT_WORD.findall(text.lower()) if w not in _FILLER}


def _drops_question(rewritten: str, question: str) -> bool:
    """The rewrite lost what the follow-up asks: half or more of its content words are missing
    ('Were they tested on speech recordings?' -> 'What paper introduced prospector heads?')."""
    words = _content(question)
    return len(words) >= 2 and len(words - _content(rewritten)) * 2 >= len(words)


def both_turns(history: list[str], question: str) -> str:
    """The fallback when no standalone rewrite is available: the previous question, then this one."""
    return " ".join([*history[-1:], question])


def condense_question(llm, history: list[str], question: str, settings: Settings) -> str:
    """A follow-up ('What did they evaluate it with?') -> a standalone question. A rewrite that
    echoes the history, leaves "they" unresolved or drops what the follow-up asks is replaced by
    both turns."""
    if not history:
        return question
    turns = "\n".join(f"User: {turn}" for turn in history[-4:])
    prompt = render(settings.prompts_dir, "condense", history=turns, question=question)
    rewritten = _first_line(llm.complete(prompt, max_tokens=80).text)
    echoed = len(rewritten) <= 8 or any(_same(rewritten, h) for h in history)
    unresolved = _same(rewritten, question) and _ANAPHOR.search(question)  # "What data were they evaluated on?" as is
    if echoed or unresolved or _drops_question(rewritten, question):
        return both_turns(history, question)
    return rewritten


_CJK_RUN = re.compile(f"(?:{CJK.pattern})+")  # a run of Chinese characters a translation kept


def translate_question(llm, question: str, settings: Settings) -> str:
    """Chinese (any CJK) question -> English for retrieval over English abstracts; the question itself when the
    translation keeps Chinese. Where what it kept is request wording alone (metadata.is_zh_frame: the small model
    reads "库里", "in the library", as the name Curry and keeps it: "How many papers … did库里 write?"), the question
    is translated again without those words, which name no subject."""
    if not CJK.search(question):
        return question
    english = _translation(llm, question, settings)
    kept = _CJK_RUN.findall(english)
    if kept and all(is_zh_frame(run) for run in kept):
        bare = question
        for run in sorted(set(kept), key=len, reverse=True):
            bare = bare.replace(run, " ")
        english = _translation(llm, re.sub(r"\s+", " ", bare).strip(), settings) if CJK.search(bare) else ""
    if not english or CJK.search(english):
        return question
    return keep_latin(question, english)


def _translation(llm, question: str, settings: Settings) -> str:
    prompt = render(settings.prompts_dir, "translate", question=question)
    return _first_line(llm.complete(prompt, max_tokens=80).text)


# a run of Latin-script words in a Chinese question: a title, a name, a term
# ("Vision Transformers Need Registers 这篇论文")
_LATIN_RUN = re.compile(r"[A-Za-z][\w*+.'’α-ωΑ-Ω-]*(?:[ :,&/-]+[A-Za-z0-9][\w*+.'’α-ωΑ-Ω-]*)*")


def keep_latin(question: str, english: str) -> str:
    """The translation with every Latin-script run of the question it dropped put back in front, as written: the
    small model translates "Vision Transformers Need Registers 这篇论文发现了什么问题？" as "What problem does this
    paper address?", and the paper's own title is what retrieval and the name checks need."""
    lowered = english.lower()
    lost = [run for run in dict.fromkeys(m[0].strip(" :,&/-") for m in _LATIN_RUN.finditer(question))
            if run and run.lower() not in lowered]
    return f"{'; '.join(lost)}: {english}" if lost else english
