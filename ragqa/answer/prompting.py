"""Numbered sources and a question -> the chat messages for the LLM (system prompt, worked examples,
<source> blocks, the answer's language), and the refusal sentence those messages ask for, recognised in
a reply. Loading and checking the templates is prompts.py's; choosing the evidence is evidence.py's.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from ragqa.answer.guards import WorkedExamples
from ragqa.answer.records import Source
from ragqa.config import Settings
from ragqa.models.prompts import example_turns, render
from ragqa.text.clean import CJK

REFUSAL = "The indexed papers do not answer this question."
_REFUSAL_HINTS = re.compile(r"do not answer this question|don't answer this question|cannot answer"
                            r"|无法回答|不能回答|没有.{0,8}(回答|涉及|提到)", re.I)
_DELIM = re.compile(r"</?\s*source[^>]*>", re.I)


def render_sources(sources: list[Source], settings: Settings) -> str:
    blocks = []
    for s in sources:
        evidence = _DELIM.sub(" ", " ".join(s.evidence))  # an abstract cannot close its own block
        label = _DELIM.sub(" ", s.hit.meta.get("label") or "")
        label = label if len(label) <= 40 else label[:38].rsplit(" ", 1)[0] + "…"
        blocks.append(render(settings.prompts_dir, "source", n=s.n, label=label,
                             venue=s.hit.meta.get("venue") or "venue unknown", evidence=evidence))
    return "\n".join(blocks)


def answer_language(question: str) -> str:
    return "Chinese (简体中文)" if CJK.search(question) else "English"


def build_messages(question: str, sources: list[Source], settings: Settings,
                   offer_refusal: bool = True) -> list[ChatMessage]:
    """System + worked examples first (a fixed prefix the KV cache reuses), then the sources.
    `offer_refusal=False` (a model profile whose refusal is not trusted) leaves the refusal rule and the
    refusal examples out: the answerability model has accepted the question, so the model is asked to answer."""
    rule = render(settings.prompts_dir, "refusal", refusal=REFUSAL) + "\n" if offer_refusal else ""
    system = render(settings.prompts_dir, "system", max_sentences=4, refusal_rule=rule)
    messages = [ChatMessage(role=MessageRole.SYSTEM, content=system)]
    language = answer_language(question)
    turns = example_turns(settings.prompts_dir)
    if offer_refusal:
        turns += example_turns(settings.prompts_dir, "examples_refusal", refusal=REFUSAL)
    if language != "English":  # last, so English prompts keep their cached prefix
        turns += example_turns(settings.prompts_dir, "examples_zh")
    for role, text in turns:
        messages.append(ChatMessage(role=MessageRole.USER if role == "user" else MessageRole.ASSISTANT, content=text))
    messages.append(ChatMessage(role=MessageRole.USER, content=render(
        settings.prompts_dir, "qa", sources=render_sources(sources, settings), question=question,
        language=language)))
    return messages


@lru_cache(maxsize=8)
def worked_examples(prompts_dir: Path) -> WorkedExamples:
    """Every worked example's answer wording and paper names (English, refusal and Chinese examples), for the
    example-leak guard."""
    from ragqa.text.sentences import text_units  # evidence.py renders sources with this module

    turns = (example_turns(prompts_dir) + example_turns(prompts_dir, "examples_refusal", refusal=REFUSAL)
             + example_turns(prompts_dir, "examples_zh"))
    answers = " ".join(text for role, text in turns if role == "assistant")
    names = dict.fromkeys(m.group(1) for role, text in turns if role == "user"
                          for m in re.finditer(r"^Paper:\s*(.+?)\s*\(", text, re.M))
    return WorkedExamples(frozenset(text_units(answers) - text_units(REFUSAL)), tuple(names))


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL_HINTS.search(text))
