"""The sentences the answer path writes in code (lists' lead lines, counts, record answers, abstentions), per
language, from ragqa/answer/messages/<lang>.toml: a new language is a file, not branches. The language is the
question's (Chinese when it has CJK characters, else English). Every file holds the English file's keys, and a template
uses only the placeholders the English one has (checked when a file is read)."""
from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from ragqa.errors import RagqaError
from ragqa.text.clean import CJK

FOLDER = Path(__file__).with_name("messages")
LANGUAGES = ("en", "zh")


def language_of(text: str) -> str:
    return "zh" if CJK.search(text or "") else "en"


def _placeholders(template) -> set[str]:
    texts = template if isinstance(template, list) else [template]
    return {name for text in texts for name in re.findall(r"{(\w+)}", text)}


@lru_cache(maxsize=None)
def _read(lang: str) -> dict[str, dict]:
    path = FOLDER / f"{lang}.toml"
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RagqaError(f"Cannot read the messages file {path} ({exc}). Restore it from the repository.") from None
    if lang != "en":
        english = _read("en")
        for section, entries in english.items():
            for key, template in entries.items():
                theirs = table.get(section, {}).get(key)
                if theirs is None:
                    raise RagqaError(f"{path} has no [{section}] {key}; every language holds en.toml's keys.")
                extra = _placeholders(theirs) - _placeholders(template)
                if extra:
                    raise RagqaError(f"{path} [{section}] {key} uses {sorted(extra)}, which en.toml's does not.")
    return table


class Messages:
    """`m("lead.all", total=3, ...)` -> the language's template filled; `m.plural("paper", n)` -> its word for n."""

    def __init__(self, lang: str):
        self.lang = lang
        self._table = _read(lang)

    def __call__(self, message: str, /, **values) -> str:
        section, name = message.split(".", 1)
        return self._table[section][name].format(**values)

    def plural(self, word: str, n: int) -> str:
        one, many = self._table["plural"][word]
        return one if n == 1 else many


def messages(question: str) -> Messages:
    """The messages in the question's language."""
    return _messages(language_of(question))


@lru_cache(maxsize=None)
def _messages(lang: str) -> Messages:
    return Messages(lang)
