"""The .txt listings (a venue list: abstracts under a "<Venue> <Year> 论文列表" header; a search page: topic?,
authors, abstract per record) -> Papers, with the facts data/manifest.json gives per file (venue, year, titles).
JSONL, CSV and library formats are records.py's and formats.py's.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from ragqa.errors import ListingError
from ragqa.ingest.paper import LoadReport, Paper, Skip, make_paper, split_authors, year_of
from ragqa.text.clean import make_label

VENUE_LIST_MARK = "论文列表"  # "paper list": header "<Venue> <Year> 论文列表", abstracts only
SEARCH_PAGE_MARK = "论文检索"  # "paper search": topic?, authors, abstract per record


def load_manifest(data_dir: Path) -> dict[str, dict]:
    """Per listing file: facts it does not state (venue, year) and, under "titles", the metadata of
    its paragraphs keyed by their abstract's first 80 characters (manifest "metadata.titles")."""
    path = data_dir / "manifest.json"
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise ListingError(f"{path}: invalid JSON ({exc}). Fix the manifest.") from None
    files = {name: dict(facts) for name, facts in manifest.get("files", {}).items()}
    titles = (manifest.get("metadata") or {}).get("titles")
    if titles:
        for number, line in enumerate((data_dir / titles).read_text("utf-8").splitlines(), 1):
            try:
                row = json.loads(line)
                files.setdefault(row["file"], {}).setdefault("titles", {})[_prefix_key(row["abstract_prefix"])] = row
            except (json.JSONDecodeError, KeyError, TypeError):
                raise ListingError(
                    f"{data_dir / titles}: line {number} is not a title record. Fix or remove it.") from None
    return files


def _prefix_key(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip())[:80].rstrip()


def _with_listed_metadata(paper: "Paper", facts: dict) -> "Paper":
    """Title, authors, status and URL that the manifest's metadata gives for this paragraph."""
    row = (facts.get("titles") or {}).get(_prefix_key(paper.abstract))
    if not row:
        return paper
    authors, truncated = paper.authors, paper.authors_truncated
    if row.get("authors") and (truncated or len(row["authors"]) > len(authors)):
        authors, truncated = tuple(row["authors"]), False
    extra = dict(paper.extra)
    extra.update({k: str(row[k]) for k in ("status", "url") if row.get(k)})
    return replace(paper, title=row["title"], label=make_label(paper.text, row["title"]), authors=authors,
                   authors_truncated=truncated, extra=tuple(extra.items()))


def _is_abstract(paragraph: str) -> bool:
    return len(paragraph.split()) > 40 or (len(paragraph) > 300 and ". " in paragraph)


def _paragraphs(text: str) -> list[tuple[int, str]]:
    """(line number, paragraph) per run of non-blank lines."""
    paragraphs: list[tuple[int, str]] = []
    lines: list[str] = []
    for number, line in enumerate(text.split("\n") + [""], 1):
        if line.strip():
            lines.append(line)
        elif lines:
            paragraphs.append((number - len(lines), "\n".join(lines).strip()))
            lines = []
    return paragraphs


def _header_and_body(text: str) -> tuple[str, list[tuple[int, str]]]:
    """The header line, and the paragraphs after it with their line numbers. Lines right under the
    header, with no blank line between, are the first body paragraph, not part of the header."""
    paragraphs = _paragraphs(text)
    if not paragraphs:
        return "", []
    number, first = paragraphs[0]
    head = first.splitlines(keepends=True)[0]
    rest = first[len(head):]
    if rest.strip():
        offset = len(head) + len(rest) - len(rest.lstrip())
        paragraphs[0] = (number + first[:offset].count("\n"), rest.strip())
    else:
        paragraphs.pop(0)
    return head.strip(), paragraphs


def parse_listing(text: str, source: str, facts: dict | None = None) -> LoadReport:
    """One .txt listing -> papers. `facts` (from the manifest) supplies venue/year a file lacks."""
    facts = facts or {}
    header, body = _header_and_body(text)
    report = LoadReport()
    if header.endswith(VENUE_LIST_MARK):
        venue = facts.get("venue") or header[: -len(VENUE_LIST_MARK)].strip() or None
        year = facts.get("year") or year_of(venue)
        for number, para in body:
            report.entries += 1
            if not _is_abstract(para):
                report.skipped.append(Skip(f"{source}:line {number}", f"paragraph is not an abstract: {para[:60]!r}"))
                continue
            report.papers.append(_with_listed_metadata(make_paper(para, source, venue=venue, year=year), facts))
    elif header.startswith(SEARCH_PAGE_MARK):
        venue = facts.get("venue")
        year = facts.get("year") or year_of(venue)
        pending: list[str] = []
        for number, para in body:
            if not _is_abstract(para):
                pending.append(para)
                pending_line = number
                continue
            report.entries += 1
            topic, authors, truncated = _topic_and_authors(pending)
            pending = []
            report.papers.append(_with_listed_metadata(make_paper(
                para, source, venue=venue, year=year, topic=topic,
                authors=authors, authors_truncated=truncated,
            ), facts))
        if pending:  # an entry too, or 'duplicates merged' (entries - papers - skipped) goes negative
            report.entries += 1
            report.skipped.append(Skip(f"{source}:line {pending_line}",
                                       f"record without an abstract at the end: {pending[-1][:60]!r}"))
    else:
        raise ListingError(
            f"{source}: unknown listing header {header[:40]!r}; expected '<Venue> <Year> {VENUE_LIST_MARK}' "
            f"or '{SEARCH_PAGE_MARK}'. Convert it to JSONL (id, title, authors, abstract, venue, year)."
        )
    return report


def _topic_and_authors(lines: list[str]) -> tuple[str | None, tuple[str, ...], bool]:
    """Before an abstract: [topic], authors. A lone line is a topic only if it looks like one."""
    lines = lines[-2:]
    if len(lines) == 2:
        authors, truncated = split_authors(lines[1])
        return lines[0], authors, truncated
    if len(lines) == 1:
        line = lines[0]
        if " · " in line and "," not in line:
            return line, (), False
        authors, truncated = split_authors(line)
        return None, authors, truncated
    return None, (), False
