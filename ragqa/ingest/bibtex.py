"""A .bib file -> (citekey, record-or-reason) pairs through bibtexparser: @string macros resolved (also in '#'
concatenations), names split by BibTeX's rules, LaTeX decoded, a malformed entry skipped with a reason. No
Paper building here (records.py).
"""
from __future__ import annotations

import re
from functools import cache

from ragqa.ingest.fields import WARNINGS, one_line, unwrap, word_list, year_in
from ragqa.ingest.latex import decode_latex

_MONTHS = {m: m for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")}
_VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "venue", "eventtitle", "howpublished", "school", "institution")


def _concat_parts(value: str) -> list[str] | None:
    """`a # "b" # {c}` -> ['a', '"b"', '{c}'] (splits on '#' outside braces and quotes)."""
    parts, depth, quoted, start, i = [], 0, False, 0, 0
    while i < len(value):
        char = value[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
        i += 1
    parts.append(value[start:].strip())
    return parts if depth == 0 and not quoted else None


def _expand(value: str, macros: dict[str, str]) -> str | None:
    """A raw field value with @string macros and '#' concatenation resolved, re-enclosed in braces."""
    out = []
    for part in _concat_parts(value) or [value]:
        if part[:1] + part[-1:] in ("{}", '""') and len(part) >= 2:
            out.append(part[1:-1])
        elif part.isdigit():
            out.append(part)
        elif part.lower() in macros:
            out.append(macros[part.lower()])
        else:
            return None
    return "{" + "".join(out) + "}"


class _ResolveStrings:
    """Parse-stack step (bibtexparser calls transform(library)): @string macros, also inside '#'
    concatenations, which bibtexparser's ResolveStringReferencesMiddleware leaves unresolved."""

    def transform(self, library):
        macros = dict(_MONTHS)
        for string in library.strings:
            expanded = _expand(string.value, macros)
            macros[string.key.lower()] = expanded[1:-1] if expanded else string.value.strip('{}"')
        for entry in library.entries:
            for field in entry.fields:
                value = field.value
                if isinstance(value, str) and ("#" in value or value[:1] not in '{"') and not value.isdigit():
                    field.value = _expand(value, macros) or value
        return library


@cache
def _quiet_bibtexparser() -> None:
    import logging

    # bibtexparser logs each malformed block as a multi-line warning; bibtex_records reports it as a Skip.
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)


def bibtex_records(text: str):
    """A .bib file -> (citekey or 'line n', record-or-reason), in file order. Entries keep their
    citekey as id; @string macros are resolved; @comment, @preamble and text between entries are ignored."""
    import bibtexparser
    from bibtexparser.middlewares import (
        NormalizeFieldKeys,
        RemoveEnclosingMiddleware,
    )
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, Entry, ParsingFailedBlock, String

    _quiet_bibtexparser()
    stack = [_ResolveStrings(), RemoveEnclosingMiddleware(), NormalizeFieldKeys()]  # names: _bibtex_names, per entry
    library = bibtexparser.parse_string(text, parse_stack=stack)
    keys: dict[str, int] = {}
    for block in library.blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, DuplicateBlockKeyBlock) and isinstance(block.ignore_error_block, Entry):
            # a citekey is a label, not a paper's identity (raw exports repeat them): both are the user's papers
            keys[block.key] = keys.get(block.key, 1) + 1
            # alone, as the parse stack left the rest
            alone = bibtexparser.Library([*library.strings, block.ignore_error_block])
            for step in stack:
                alone = step.transform(alone)
            yield block.key, _bibtex_record(alone.entries[0], f"{block.key}#{keys[block.key]}")
        elif isinstance(block, DuplicateBlockKeyBlock):
            kind = "@string" if isinstance(block.ignore_error_block, String) else "key"
            first = (block.previous_block.start_line or 0) + 1
            yield block.key, (f"duplicate {kind} (first on line {first}); the one on line {line} is skipped. "
                              "Rename one of them.")
        elif isinstance(block, DuplicateFieldKeyBlock):
            entry = block.ignore_error_block
            yield entry.key, f"field {', '.join(sorted(block.duplicate_keys))} given twice (line {line}). Keep one."
        elif isinstance(block, ParsingFailedBlock):
            yield f"line {line}", _failure_reason(block)
        elif isinstance(block, Entry):
            yield block.key, _bibtex_record(block)


def _failure_reason(block) -> str:
    head = re.match(r"\s*@\s*(\w+)\s*[{(]\s*([^,\s}]*)", block.raw or "")
    what = f"@{head.group(1)} entry {head.group(2)!r}" if head and head.group(2) else "entry"
    error = block.error
    detail = (getattr(error, "abort_reason", None) or getattr(error, "message", None) or str(error)
              or type(error).__name__)
    detail = one_line(detail).rstrip(".")
    return f"malformed {what}: {detail}. Fix it in the .bib file (unbalanced braces or quotes, or a missing comma)."


def _bibtex_names(value: str, warnings: list[str]) -> tuple[list[str], bool]:
    """An author field -> (names first-name-first, whether it ends in 'and others'). A name BibTeX's rules cannot split
    ("weihongluo," in an official proceedings export) is tried without its stray commas, else kept as written, with a
    warning: one sloppy name no longer costs the whole entry."""
    from bibtexparser.middlewares.names import (
        InvalidNameError,
        parse_single_name_into_parts,
        split_multiple_persons_names,
    )

    names, truncated = [], False
    for raw in split_multiple_persons_names(str(value or "")):
        raw = raw.strip()
        if raw.lower() == "others":
            truncated = True
            continue
        name = None
        for attempt in dict.fromkeys((raw, raw.strip(" ,"))):
            try:
                name = parse_single_name_into_parts(attempt).merge_first_name_first
                break
            except InvalidNameError:
                continue
        if name is None or attempt != raw:
            name = name if name is not None else raw.strip(" ,")
            warnings.append(f"author {raw!r} read as {name!r}")
        if name.strip():
            names.append(one_line(decode_latex(name)))
    return names, truncated


def _bibtex_record(entry, key: str | None = None) -> dict:
    """An entry's record; `key` is its id when another entry of the file has its citekey (the citekey stays)."""
    fields = {f.key: f.value for f in entry.fields}
    warnings: list[str] = []
    names, truncated = _bibtex_names(fields.get("author") or fields.get("editor"), warnings)

    def text(key: str) -> str:
        return decode_latex(str(fields.get(key) or ""))

    venue = next((v for v in (one_line(text(k)) for k in _VENUE_FIELDS) if v), "")
    url = _plain(fields.get("url"))
    if re.match(r"(https?:|www\.)", venue):
        url, venue = url or venue, ""
    return {
        "id": key or entry.key, "title": unwrap(text("title")) or None,
        "authors": ", ".join(names) + " et al." if truncated else names,
        "abstract": unwrap(text("abstract")), "venue": venue or None,
        "year": year_in(fields.get("year")) or year_in(fields.get("date")),
        "keywords": word_list(text("keywords")), "doi": _plain(fields.get("doi")), "url": url,
        "eprint": _plain(fields.get("eprint")), "citekey": entry.key, WARNINGS: warnings,
    }


def _plain(value) -> str | None:
    """Identifiers (doi, url, eprint) are not LaTeX text: only drop escapes and braces."""
    value = re.sub(r"\\([_%&#$~])", r"\1", str(value or "")).replace("{", "").replace("}", "").strip()
    return value or None
