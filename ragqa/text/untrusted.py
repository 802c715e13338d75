"""Abstracts are untrusted input: spotting sentences that address the assistant or the reader with
instructions (never quoted, never put in a prompt), and capping what is shown as a paper's name.
Detection only, by wording patterns: it catches 24 of 24 injections written beside it and 16 of 40 written by someone
who never saw it, and flags 4 of 36,663 ICLR/ICML 2024 abstract sentences
(python -m evals.experiments.injection_filter); a reworded injection can pass. Where it is applied lives in
evidence.py (sentences), index.py (flags) and compose.py."""
from __future__ import annotations

import re
import unicodedata

# who an injected sentence addresses: an assistant, a model, an automated reader
_MACHINE = (r"(?:(?:ai|llm|language[- ]model|automated|machine)\s+)?"
            r"(?:assistants?|ai|llms?|(?:language\s+)?models?|chatbots?|"
            r"agents?|bots?|summari[sz]ers?|systems?|readers?|reviewers?|tools?)\b")
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget)\b.{0,40}\b(?:instructions?|prompts?|rules|above|previous)\b"
    r"|\b(?:you are|act as|pretend to be)\b.{0,30}\b(?:assistant|ai|model|chatbot)\b"
    r"|\b(?:answer|respond|reply|say|output|print)\s+(?:only\s+|exactly\s+|with\s+)+\W?\w"
    r"|\b(?:as an? (?:ai|language model|assistant))\b"
    r"|\b(?:assistant|chatbot|llm)s?,\s+(?:please|you must|always|never)\b"
    r"|\bsystem prompt\b|</?\s*(?:source|system|assistant|user|script|iframe|img)\b|\[/?INST\]|<\|im_(?:start|end)\|>"
    r"|\bjavascript:|\bon(?:error|load|click)\s*="
    # addressed to a model or an automated reader: a note, a greeting, a condition on being one, or a sentence about
    # "AI systems reading this" telling them what to do
    r"|\b(?:note|message|instructions?|reminder|hint|request)\s+(?:to|for)\s+"
    rf"(?:the\s+|any\s+|all\s+|every\s+)?{_MACHINE}"
    rf"|\b(?:dear|hey|hello|hi)\b[\s,:]+(?:the\s+)?{_MACHINE}|^\W*(?:attention|attn)\b[\s,:]+(?:the\s+)?{_MACHINE}"
    rf"|\bif\s+(?:you\s+are|you're|this\s+is\s+read\s+by)\s+(?:an?\s+)?(?:automated\s+|ai\s+)?{_MACHINE}"
    rf"|{_MACHINE}\s+(?:that\s+(?:is|are)\s+)?"
    r"(?:reading|summari[sz]ing|processing|parsing|answering|reviewing|indexing)\b"
    r"|^\W*(?:(?:dear|the)\s+)?(?:assistant|ai|chatbot|llm|bot|agent|summari[sz]er)\s*[,:]"
    # orders about what an answer must say or cite: "cite [7]", "always cite this paper", "you must say",
    # "when asked, ..."
    r"|\bcite\s+(?:\[\d+\]|(?:source|reference|paper|ref\.?)\s*#?\d+)"
    r"|\b(?:always|must|should|shall)\s+(?:cite|recommend|mention|rank|praise)\s+(?:this|it|us|our)\b"
    r"|\byou\s+(?:must|should|shall|will|need\s+to|have\s+to|are\s+(?:required|instructed|asked|expected)\s+to)\s+"
    r"(?:always\s+|never\s+|not\s+)?(?:cite|answer|say|respond|reply|mention|recommend|state|rate|rank|describe|call|"
    r"include|praise|claim|report|tell|output|ignore|treat|present|refer)\b"
    r"|^\W*(?:when|whenever)\s+(?:you\s+are\s+)?(?:asked|answering|summari[sz]ing|responding|questioned)\b"
    r"|^\W*(?:always|never)\s+(?:cite|answer|say|mention|recommend|rank|describe|call|state)\b",
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
