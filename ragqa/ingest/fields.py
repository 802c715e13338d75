"""What the library-format readers share: a field value made one line or unwrapped, the year in it, its list of
words, the items of a JSON file, and the key under which a record carries its warnings. No format's own rules.
"""
from __future__ import annotations

import json
import re

_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")
# a record's key for what was read in a way of its own (the record is kept; records.py reports it)
WARNINGS = "_warnings"


def json_or_none(text: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def json_items(text: str):
    """A JSON list, {"notes": [...]}, one JSON value, or JSON lines -> (where, dict-or-reason)."""
    doc = json_or_none(text)
    if isinstance(doc, dict) and isinstance(doc.get("notes"), list):
        doc = doc["notes"]
    if doc is not None:
        for i, item in enumerate(doc if isinstance(doc, list) else [doc]):
            yield f"item {i}", item if isinstance(item, dict) else "not a JSON object"
        return
    for number, line in enumerate(text.split("\n"), 1):  # not splitlines(): U+2028 may sit inside a string
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError) as exc:
            yield f"line {number}", f"invalid JSON ({getattr(exc, 'msg', None) or type(exc).__name__})"
            continue
        yield f"line {number}", item if isinstance(item, dict) else "not a JSON object"


def one_line(value) -> str:
    return re.sub(r"\s+", " ", str(value or "")).strip()


def unwrap(value) -> str:
    """Join hard-wrapped lines; spaces within a line are kept (the paper id ignores them anyway)."""
    return re.sub(r"[ \t]*\n\s*", " ", str(value or "")).strip()


def year_in(value) -> int | None:
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None


def word_list(value) -> list[str]:
    items = value if isinstance(value, list) else re.split(r"[;,]", str(value or ""))
    return [w for w in (one_line(i) for i in items) if w]
