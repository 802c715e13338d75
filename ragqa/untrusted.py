"""Abstracts are untrusted input: spotting sentences that address the assistant or the reader with
instructions (never quoted, never put in a prompt), and capping what is shown as a paper's name.
Detection only; where it is applied lives in evidence.py (sentences), index.py (flags) and compose.py."""
from __future__ import annotations

import re
import unicodedata

_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget)\b.{0,40}\b(?:instructions?|prompts?|rules|above|previous)\b"
    r"|\b(?:you are|act as|pretend to be)\b.{0,30}\b(?:assistant|ai|model|chatbot)\b"
    r"|\b(?:answer|respond|reply|say|output|print)\s+(?:only\s+|exactly\s+|with\s+)+\W?\w"
    r"|\b(?:as an? (?:ai|language model|assistant))\b|\b(?:assistant|chatbot|llm)s?,\s+(?:please|you must|always|never)\b"
    r"|\bsystem prompt\b|</?\s*(?:source|system|assistant|user|script|iframe|img)\b|\[/?INST\]|<\|im_(?:start|end)\|>"
    r"|\bjavascript:|\bon(?:error|load|click)\s*=",
    re.I)
TITLE_MAX = 300
_ROLE_MARKERS = re.compile(r"<\|[a-z_]{2,20}\|>|\[/?INST\]|<</?SYS>>", re.I)


def is_instruction(sentence: str) -> bool:
    """A sentence that talks to the model or the reader (or carries markup), not about research."""
    return bool(_INSTRUCTION.search(sentence))


def instruction_sentences(sentences: list[str]) -> list[str]:
    return [s for s in sentences if is_instruction(s)]


def capped(name: str, limit: int = TITLE_MAX) -> str:
    """A title or label shown as data: one line, at most `limit` characters."""
    name = re.sub(r"\s+", " ", name).strip()
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def strip_controls(text: str) -> str:
    """Without control and format characters (zero-width, bidi overrides, escape codes; newlines and
    tabs kept) and chat-template role markers (<|im_start|>, [INST], <<SYS>>)."""
    if not text.isprintable():  # printable text has no Cc/Cf character: the per-character pass is for the rest
        text = "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf"))
    return _ROLE_MARKERS.sub(" ", text)
