"""Flat records (a JSONL line, a CSV row, a JSON item, the dicts formats.py's readers give) -> Papers: fields
typed and bounded, a malformed field kept as written with a warning, a bad record skipped with a reason, a
source id given twice with different text refused. Which format a file is in is formats.py's.
"""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace

from ragqa.errors import ListingError
from ragqa.ingest.fields import WARNINGS
from ragqa.ingest.paper import LoadReport, Paper, Skip, make_paper, split_authors, year_of
from ragqa.ingest.venues import canonical_venue
from ragqa.text.clean import make_label

_RECORD_FIELDS = {"id", "title", "authors", "abstract", "venue", "year", "topic", "text"}


def _text_field(record: dict, *names: str) -> str:
    """A text field as a string; a list, dict or number where text belongs skips the record.
    Lone surrogates (from "\\ud800" escapes) become U+FFFD, so the store can encode them."""
    for name in names:
        value = record.get(name)
        if value in (None, ""):
            continue
        if not isinstance(value, str):
            raise ValueError(f"'{name}' must be text, got {type(value).__name__}")
        return _SURROGATE.sub("\ufffd", value)
    return ""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _record_to_paper(record: dict, source: str, notes: list[str] | None = None) -> Paper:
    """A record's Paper. A malformed author list or year keeps the record: the field is left empty, its value as
    written kept among the extra fields, and a line added to `notes`; a text field holding no text skips it."""
    notes = notes if notes is not None else []
    kept: dict[str, str] = {}
    abstract = _text_field(record, "abstract", "text").strip()
    authors = record.get("authors") or ()
    truncated = False
    if isinstance(authors, str):
        authors, truncated = split_authors(_text_field(record, "authors"))
    elif isinstance(authors, (list, tuple)):
        authors = tuple(str(a).strip() for a in authors if str(a).strip())
    else:
        notes.append(f"'authors' is a {type(authors).__name__}, not a list of names: kept as written, no authors read")
        kept["authors_as_written"] = json.dumps(authors, ensure_ascii=False, default=str)
        authors = ()
    written = str(record.get("venue") or "").strip() or None
    year_raw = record.get("year")
    try:
        year = int(year_raw) if year_raw not in (None, "") else year_of(written)
    except (TypeError, ValueError, OverflowError):
        year = None
    if year is None and year_raw not in (None, "") or year is not None and not 1000 <= year <= 2999:
        notes.append(f"year {year_raw!r} is not a year: kept as written, no year read")
        kept["year_as_written"] = str(year_raw)
        year = year_of(written)
    venue = canonical_venue(written, year)  # "Advances in Neural Information Processing Systems 2020" -> "NeurIPS 2020"
    if venue and year and str(year) not in venue:
        venue = f"{venue} {year}"
    topic = record.get("topic") or record.get("primary_area") or None
    extra = tuple(  # lists joined, objects kept as JSON (not a Python repr)
        (k, ", ".join(map(str, v)) if isinstance(v, list)
         else json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v))
        for k, v in record.items()
        if k not in _RECORD_FIELDS | {"primary_area"} and v not in (None, "", []) and k not in kept
    ) + ((("venue_as_written", written),)
         if written and venue and written not in (venue, venue.removesuffix(f" {year}"))
         else ()) + tuple(kept.items())
    title = _text_field(record, "title").strip() or None
    return make_paper(
        abstract, source, venue=venue, year=year, topic=str(topic) if topic else None,
        authors=authors, authors_truncated=truncated, title=title,
        source_id=str(record["id"]) if record.get("id") not in (None, "") else None, extra=extra,
    )


TITLE_LIMIT = 1_000  # characters; the longest ICLR/ICML 2024 title has 178
AUTHORS_LIMIT = 1_000  # names; past it the list is kept as truncated ("et al.")


def bounded(paper: Paper) -> tuple[Paper, list[str]]:
    """The paper with a title or author list too long to be one (a pasted abstract, a broken export) cut to the limits
    above, and a line per cut: the record is kept, not refused, and no page that shows it carries megabytes."""
    cuts, changes = [], {}
    if paper.title and len(paper.title) > TITLE_LIMIT:
        changes["title"] = paper.title[:TITLE_LIMIT].rstrip() + "…"
        cuts.append(f"title of {len(paper.title):,} characters cut to {TITLE_LIMIT:,}")
    if len(paper.authors) > AUTHORS_LIMIT:
        changes.update(authors=paper.authors[:AUTHORS_LIMIT], authors_truncated=True)
        cuts.append(f"{len(paper.authors):,} authors: the first {AUTHORS_LIMIT:,} kept, marked 'et al.'")
    if "title" in changes:
        changes["label"] = make_label(paper.text, changes["title"])
    return (replace(paper, **changes) if changes else paper), cuts


def load_records(records, source: str) -> LoadReport:
    report = LoadReport()
    report.papers = list(records_to_papers(records, source, report))
    return report


def records_to_papers(records, source: str, report: LoadReport):
    """Papers of (where, record-or-reason) pairs, one at a time; entries and skips are counted into `report`."""
    seen: dict[str, str] = {}
    for where, record in records:
        report.entries += 1
        if isinstance(record, str):
            report.skipped.append(Skip(f"{source}:{where}", record))
            continue
        notes = record.pop(WARNINGS, None) or []
        try:
            paper = _record_to_paper(record, source, notes)
        except ValueError as exc:
            report.skipped.append(Skip(f"{source}:{where}", str(exc)))
            continue
        paper, cuts = bounded(paper)
        report.warnings += [Skip(f"{source}:{where}", note) for note in [*notes, *cuts]]
        if paper.source_id is not None:
            if paper.source_id in seen and seen[paper.source_id] != paper.paper_id:
                report.skipped.append(Skip(f"{source}:{where}",
                                           f"duplicate id {paper.source_id!r} with different text"))
                continue
            seen[paper.source_id] = paper.paper_id
        yield paper


def jsonl_records(lines):
    """(where, record-or-reason) per line of text (split at "\\n" only, not splitlines(): U+2028 may sit
    inside a string) or of an iterable of lines."""
    for number, line in enumerate(lines.split("\n") if isinstance(lines, str) else lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:  # also too deep, or an integer past Python's digit limit
            yield f"line {number}", f"invalid JSON ({getattr(exc, 'msg', None) or type(exc).__name__})"
            continue
        yield f"line {number}", record if isinstance(record, dict) else "not a JSON object"


def _next_row(reader):
    """The reader's next row with fields of any length: csv's field-size limit is process-wide, so it is raised only
    while this reader parses, and put back for every other reader in the process."""
    before = csv.field_size_limit(2**31 - 1)
    try:
        return next(reader)
    finally:
        csv.field_size_limit(before)


def csv_records(text: str, delimiter: str):
    """Rows as dicts (like csv.DictReader) with the physical line each starts on; fields of any length.
    Not DictReader: it skips blank lines unseen, so the line a row starts on would be lost."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    fields = None
    try:
        while not fields:
            fields = _next_row(reader)
    except StopIteration:  # no header at all
        fields = None
    except csv.Error as exc:
        raise ListingError(f"CSV header unreadable ({exc}). Save it as plain CSV.") from None
    if not fields or "abstract" not in fields:
        raise ListingError(f"CSV header has no 'abstract' column (got {fields}). "
                           "Columns: id, title, authors, abstract, venue, year.")
    while True:
        start = reader.line_num + 1
        try:
            row = _next_row(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield f"line {start}", f"unreadable CSV row ({exc})"
            continue
        if row:
            record = dict(zip(fields, row))
            if len(row) > len(fields):
                record[None] = row[len(fields):]
            record.update(dict.fromkeys(fields[len(row):]))
            yield f"line {start}", record
