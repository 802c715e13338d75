"""Files or folders -> one load of Papers: each file's format told from its content (formats.detect_format), read
by its reader (listing.py, records.py, formats.py's library readers), JSON lines parsed as the file is read, and
the records of one paper merged (merge.py) in a spill to disk. Bad records are skipped with a reason; a file that
cannot be read at all raises ListingError. No embedding, no storage.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ragqa.errors import ListingError
from ragqa.ingest.arxiv_openreview import arxiv_record
from ragqa.ingest.formats import SUFFIX_FORMATS, SUPPORTED, detect_format, line_format, read_records
from ragqa.ingest.listing import parse_listing
from ragqa.ingest.merge import merge_papers
from ragqa.ingest.paper import LoadReport
from ragqa.ingest.reading import head_text, read_text_file, text_lines
from ragqa.ingest.records import csv_records, jsonl_records, load_records, records_to_papers
from ragqa.ingest.spill import SpilledPapers


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
        yield from records_to_papers(lines, path.name, report)
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
    records = jsonl_records(text_lines(path, encoding, on_read))
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
            raise ListingError(f"{path}: invalid JSON ({getattr(exc, 'msg', None) or type(exc).__name__}). "
                               "Use one JSON object per line.") from None
        rows = rows if isinstance(rows, list) else [rows]
        return load_records(((f"item {i}", r if isinstance(r, dict) else "not a JSON object")
                             for i, r in enumerate(rows)), source)
    if fmt == "jsonl":
        return load_records(jsonl_records(text), source)
    try:
        if fmt in ("csv", "tsv"):
            return load_records(csv_records(text, "\t" if fmt == "tsv" else ","), source)
        return load_records(read_records(text, fmt), source)
    except ListingError as exc:
        raise ListingError(f"{path}: {exc}") from None


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

    # on disk until indexed: a file of a million papers is not held in memory
    papers = SpilledPapers(merge_papers, spill_dir)
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
