"""Listing files (venue lists, search pages, JSONL, CSV) and, through formats.py, BibTeX, RIS,
arXiv and OpenReview files -> cleaned, merged Paper records.

Reading and cleaning only: no embedding, no storage. Bad records are skipped with a reason;
a file that cannot be read at all raises ListingError.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from ragqa.errors import ListingError
from ragqa.ingest.formats import (
    SUFFIX_FORMATS,
    SUPPORTED,
    WARNINGS,
    arxiv_record,
    detect_format,
    line_format,
    read_records,
)
from ragqa.ingest.reading import head_text, read_text_file, text_lines
from ragqa.ingest.spill import SpilledPapers
from ragqa.ingest.venues import canonical_venue
from ragqa.text.clean import clean_text, corpus_vocabulary, dehyphenate, make_label
from ragqa.text.untrusted import strip_controls

VENUE_LIST_MARK = "论文列表"  # "paper list": header "<Venue> <Year> 论文列表", abstracts only
SEARCH_PAGE_MARK = "论文检索"  # "paper search": topic?, authors, abstract per record
ET_AL_MARK = "等"  # "et al.": the author list was cut


@dataclass(frozen=True)
class Paper:
    paper_id: str
    abstract: str  # as listed
    text: str  # cleaned, for embedding and display
    label: str
    venue: str | None = None
    year: int | None = None
    topic: str | None = None
    authors: tuple[str, ...] = ()
    authors_truncated: bool = False
    title: str | None = None
    source_id: str | None = None
    extra: tuple[tuple[str, str], ...] = ()  # keywords, track, ... as (name, value)
    sources: tuple[str, ...] = ()

    @property
    def metadata_only(self) -> bool:
        """A record without an abstract (a .bib entry of title and authors): searchable by its title and answerable for
        who wrote it, where and when, in lists and counts; never evidence for what it says (its text is its title)."""
        return not self.abstract

    def author_line(self) -> str:
        line = ", ".join(self.authors)
        return f"{line} et al." if self.authors_truncated and line else line


@dataclass(frozen=True)
class Skip:
    source: str
    reason: str


@dataclass
class LoadReport:
    papers: list[Paper] = field(default_factory=list)
    entries: int = 0
    skipped: list[Skip] = field(default_factory=list)
    warnings: list[Skip] = field(default_factory=list)  # a record kept with a field cut down (Skip: where, what)

    @property
    def duplicates_merged(self) -> int:
        return self.entries - len(self.skipped) - len(self.papers)


def authors_of(meta: dict) -> list[str]:
    """The author list of a flat record (index.paper_metadata joins it with "; ": the one place that splits it)."""
    return [a.strip() for a in (meta.get("authors") or "").split("; ") if a.strip()]


def without_abstract(meta: dict) -> bool:
    """A flat record (Hit.meta) of a metadata-only paper (Paper.metadata_only); a chunk's metadata, which carries no
    abstract field, is not one."""
    return "abstract" in meta and not meta["abstract"]


def libraries_of(meta: dict) -> list[str]:
    """The libraries a flat record belongs to (joined with "; " like its authors)."""
    return [name for name in (meta.get("libraries") or "").split("; ") if name]


def paper_id_for(abstract: str) -> str:
    """Content hash of the normalised abstract: the same abstract anywhere is the same paper."""
    norm = unicodedata.normalize("NFKC", abstract).lower()
    norm = re.sub(r"[^\w]+", " ", norm).strip()
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:16]


def title_key(title: str | None) -> str:
    """A title folded for identity: case, accents' width forms and punctuation ignored."""
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", title or "").casefold()))


def surname_key(authors) -> str:
    """The first author's surname, folded ("Vaswani, Ashish" and "Ashish Vaswani" agree)."""
    if not authors:
        return ""
    first = authors[0].strip()
    surname = first.split(",")[0] if "," in first else (first.split() or [""])[-1]
    return title_key(surname)


_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:v\d+)?(?:\.pdf)?$", re.I)
_OPENREVIEW_URL = re.compile(r"openreview\.net/(?:forum|pdf)\?id=([\w-]+)", re.I)


def record_identity(title: str | None, authors, year: int | None, extra: dict) -> str:
    """What makes a record without an abstract one paper: its DOI, arXiv id or OpenReview id when it has one, else its
    folded title + first author's surname + year (never its citekey: a key is a label two papers can share)."""
    doi = (extra.get("doi") or "").strip().lower().removeprefix("https://doi.org/")
    if doi:
        return f"doi:{doi}"
    url = extra.get("url") or ""
    arxiv = (extra.get("eprint") or "").strip() or (m.group(1) if (m := _ARXIV_URL.search(url)) else "")
    if arxiv:
        return "arxiv:" + re.sub(r"v\d+$", "", arxiv.lower().removeprefix("arxiv:"))
    if m := _OPENREVIEW_URL.search(url):
        return f"openreview:{m.group(1)}"
    return f"title:{title_key(title)}|{surname_key(authors)}|{year or ''}"


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
                raise ListingError(f"{data_dir / titles}: line {number} is not a title record. Fix or remove it.") from None
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


def _make_paper(abstract: str, source: str, **fields) -> Paper:
    """The id hashes the abstract as given; the text (embedded, shown, quoted), the title, authors, venue and topic
    lose control/format characters and chat role markers (untrusted.strip_controls). Without an abstract the paper is
    metadata-only: its text is its title and its id hashes its identity (record_identity)."""
    abstract = abstract.strip()
    if fields.get("title"):
        fields["title"] = strip_controls(fields["title"]).strip() or None
    for key in ("venue", "topic"):  # a NUL or a bidi override in metadata is shown, filtered on and exported
        if fields.get(key):
            fields[key] = strip_controls(fields[key]).strip() or None
    if fields.get("authors"):
        fields["authors"] = tuple(name for name in (strip_controls(n).strip() for n in fields["authors"]) if name)
    if abstract:
        text, paper_id = strip_controls(clean_text(abstract)), paper_id_for(abstract)
    else:
        if not re.search(r"[^\W\d_]", fields.get("title") or ""):  # no letter: nothing that names a paper
            raise ValueError("no abstract and no title")
        text = strip_controls(clean_text(fields["title"]))
        identity = record_identity(fields["title"], fields.get("authors"), fields.get("year"), dict(fields.get("extra", ())))
        paper_id = "m" + paper_id_for(identity)[1:]  # a metadata-only id never equals an abstract's
    return Paper(
        paper_id=paper_id, abstract=abstract, text=text,
        label=make_label(text, fields.get("title")), sources=(source,), **fields,
    )


def _year_of(venue: str | None) -> int | None:
    match = re.search(r"(19|20)\d\d", venue or "")
    return int(match.group(0)) if match else None


def _is_abstract(paragraph: str) -> bool:
    return len(paragraph.split()) > 40 or (len(paragraph) > 300 and ". " in paragraph)


def _split_authors(line: str) -> tuple[tuple[str, ...], bool]:
    line = line.strip()
    truncated = line.endswith(ET_AL_MARK) or line.lower().endswith("et al.")
    line = re.sub(rf"\s*(?:{ET_AL_MARK}|et al\.)$", "", line, flags=re.I)
    names = [n.strip() for n in re.split(r",|;|\band\b", line) if n.strip()]
    return tuple(names), truncated


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
        year = facts.get("year") or _year_of(venue)
        for number, para in body:
            report.entries += 1
            if not _is_abstract(para):
                report.skipped.append(Skip(f"{source}:line {number}", f"paragraph is not an abstract: {para[:60]!r}"))
                continue
            report.papers.append(_with_listed_metadata(_make_paper(para, source, venue=venue, year=year), facts))
    elif header.startswith(SEARCH_PAGE_MARK):
        venue = facts.get("venue")
        year = facts.get("year") or _year_of(venue)
        pending: list[str] = []
        for number, para in body:
            if not _is_abstract(para):
                pending.append(para)
                pending_line = number
                continue
            report.entries += 1
            topic, authors, truncated = _topic_and_authors(pending)
            pending = []
            report.papers.append(_with_listed_metadata(_make_paper(
                para, source, venue=venue, year=year, topic=topic,
                authors=authors, authors_truncated=truncated,
            ), facts))
        if pending:  # an entry too, or 'duplicates merged' (entries - papers - skipped) goes negative
            report.entries += 1
            report.skipped.append(Skip(f"{source}:line {pending_line}", f"record without an abstract at the end: {pending[-1][:60]!r}"))
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
        authors, truncated = _split_authors(lines[1])
        return lines[0], authors, truncated
    if len(lines) == 1:
        line = lines[0]
        if " · " in line and "," not in line:
            return line, (), False
        authors, truncated = _split_authors(line)
        return None, authors, truncated
    return None, (), False


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
        authors, truncated = _split_authors(_text_field(record, "authors"))
    elif isinstance(authors, (list, tuple)):
        authors = tuple(str(a).strip() for a in authors if str(a).strip())
    else:
        notes.append(f"'authors' is a {type(authors).__name__}, not a list of names: kept as written, no authors read")
        kept["authors_as_written"] = json.dumps(authors, ensure_ascii=False, default=str)
        authors = ()
    written = str(record.get("venue") or "").strip() or None
    year_raw = record.get("year")
    try:
        year = int(year_raw) if year_raw not in (None, "") else _year_of(written)
    except (TypeError, ValueError, OverflowError):
        year = None
    if year is None and year_raw not in (None, "") or year is not None and not 1000 <= year <= 2999:
        notes.append(f"year {year_raw!r} is not a year: kept as written, no year read")
        kept["year_as_written"] = str(year_raw)
        year = _year_of(written)
    venue = canonical_venue(written, year)  # "Advances in Neural Information Processing Systems 2020" -> "NeurIPS 2020"
    if venue and year and str(year) not in venue:
        venue = f"{venue} {year}"
    topic = record.get("topic") or record.get("primary_area") or None
    extra = tuple(  # lists joined, objects kept as JSON (not a Python repr)
        (k, ", ".join(map(str, v)) if isinstance(v, list) else json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v))
        for k, v in record.items()
        if k not in _RECORD_FIELDS | {"primary_area"} and v not in (None, "", []) and k not in kept
    ) + ((("venue_as_written", written),) if written and venue and written not in (venue, venue.removesuffix(f" {year}"))
         else ()) + tuple(kept.items())
    title = _text_field(record, "title").strip() or None
    return _make_paper(
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


def _load_records(records, source: str) -> LoadReport:
    report = LoadReport()
    report.papers = list(_read_records(records, source, report))
    return report


def _read_records(records, source: str, report: LoadReport):
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
                report.skipped.append(Skip(f"{source}:{where}", f"duplicate id {paper.source_id!r} with different text"))
                continue
            seen[paper.source_id] = paper.paper_id
        yield paper


def _jsonl_records(lines):
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


def _csv_records(text: str, delimiter: str):
    """Rows as dicts (like csv.DictReader) with the physical line each starts on; fields of any length.
    Not DictReader: it skips blank lines unseen, so the line a row starts on would be lost."""
    csv.field_size_limit(2**31 - 1)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        fields = next((row for row in reader if row), None)
    except csv.Error as exc:
        raise ListingError(f"CSV header unreadable ({exc}). Save it as plain CSV.") from None
    if not fields or "abstract" not in fields:
        raise ListingError(f"CSV header has no 'abstract' column (got {fields}). Columns: id, title, authors, abstract, venue, year.")
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
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


def load_file(path: Path, manifest: dict[str, dict] | None = None) -> LoadReport:
    """Any supported file -> LoadReport (papers not yet merged across files). The format comes from
    the content (formats.detect_format): a .bib saved as .txt is still read as BibTeX."""
    report = LoadReport()
    report.papers = list(read_papers(Path(path), manifest, report))
    return report


def read_papers(path: Path, manifest: dict[str, dict] | None, report: LoadReport, on_read=None):
    """One file's papers, one at a time (entries and skips counted into `report`). JSON lines, ours and
    arXiv's, are parsed as the file is read, so a file of any size is never held whole; other formats are
    read whole. A file that cannot be read raises ListingError, possibly after some papers."""
    path = Path(path)
    suffix = path.suffix.lower()
    if path.exists() and suffix not in SUFFIX_FORMATS:
        raise ListingError(f"{path}: unknown format {suffix or '(no extension)'}. Use {SUPPORTED} files.")
    lines = _json_lines(path, on_read)
    if lines is not None:
        yield from _read_records(lines, path.name, report)
        return
    whole = _load_whole(path, manifest)
    if on_read:
        on_read(path.stat().st_size)
    report.entries += whole.entries
    report.skipped += whole.skipped
    report.warnings += whole.warnings
    yield from whole.papers


def _json_lines(path: Path, on_read=None):
    """(where, record-or-reason) per line, read as it goes, when the file holds JSON lines; else None."""
    if not path.is_file():
        return None
    encoding, head = head_text(path)
    fmt = line_format(head)
    if fmt is None:
        return None
    records = _jsonl_records(text_lines(path, encoding, on_read))
    if fmt == "arxiv":
        return ((where, row if isinstance(row, str) else arxiv_record(row)) for where, row in records)
    return records


def _load_whole(path: Path, manifest: dict[str, dict] | None) -> LoadReport:
    # Universal newlines, as open() gives: a CR-only file (old Mac export) is lines too, in every format.
    text = read_text_file(path).replace("\r\n", "\n").replace("\r", "\n")
    source = path.name
    fmt = detect_format(text, path.name)
    if fmt == "listing":
        return parse_listing(text, source, (manifest or {}).get(path.name))
    if fmt == "json":
        try:
            rows = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ListingError(f"{path}: invalid JSON ({getattr(exc, 'msg', None) or type(exc).__name__}). Use one JSON object per line.") from None
        rows = rows if isinstance(rows, list) else [rows]
        return _load_records(((f"item {i}", r if isinstance(r, dict) else "not a JSON object") for i, r in enumerate(rows)), source)
    if fmt == "jsonl":
        return _load_records(_jsonl_records(text), source)
    try:
        if fmt in ("csv", "tsv"):
            return _load_records(_csv_records(text, "\t" if fmt == "tsv" else ","), source)
        return _load_records(read_records(text, fmt), source)
    except ListingError as exc:
        raise ListingError(f"{path}: {exc}") from None


def merge_papers(a: Paper, b: Paper) -> Paper:
    """Same abstract twice: keep each field from whichever record has it (the venue from a venue
    list, the authors from a search page); the longer, untruncated author list wins; extra fields
    (keywords, status, url) are united, the first record's value winning; a topic that refines the
    other ("Deep Learning->Graph Neural Networks" over "Deep Learning") wins."""
    authors, truncated = a.authors, a.authors_truncated
    if (len(b.authors), not b.authors_truncated) > (len(authors), not truncated):
        authors, truncated = b.authors, b.authors_truncated
    return replace(
        a,
        venue=a.venue or b.venue, year=a.year or b.year, topic=_finer_topic(a.topic, b.topic),
        authors=authors, authors_truncated=truncated, title=a.title or b.title,
        label=a.label if a.title or not b.title else b.label,
        source_id=a.source_id or b.source_id, extra=tuple({**dict(b.extra), **dict(a.extra)}.items()),
        sources=tuple(dict.fromkeys(a.sources + b.sources)),
    )


def _finer_topic(a: str | None, b: str | None) -> str | None:
    words = [re.findall(r"[^\W_]+", (t or "").lower()) for t in (a, b)]
    if a and b and len(words[1]) > len(words[0]) and words[1][:len(words[0])] == words[0]:
        return b
    return a or b


def merge_all(papers: list[Paper]) -> list[Paper]:
    """Dedupe by content id, in first-seen order, and repair line-wrap hyphenation."""
    merged: dict[str, Paper] = {}
    for paper in papers:
        merged[paper.paper_id] = merge_papers(merged[paper.paper_id], paper) if paper.paper_id in merged else paper
    vocabulary = corpus_vocabulary([p.text for p in merged.values()])
    return [replace(p, text=dehyphenate(p.text, vocabulary)) for p in merged.values()]


def load_paths(paths: list[Path], manifest: dict[str, dict] | None = None, progress: bool = False,
               spill_dir: Path | None = None) -> tuple[LoadReport, list[str]]:
    """Files or folders -> one merged LoadReport, plus one-line errors for unreadable files and for
    files of other formats in a folder (subfolders and hidden files are left alone). Its papers are
    merged and de-hyphenated as merge_all does, and read back from a temporary file in `spill_dir`
    (spill.SpilledPapers; the system's temporary folder when None)."""
    files: list[Path] = []
    errors: list[str] = []
    for path in map(Path, paths):
        if not path.is_dir():
            files.append(path)
            continue
        for p in sorted(path.iterdir()):
            if p.name == "manifest.json" or p.name.startswith(".") or p.is_dir():
                continue
            if p.suffix.lower() in SUFFIX_FORMATS:
                files.append(p)
            else:
                errors.append(f"{p}: unsupported format {p.suffix.lower() or '(no extension)'} (use {SUPPORTED})")
    from tqdm import tqdm

    papers = SpilledPapers(merge_papers, spill_dir)  # on disk until indexed: a file of a million papers is not held in memory
    total = LoadReport(papers=papers)
    size = sum(f.stat().st_size for f in files if f.is_file())
    with tqdm(total=size, unit="B", unit_scale=True, desc="reading", file=sys.stderr, disable=not progress) as bar:
        for file in files:
            report = LoadReport()
            papers.begin()
            try:
                for paper in read_papers(file, manifest, report, bar.update if progress else None):
                    papers.add(paper)
            except ListingError as exc:  # the whole file is skipped, as if unreadable from its first byte
                papers.rollback()
                errors.append(str(exc))
                continue
            papers.commit()
            total.entries += report.entries
            total.skipped += report.skipped
            total.warnings += report.warnings
    return total, errors
