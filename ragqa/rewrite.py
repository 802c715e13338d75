"""LLM query rewrites before retrieval: follow-up condensing and translation to English."""
from __future__ import annotations

import re

from .clean import CJK
from .config import Settings
from .prompts import render



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
    if len(rewritten) <= 8 or rewritten.lower().strip("?") in {h.lower().strip("?") for h in history}:
        return f"{history[-1]} {question}"  # the model echoed the history: fall back to both turns
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
