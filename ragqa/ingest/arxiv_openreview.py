"""Paper-site metadata -> (where, record-or-reason) pairs: arXiv's metadata snapshot (Kaggle's
arxiv-metadata-oai-snapshot lines) and OpenReview API notes (v1 and v2), with venue, year and decision status
read from them. No Paper building here (records.py).
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

from ragqa.ingest.fields import json_items, one_line, unwrap, word_list, year_in
from ragqa.ingest.latex import decode_latex
from ragqa.ingest.venues import known_venue


# -- arXiv metadata snapshot --------------------------------------------------------------------
def arxiv_records(text: str):
    """Kaggle's arxiv-metadata-oai-snapshot lines (or a JSON list of them) -> (where, record-or-reason)."""
    for where, row in json_items(text):
        yield where, row if isinstance(row, str) else arxiv_record(row)


def arxiv_record(row: dict) -> dict | str:
    """One arXiv metadata row -> our record (or the reason it is skipped)."""
    arxiv_id = one_line(row.get("id"))
    if not arxiv_id:
        return "no arXiv 'id'"
    parsed = row.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        authors = [one_line(decode_latex(" ".join(str(p) for p in (name[1:2] + name[:1] + name[2:]) if str(p).strip())))
                   for name in parsed if isinstance(name, list) and name]
    else:
        authors = one_line(decode_latex(str(row.get("authors") or "")))
    categories = one_line(row.get("categories")).split()
    journal = one_line(row.get("journal-ref"))
    venue = journal if known_venue(journal) else f"arXiv {categories[0]}" if categories else "arXiv"  # published there
    return {
        "id": f"arXiv:{arxiv_id}", "title": one_line(decode_latex(str(row.get("title") or ""))) or None,
        "authors": authors, "abstract": one_line(row.get("abstract")),
        "venue": venue, "year": year_in(journal) if venue == journal and year_in(journal) else _arxiv_year(row),
        "eprint": arxiv_id, "categories": " ".join(categories), "doi": one_line(row.get("doi")),
        "journal_ref": one_line(row.get("journal-ref")), "url": f"https://arxiv.org/abs/{arxiv_id}",
    }


def _arxiv_year(row: dict) -> int | None:
    versions = row.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        try:
            return parsedate_to_datetime(str(versions[0].get("created"))).year
        except (TypeError, ValueError):
            pass
    return year_in(row.get("update_date"))


# -- OpenReview notes ---------------------------------------------------------------------------
_STATUS = (("Oral", r"\boral\b|notable[- _]top[- _]5\b"), ("Spotlight", r"\bspotlight\b|notable[- _]top[- _]25\b"),
           ("Poster", r"\bposter\b"), ("Withdrawn", r"withdrawn"), ("Reject", r"reject"))


def openreview_records(text: str):
    """OpenReview API notes (v1 plain values or v2 {"value": ...}) as a JSON list, {"notes": [...]}
    or JSON lines -> (where, record-or-reason)."""
    for where, note in json_items(text):
        yield where, note if isinstance(note, str) else _openreview_record(note)


def _value(value):
    return value.get("value") if isinstance(value, dict) and "value" in value else value


def _openreview_record(note: dict) -> dict | str:
    content = note.get("content")
    if not isinstance(content, dict):
        return "no 'content' object: not an OpenReview note"
    c = {k: _value(v) for k, v in content.items()}
    venue_text, venueid = one_line(c.get("venue")), one_line(c.get("venueid") or _value(note.get("venueid")))
    status = _status(venue_text) or _status(_decision(note, c)) or _status(venueid.replace("_", " "))
    date = note.get("pdate") or note.get("cdate") or note.get("tcdate")
    year = year_in(venue_text) or year_in(venueid)
    if year is None and isinstance(date, (int, float)):
        year = datetime.fromtimestamp(date / 1000, tz=timezone.utc).year
    forum = one_line(note.get("forum") or note.get("id"))
    authors = c.get("authors")
    return {
        "id": one_line(note.get("id") or note.get("forum")) or None, "title": one_line(c.get("title")) or None,
        "authors": [one_line(a) for a in authors] if isinstance(authors, list) else one_line(authors),
        "abstract": unwrap(c.get("abstract")), "venue": _venue_name(venue_text) or _venueid_name(venueid),
        "year": year, "topic": one_line(c.get("primary_area")).replace("_", " ") or None,
        "keywords": word_list(c.get("keywords") or []), "status": status,
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
