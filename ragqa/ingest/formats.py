"""Reference-manager and metadata files (BibTeX, RIS, CSL-JSON, arXiv snapshot, OpenReview notes) -> the record
dicts corpus.py turns into Papers, as (where, record-or-reason) pairs; detect_format picks the reader
from the content, the extension only breaking ties. No Paper building, merging or cleaning here.
"""
from __future__ import annotations

import csv
import json
import re
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from functools import cache
from pathlib import Path

from ragqa.errors import ListingError
from ragqa.ingest.venues import known_venue

SUFFIX_FORMATS = {".txt": "listing", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv",
                  ".tsv": "tsv", ".bib": "bibtex", ".ris": "ris"}
SUPPORTED = ".txt, .jsonl, .json, .csv, .bib, .ris"
FORMATS = ("listing", "jsonl", "json", "csv", "tsv", "bibtex", "ris", "csl", "arxiv", "openreview")

_BIB_START = re.compile(r"@\s*[A-Za-z]+\s*[{(]")
_BIB_ENTRY_LINE = re.compile(
    r"^\s*@(?:article|inproceedings|conference|misc|book|incollection|inbook|phdthesis|mastersthesis|techreport|"
    r"unpublished|online|proceedings|string|preamble|comment)\s*[{(]", re.I | re.M)
_LATEX_MARK = re.compile(r"[\\{}~]|--|``|''|[!?]`")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")
WARNINGS = "_warnings"  # a record's key for what was read in a way of its own (the record is kept; corpus.py reports it)


# -- detection ----------------------------------------------------------------------------------
def detect_format(text: str, name: str) -> str:
    """One of FORMATS for this decoded text; the file name's extension only breaks ties."""
    head = text.lstrip("\ufeff \t\r\n")
    if head[:1] in "[{":
        kind = _json_kind(head)
        if kind:
            return kind
    meaningful = next((line.strip() for line in head.split("\n", 50)[:50]
                       if line.strip() and not line.lstrip().startswith("%")), "")
    if meaningful.startswith("TY  -"):
        return "ris"
    if _BIB_START.match(meaningful):
        return "bibtex"
    first = head.split("\n", 1)[0]
    for delimiter, kind in (("\t", "tsv"), (",", "csv")):
        if delimiter in first and "abstract" in {c.strip().lower() for c in next(csv.reader([first], delimiter=delimiter))}:
            return kind
    if _BIB_ENTRY_LINE.search(text):
        return "bibtex"
    if re.search(r"^TY  - ", text[:20000], re.M):
        return "ris"
    return SUFFIX_FORMATS.get(Path(name).suffix.lower(), "listing")


def line_format(head: str) -> str | None:
    """'jsonl' or 'arxiv' when a file's opening text is JSON lines (one record per line, readable as the
    file is read), else None; the same content test as detect_format, which it agrees with."""
    head = head.lstrip("\ufeff \t\r\n")
    kind = _json_kind(head) if head[:1] == "{" else None
    return kind if kind in ("jsonl", "arxiv") else None


def _json_kind(head: str) -> str | None:
    """'arxiv' / 'openreview' from the first record's fields, else our own 'jsonl' or 'json'."""
    lines = [line for line in head.split("\n", 5)[:5] if line.strip()]
    first = _json_or_none(lines[0])
    if isinstance(first, dict) and not isinstance(first.get("notes"), list):
        return _record_kind(first) or "jsonl"
    doc = _json_or_none(head)
    if doc is None:  # not one JSON document: JSON lines whose first line is broken?
        later = [_json_or_none(line) for line in lines[1:]] if head.startswith("{") else []
        return next((_record_kind(d) or "jsonl" for d in later if isinstance(d, dict)), None)
    if isinstance(doc, dict) and isinstance(doc.get("notes"), list):
        return "openreview"
    items = doc if isinstance(doc, list) else [doc]
    return _record_kind(next((i for i in items if isinstance(i, dict)), {})) or "json"


def _json_or_none(text: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _record_kind(record: dict) -> str | None:
    if "authors_parsed" in record or ("categories" in record and "versions" in record):
        return "arxiv"
    if isinstance(record.get("content"), dict):
        return "openreview"
    if isinstance(record.get("issued"), dict) or "container-title" in record or (
            isinstance(record.get("author"), list) and record["author"] and isinstance(record["author"][0], dict)):
        return "csl"  # CSL-JSON (Zotero, Mendeley, Paperpile, pandoc): "author": [{"family", "given"}], "issued"
    return None


def _json_items(text: str):
    """A JSON list, {"notes": [...]}, one JSON value, or JSON lines -> (where, dict-or-reason)."""
    doc = _json_or_none(text)
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


# -- shared cleaning of field values ------------------------------------------------------------
def _one_line(value) -> str:
    return re.sub(r"\s+", " ", str(value or "")).strip()


def _unwrap(value) -> str:
    """Join hard-wrapped lines; spaces within a line are kept (the paper id ignores them anyway)."""
    return re.sub(r"[ \t]*\n\s*", " ", str(value or "")).strip()


def _year_in(value) -> int | None:
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None


def _words(value) -> list[str]:
    items = value if isinstance(value, list) else re.split(r"[;,]", str(value or ""))
    return [w for w in (_one_line(i) for i in items) if w]


def _last_first(name: str) -> str:
    """'Last, First' or 'Last, First, Suffix' (RIS, arXiv) -> 'First Last Suffix'."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 1:
        return _one_line(name)
    return _one_line(" ".join(parts[1:2] + parts[:1] + parts[2:]))


@cache
def _latex_decoder():
    """pylatexenc as bibtexparser sets it up, plus: math kept verbatim, '~' a plain space, the text
    macros our exporter writes for ^ and unbalanced braces, \\url{x} -> x."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, SpecialsTextSpec, get_default_latex_context_db

    db = get_default_latex_context_db()
    db.add_context_category("ragqa", prepend=True, macros=[
        MacroTextSpec("url", simplify_repl="%s"), MacroTextSpec("textasciicircum", "^"),
        MacroTextSpec("textbraceleft", "{"), MacroTextSpec("textbraceright", "}"),
        MacroTextSpec("LaTeX", "LaTeX"), MacroTextSpec("TeX", "TeX"),
    ], specials=[SpecialsTextSpec("~", " ")])
    return LatexNodes2Text(latex_context=db, math_mode="verbatim", keep_braced_groups=False)


_SIMPLE_LATEX = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
                 r"\textbraceleft{}": "{", r"\textbraceright{}": "}", "---": "\u2014", "--": "\u2013",
                 "``": "\u201c", "''": "\u201d", "!`": "\u00a1", "?`": "\u00bf", "~": " ", "{": "", "}": ""}
_SIMPLE_ESCAPES = r"text(?:backslash|asciitilde|asciicircum|braceleft|braceright)\{\}|[%&$#_{}]"  # after a backslash
_SIMPLE_TOKEN = re.compile(r"\\(?:" + _SIMPLE_ESCAPES + r")|---|--|``|''|[!?]`|[{}~]")
_OTHER_MACRO = re.compile(r"\\(?!" + _SIMPLE_ESCAPES + ")")


def decode_latex(value: str) -> str:
    """LaTeX text -> Unicode ({\\"u} -> ü, {GAN}s -> GANs, \\% -> %, math kept as written). A bare
    % or & is taken literally: in a field value it is text, not a comment or a table column."""
    if not _LATEX_MARK.search(value):
        return value
    value = re.sub(r"(?<!\\)([%&])", r"\\\1", value)
    value = value.replace(r"\^{}", r"\textasciicircum{}").replace(r"\~{}", r"\textasciitilde{}")  # Zotero's ^ and ~
    if "$" not in value.replace("\\$", "") and not _OTHER_MACRO.search(value):
        # only escapes, braces and ligatures (what our exporter writes): a table does what pylatexenc would, 50x faster
        return _SIMPLE_TOKEN.sub(lambda m: _SIMPLE_LATEX.get(m.group(), m.group()[1:]), value)
    return _latex_decoder().latex_to_text(value)


# -- BibTeX -------------------------------------------------------------------------------------
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
            alone = bibtexparser.Library([*library.strings, block.ignore_error_block])  # as the parse stack left the rest
            for step in stack:
                alone = step.transform(alone)
            yield block.key, _bibtex_record(alone.entries[0], f"{block.key}#{keys[block.key]}")
        elif isinstance(block, DuplicateBlockKeyBlock):
            kind = "@string" if isinstance(block.ignore_error_block, String) else "key"
            first = (block.previous_block.start_line or 0) + 1
            yield block.key, f"duplicate {kind} (first on line {first}); the one on line {line} is skipped. Rename one of them."
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
    detail = getattr(error, "abort_reason", None) or getattr(error, "message", None) or str(error) or type(error).__name__
    detail = _one_line(detail).rstrip(".")
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
            names.append(_one_line(decode_latex(name)))
    return names, truncated


def _bibtex_record(entry, key: str | None = None) -> dict:
    """An entry's record; `key` is its id when another entry of the file has its citekey (the citekey stays)."""
    fields = {f.key: f.value for f in entry.fields}
    warnings: list[str] = []
    names, truncated = _bibtex_names(fields.get("author") or fields.get("editor"), warnings)

    def text(key: str) -> str:
        return decode_latex(str(fields.get(key) or ""))

    venue = next((v for v in (_one_line(text(k)) for k in _VENUE_FIELDS) if v), "")
    url = _plain(fields.get("url"))
    if re.match(r"(https?:|www\.)", venue):
        url, venue = url or venue, ""
    return {
        "id": key or entry.key, "title": _unwrap(text("title")) or None,
        "authors": ", ".join(names) + " et al." if truncated else names,
        "abstract": _unwrap(text("abstract")), "venue": venue or None,
        "year": _year_in(fields.get("year")) or _year_in(fields.get("date")),
        "keywords": _words(text("keywords")), "doi": _plain(fields.get("doi")), "url": url,
        "eprint": _plain(fields.get("eprint")), "citekey": entry.key, WARNINGS: warnings,
    }


def _plain(value) -> str | None:
    """Identifiers (doi, url, eprint) are not LaTeX text: only drop escapes and braces."""
    value = re.sub(r"\\([_%&#$~])", r"\1", str(value or "")).replace("{", "").replace("}", "").strip()
    return value or None


# -- RIS ----------------------------------------------------------------------------------------
def ris_records(text: str):
    """A .ris file -> ('line n' of each TY tag, record-or-reason). Records end at ER (or at the next TY)."""
    import rispy

    parser = rispy.RisParser()
    record, start, stray = None, 0, False
    for number, line in enumerate(text.lstrip("\ufeff").replace("\r\n", "\n").split("\n"), 1):
        if line.startswith("TY  -"):
            if record:  # no ER before the next TY: end the record here
                yield f"line {start}", _ris_record(parser.parse("\n".join(record + ["ER  - "]))[0])
            record, start = [line], number
        elif record is not None:
            record.append(line)
            if line.startswith("ER  -"):
                yield f"line {start}", _ris_record(parser.parse("\n".join(record))[0])
                record = None
        elif line.strip():
            if not stray:  # one reason per run of stray lines
                yield f"line {number}", "text outside a record (records run from 'TY  - ' to 'ER  - '); ignored"
            stray = True
            continue
        stray = False
    if record:
        yield f"line {start}", _ris_record(parser.parse("\n".join(record + ["ER  - "]))[0])


def _ris_record(entry: dict) -> dict:
    unknown = entry.get("unknown_tag") or {}
    first = lambda *keys: next((_one_line(v[0] if isinstance(v, list) else v)  # noqa: E731
                                for v in (entry.get(k) or unknown.get(k) for k in keys) if v), None)
    return {
        "id": first("id"), "title": first("title", "primary_title", "translated_title"),
        "authors": [_last_first(a) for a in entry.get("authors") or entry.get("first_authors") or [] if a.strip()],
        "abstract": _unwrap(entry.get("abstract") or entry.get("notes_abstract")),
        "venue": first("secondary_title", "alternate_title3", "journal_name", "BT", "alternate_title2", "alternate_title1"),
        "year": _year_in(entry.get("year")) or _year_in(entry.get("publication_year")) or _year_in(entry.get("date")),
        "keywords": _words(entry.get("keywords") or []), "doi": first("doi"), "url": first("urls"),
    }


# -- arXiv metadata snapshot --------------------------------------------------------------------
def arxiv_records(text: str):
    """Kaggle's arxiv-metadata-oai-snapshot lines (or a JSON list of them) -> (where, record-or-reason)."""
    for where, row in _json_items(text):
        yield where, row if isinstance(row, str) else arxiv_record(row)


def arxiv_record(row: dict) -> dict | str:
    """One arXiv metadata row -> our record (or the reason it is skipped)."""
    arxiv_id = _one_line(row.get("id"))
    if not arxiv_id:
        return "no arXiv 'id'"
    parsed = row.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        authors = [_one_line(decode_latex(" ".join(str(p) for p in (name[1:2] + name[:1] + name[2:]) if str(p).strip())))
                   for name in parsed if isinstance(name, list) and name]
    else:
        authors = _one_line(decode_latex(str(row.get("authors") or "")))
    categories = _one_line(row.get("categories")).split()
    journal = _one_line(row.get("journal-ref"))
    venue = journal if known_venue(journal) else f"arXiv {categories[0]}" if categories else "arXiv"  # published there
    return {
        "id": f"arXiv:{arxiv_id}", "title": _one_line(decode_latex(str(row.get("title") or ""))) or None,
        "authors": authors, "abstract": _one_line(row.get("abstract")),
        "venue": venue, "year": _year_in(journal) if venue == journal and _year_in(journal) else _arxiv_year(row),
        "eprint": arxiv_id, "categories": " ".join(categories), "doi": _one_line(row.get("doi")),
        "journal_ref": _one_line(row.get("journal-ref")), "url": f"https://arxiv.org/abs/{arxiv_id}",
    }


def _arxiv_year(row: dict) -> int | None:
    versions = row.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        try:
            return parsedate_to_datetime(str(versions[0].get("created"))).year
        except (TypeError, ValueError):
            pass
    return _year_in(row.get("update_date"))


# -- OpenReview notes ---------------------------------------------------------------------------
_STATUS = (("Oral", r"\boral\b|notable[- _]top[- _]5\b"), ("Spotlight", r"\bspotlight\b|notable[- _]top[- _]25\b"),
           ("Poster", r"\bposter\b"), ("Withdrawn", r"withdrawn"), ("Reject", r"reject"))


def openreview_records(text: str):
    """OpenReview API notes (v1 plain values or v2 {"value": ...}) as a JSON list, {"notes": [...]}
    or JSON lines -> (where, record-or-reason)."""
    for where, note in _json_items(text):
        yield where, note if isinstance(note, str) else _openreview_record(note)


def _value(value):
    return value.get("value") if isinstance(value, dict) and "value" in value else value


def _openreview_record(note: dict) -> dict | str:
    content = note.get("content")
    if not isinstance(content, dict):
        return "no 'content' object: not an OpenReview note"
    c = {k: _value(v) for k, v in content.items()}
    venue_text, venueid = _one_line(c.get("venue")), _one_line(c.get("venueid") or _value(note.get("venueid")))
    status = _status(venue_text) or _status(_decision(note, c)) or _status(venueid.replace("_", " "))
    date = note.get("pdate") or note.get("cdate") or note.get("tcdate")
    year = _year_in(venue_text) or _year_in(venueid)
    if year is None and isinstance(date, (int, float)):
        year = datetime.fromtimestamp(date / 1000, tz=timezone.utc).year
    forum = _one_line(note.get("forum") or note.get("id"))
    authors = c.get("authors")
    return {
        "id": _one_line(note.get("id") or note.get("forum")) or None, "title": _one_line(c.get("title")) or None,
        "authors": [_one_line(a) for a in authors] if isinstance(authors, list) else _one_line(authors),
        "abstract": _unwrap(c.get("abstract")), "venue": _venue_name(venue_text) or _venueid_name(venueid),
        "year": year, "topic": _one_line(c.get("primary_area")).replace("_", " ") or None,
        "keywords": _words(c.get("keywords") or []), "status": status,
        "url": f"https://openreview.net/forum?id={forum}" if forum else None,
    }


def _decision(note: dict, content: dict) -> str:
    if content.get("decision"):
        return str(content["decision"])
    details = note.get("details") if isinstance(note.get("details"), dict) else {}
    for reply in (details.get("directReplies") or details.get("replies") or []):
        decision = _value((reply.get("content") or {}).get("decision")) if isinstance(reply, dict) else None
        if decision:
            return str(decision)
    return ""


def _status(text: str) -> str | None:
    return next((name for name, pattern in _STATUS if re.search(pattern, text, re.I)), None)


def _venue_name(venue: str) -> str | None:
    """'ICLR 2024 oral' -> 'ICLR 2024'; 'Submitted to ICLR 2024' -> 'ICLR 2024'."""
    venue = re.sub(r"^(submitted to|under review as [^,]* at)\s+", "", venue, flags=re.I)
    venue = re.split(r"\s+(?:oral|spotlight|poster|notable\b|accept|reject|withdrawn|desk\b)", venue, flags=re.I)[0]
    return venue.strip(" ,") or None


def _venueid_name(venueid: str) -> str | None:
    """'ICLR.cc/2024/Conference' -> 'ICLR 2024'; workshops keep their name."""
    parts = [p for p in venueid.split("/") if p]
    if not parts:
        return None
    words = [re.sub(r"\.(cc|org|com|net|ai)$", "", parts[0])]
    words += [p.replace("_", " ") for p in parts[1:]
              if p not in ("Conference", "Track") and not re.search(r"submission|reject|withdrawn", p, re.I)]
    return " ".join(words) or None


# -- CSL-JSON ------------------------------------------------------------------------------------
def csl_records(text: str):
    """CSL-JSON, the export of Zotero, Mendeley and Paperpile (a JSON list of items, or JSON lines) -> (where,
    record-or-reason); the item's id is kept as its citekey."""
    for where, item in _json_items(text):
        yield where, item if isinstance(item, str) else _csl_record(item)


def _csl_name(name) -> str:
    if not isinstance(name, dict):
        return _one_line(name)
    if name.get("literal"):
        return _one_line(name["literal"])
    parts = (name.get("given"), name.get("non-dropping-particle") or name.get("dropping-particle"), name.get("family"),
             name.get("suffix"))
    return " ".join(_one_line(p) for p in parts if p)


def _csl_year(issued) -> int | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return _year_in(str(parts[0][0]))
        return _year_in(issued.get("raw") or issued.get("literal") or "")
    return _year_in(str(issued or ""))


def _csl_record(item: dict) -> dict:
    authors = item.get("author") if isinstance(item.get("author"), list) else []
    venue = next((_one_line(item.get(k)) for k in ("container-title", "event-title", "collection-title", "publisher")
                  if item.get(k)), "")
    keywords = item.get("keyword")
    return {
        "id": _one_line(item.get("id")) or None, "title": _one_line(item.get("title")) or None,
        "authors": [n for n in (_csl_name(a) for a in authors) if n], "abstract": _unwrap(item.get("abstract")),
        "venue": venue or None, "year": _csl_year(item.get("issued")),
        "keywords": _words(keywords if isinstance(keywords, (str, list)) else ""),
        "doi": _one_line(item.get("DOI")) or None, "url": _one_line(item.get("URL")) or None,
        "citekey": _one_line(item.get("citation-key") or item.get("id")) or None,
    }


READERS = {"bibtex": bibtex_records, "ris": ris_records, "csl": csl_records, "arxiv": arxiv_records,
           "openreview": openreview_records}


def read_records(text: str, fmt: str):
    """(where, record-or-reason) for a library format; ListingError names an unknown one."""
    if fmt not in READERS:
        raise ListingError(f"no reader for format {fmt!r}. Use one of {', '.join(READERS)}.")
    return READERS[fmt](text)
