"""Reference-manager exports other than BibTeX -> (where, record-or-reason) pairs: RIS (rispy; EndNote, Zotero,
Mendeley) and CSL-JSON (Zotero, Mendeley, Paperpile, pandoc). No Paper building here (records.py).
"""
from __future__ import annotations

from ragqa.ingest.fields import json_items, one_line, unwrap, word_list, year_in


def _last_first(name: str) -> str:
    """'Last, First' or 'Last, First, Suffix' (RIS, arXiv) -> 'First Last Suffix'."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 1:
        return one_line(name)
    return one_line(" ".join(parts[1:2] + parts[:1] + parts[2:]))


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
    first = lambda *keys: next((one_line(v[0] if isinstance(v, list) else v)  # noqa: E731
                                for v in (entry.get(k) or unknown.get(k) for k in keys) if v), None)
    return {
        "id": first("id"), "title": first("title", "primary_title", "translated_title"),
        "authors": [_last_first(a) for a in entry.get("authors") or entry.get("first_authors") or [] if a.strip()],
        "abstract": unwrap(entry.get("abstract") or entry.get("notes_abstract")),
        "venue": first("secondary_title", "alternate_title3", "journal_name", "BT", "alternate_title2",
                       "alternate_title1"),
        "year": year_in(entry.get("year")) or year_in(entry.get("publication_year")) or year_in(entry.get("date")),
        "keywords": word_list(entry.get("keywords") or []), "doi": first("doi"), "url": first("urls"),
    }


# -- CSL-JSON ------------------------------------------------------------------------------------
def csl_records(text: str):
    """CSL-JSON, the export of Zotero, Mendeley and Paperpile (a JSON list of items, or JSON lines) -> (where,
    record-or-reason); the item's id is kept as its citekey."""
    for where, item in json_items(text):
        yield where, item if isinstance(item, str) else _csl_record(item)


def _csl_name(name) -> str:
    if not isinstance(name, dict):
        return one_line(name)
    if name.get("literal"):
        return one_line(name["literal"])
    parts = (name.get("given"), name.get("non-dropping-particle") or name.get("dropping-particle"), name.get("family"),
             name.get("suffix"))
    return " ".join(one_line(p) for p in parts if p)


def _csl_year(issued) -> int | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return year_in(str(parts[0][0]))
        return year_in(issued.get("raw") or issued.get("literal") or "")
    return year_in(str(issued or ""))


def _csl_record(item: dict) -> dict:
    authors = item.get("author") if isinstance(item.get("author"), list) else []
    venue = next((one_line(item.get(k)) for k in ("container-title", "event-title", "collection-title", "publisher")
                  if item.get(k)), "")
    keywords = item.get("keyword")
    return {
        "id": one_line(item.get("id")) or None, "title": one_line(item.get("title")) or None,
        "authors": [n for n in (_csl_name(a) for a in authors) if n], "abstract": unwrap(item.get("abstract")),
        "venue": venue or None, "year": _csl_year(item.get("issued")),
        "keywords": word_list(keywords if isinstance(keywords, (str, list)) else ""),
        "doi": one_line(item.get("DOI")) or None, "url": one_line(item.get("URL")) or None,
        "citekey": one_line(item.get("citation-key") or item.get("id")) or None,
    }
