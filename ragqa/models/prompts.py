"""Prompt templates from prompts/*.md with their {placeholders} checked at load time."""
from __future__ import annotations

import re
import string
from functools import lru_cache
from pathlib import Path

from ragqa.errors import PromptError

# template name -> placeholders it must use (no more, no fewer)
REQUIRED = {
    "system": {"max_sentences", "refusal_rule"},
    "refusal": {"refusal"},
    "qa": {"sources", "question", "language"},
    "source": {"n", "label", "venue", "evidence"},
    "examples": set(),
    "examples_refusal": {"refusal"},
    "examples_zh": set(),
    "condense": {"history", "question"},
    "translate": {"question"},
    "generate": {"abstract"},
    "subject": {"words"},
}


OPTIONAL = {"examples", "examples_refusal", "examples_zh"}  # may use any subset of its placeholders


@lru_cache(maxsize=64)
def load_prompt(prompts_dir: Path, name: str) -> str:
    path = Path(prompts_dir) / f"{name}.md"
    if not path.is_file():
        raise PromptError(f"Prompt template {path} is missing. Restore it from the repository.")
    text = path.read_text("utf-8")
    found = {field for _, field, _, _ in string.Formatter().parse(text) if field}
    want = REQUIRED.get(name)
    if want is not None and (found != want if name not in OPTIONAL else not found <= want):
        raise PromptError(f"{path}: placeholders {sorted(found)} do not match {sorted(want)}. Fix the template.")
    return text


def render(prompts_dir: Path, name: str, **values) -> str:
    return load_prompt(prompts_dir, name).format(**values).strip()


def example_turns(prompts_dir: Path, name: str = "examples", **values) -> list[tuple[str, str]]:
    """prompts/<name>.md -> [(role, text)] few-shot turns ('### user' / '### assistant' blocks)."""
    return prompt_turns(prompts_dir, name, **values)[1]


def prompt_turns(prompts_dir: Path, name: str, **values) -> tuple[str, list[tuple[str, str]]]:
    """prompts/<name>.md -> (the text before its first block, [(role, text)] of its '### user' / '### assistant'
    blocks)."""
    head, *blocks = re.split(r"^### (user|assistant)\s*$", render(prompts_dir, name, **values), flags=re.M)
    return head.strip(), [(blocks[i], blocks[i + 1].strip()) for i in range(0, len(blocks), 2)]
