"""Which format a file is in, told from its content (the extension only breaking ties), and the reader of each
library format (bibtex.py, ris_csl.py, arxiv_openreview.py), whose (where, record-or-reason) pairs records.py
turns into Papers. The formats themselves are read in those modules, not here.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path

from ragqa.errors import ListingError
from ragqa.ingest.arxiv_openreview import arxiv_records, openreview_records
from ragqa.ingest.bibtex import bibtex_records
from ragqa.ingest.fields import json_or_none
from ragqa.ingest.ris_csl import csl_records, ris_records

SUFFIX_FORMATS = {".txt": "listing", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv",
                  ".tsv": "tsv", ".bib": "bibtex", ".ris": "ris"}
SUPPORTED = ".txt, .jsonl, .json, .csv, .bib, .ris"
FORMATS = ("listing", "jsonl", "json", "csv", "tsv", "bibtex", "ris", "csl", "arxiv", "openreview")

_BIB_START = re.compile(r"@\s*[A-Za-z]+\s*[{(]")
_BIB_ENTRY_LINE = re.compile(
    r"^\s*@(?:article|inproceedings|conference|misc|book|incollection|inbook|phdthesis|mastersthesis|techreport|"
    r"unpublished|online|proceedings|string|preamble|comment)\s*[{(]", re.I | re.M)


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
        if delimiter in first and "abstract" in {c.strip().lower()
                                                 for c in next(csv.reader([first], delimiter=delimiter))}:
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
    first = json_or_none(lines[0])
    if isinstance(first, dict) and not isinstance(first.get("notes"), list):
        return _record_kind(first) or "jsonl"
    doc = json_or_none(head)
    if doc is None:  # not one JSON document: JSON lines whose first line is broken?
        later = [json_or_none(line) for line in lines[1:]] if head.startswith("{") else []
        return next((_record_kind(d) or "jsonl" for d in later if isinstance(d, dict)), None)
    if isinstance(doc, dict) and isinstance(doc.get("notes"), list):
        return "openreview"
    items = doc if isinstance(doc, list) else [doc]
    return _record_kind(next((i for i in items if isinstance(i, dict)), {})) or "json"


def _record_kind(record: dict) -> str | None:
    if "authors_parsed" in record or ("categories" in record and "versions" in record):
        return "arxiv"
    if isinstance(record.get("content"), dict):
        return "openreview"
    if isinstance(record.get("issued"), dict) or "container-title" in record or (
            isinstance(record.get("author"), list) and record["author"] and isinstance(record["author"][0], dict)):
        return "csl"  # CSL-JSON (Zotero, Mendeley, Paperpile, pandoc): "author": [{"family", "given"}], "issued"
    return None


READERS = {"bibtex": bibtex_records, "ris": ris_records, "csl": csl_records, "arxiv": arxiv_records,
           "openreview": openreview_records}


def read_records(text: str, fmt: str):
    """(where, record-or-reason) for a library format; ListingError names an unknown one."""
    if fmt not in READERS:
        raise ListingError(f"no reader for format {fmt!r}. Use one of {', '.join(READERS)}.")
    return READERS[fmt](text)
