"""LLM query rewrites before retrieval: follow-up condensing and translation to English."""
from __future__ import annotations

import re

from .clean import CJK
from .config import Settings
from .prompts import render


# words that point back at an earlier turn ("they", "either of them", "this paper")
_ANAPHOR = re.compile(r"\b(?:they|them|their|these|those|either|both|its|it(?! is| was)(?!\s+(?:possible|true|feasible|necessary|worth|better|important|hard|easy)\b)|this (?:paper|work|method|model|approach)|the (?:paper|authors|method))\b|它|他们|这篇|这些|那些|该论文|该方法", re.I)


def _same(a: str, b: str) -> bool:
    return re.sub(r"\W+", " ", a).strip().lower() == re.sub(r"\W+", " ", b).strip().lower()


def _first_line(text: str) -> str:
    text = text.strip().strip('"').strip()
    line = next((l.strip() for l in text.splitlines() if l.strip()), "")
    return re.sub(r"^(standalone question|question|english)\s*:\s*", "", line, flags=re.I).strip('"')


def condense_question(llm, history: list[str], question: str, settings: Settings) -> str:
    """A follow-up ('What did they evaluate it with?') -> a standalone question."""
    if not history:
        return question
    turns = "\n".join(f"User: {turn}" for turn in history[-4:])
    prompt = render(settings.prompts_dir, "condense", history=turns, question=question)
    rewritten = _first_line(llm.complete(prompt, max_tokens=80).text)
    echoed = len(rewritten) <= 8 or any(_same(rewritten, h) for h in history)
    unresolved = _same(rewritten, question) and _ANAPHOR.search(question)  # "What data were they evaluated on?" as is
    if echoed or unresolved:
        return f"{history[-1]} {question}"  # fall back to both turns
    return rewritten


def translate_question(llm, question: str, settings: Settings) -> str:
    """Chinese (any CJK) question -> English for retrieval over English abstracts."""
    if not CJK.search(question):
        return question
    prompt = render(settings.prompts_dir, "translate", question=question)
    english = _first_line(llm.complete(prompt, max_tokens=80).text)
    if not english or CJK.search(english):
        return question
    return english
