"""Whether the words a question about the collection leaves once its filters and request wording go name a research
subject, asked of the LLM with a few worked turns (prompts/subject.md): "each one find", "save", 主要提出了什么 do not,
"tabular data" and "NeRF" do; when they do, which of them name it (subject_phrase: "overfitting" of "overfitting
reading list", so the topical model scores the subject, not the request words beside it). Word lists cannot tell: any
list misses the next request verb, and a verb may be a subject elsewhere. The rules (metadata.subject_of) read the
words; lists.py asks this only when no paper is firmly on them, so a wrong "no" can only turn a refusal into the
filter's papers.
"""
from __future__ import annotations

import re
from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from ragqa.errors import LLMUnavailableError
from ragqa.models.prompts import prompt_turns


def subject_messages(prompts_dir: Path, words: str, name: str = "subject") -> list[ChatMessage]:
    """prompts/<name>.md (subject.md, subject_phrase.md) as chat turns: its first paragraph the system turn, then
    '### user' / '### assistant' blocks, the last user block the words."""
    system, turns = prompt_turns(prompts_dir, name, words=words)
    return [ChatMessage(role=MessageRole.SYSTEM, content=system)] + [
        ChatMessage(role=MessageRole.USER if role == "user" else MessageRole.ASSISTANT, content=text)
        for role, text in turns]


def names_subject(llm, words: str, prompts_dir: Path) -> bool:
    """False only when the LLM says the `words` name no research subject; an LLM that cannot answer, or answers
    anything but NO, leaves the rules' reading: a subject."""
    try:
        reply = llm.chat(subject_messages(prompts_dir, words), max_tokens=4).message.content or ""
    except LLMUnavailableError:
        return True
    return not re.match(r"\s*(?:NO|不是|否)\b", reply, re.I)


def subject_phrase(llm, words: str, prompts_dir: Path) -> str:
    """The words of `words` that name its research subject, once names_subject has said some do ("overfitting" of
    "overfitting reading list"), asked of the LLM (prompts/subject_phrase.md); `words` itself when the reply is not
    a part of them (copied word for word) or the LLM cannot answer."""
    try:
        reply = llm.chat(subject_messages(prompts_dir, words, "subject_phrase"), max_tokens=16).message.content or ""
    except LLMUnavailableError:
        return words
    given, kept = words.casefold().split(), reply.strip().strip(".").casefold().split()
    return " ".join(kept) if kept and len(kept) < len(given) and all(w in given for w in kept) else words
