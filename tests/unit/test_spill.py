"""A load held on disk (spill.py): the same papers, in the same order, merged and de-hyphenated as an
in-memory merge of the same files gives; a file that fails half-way leaves nothing behind."""
from __future__ import annotations

import json

from ragqa.ingest.corpus import load_file, load_paths
from ragqa.ingest.listing import load_manifest
from ragqa.ingest.merge import merge_all


def _jsonl(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _row(i, text, **extra):
    return {"id": f"r{i}", "abstract": f"{text} Record {i} has enough words to be a real abstract.", **extra}


def test_a_spilled_load_equals_the_in_memory_merge(tmp_path):
    wrap = "We study graph net-works and how networks learn. Other networks agree."
    a = _jsonl(tmp_path / "a.jsonl", [_row(0, "Sparse autoencoders scale."), _row(1, wrap, venue="ICML", year=2024),
                                      _row(2, "Diffusion sampling degrades.")])
    b = _jsonl(tmp_path / "b.jsonl", [_row(3, "Robust RL under attack."),  # a duplicate of a/1 with authors
                                      {**_row(1, wrap), "authors": ["Ann One", "Bob Two"]},
                                      _row(4, "Federated privacy.")])
    report, errors = load_paths([a, b])
    want = merge_all(load_file(a).papers + load_file(b).papers)
    assert errors == [] and list(report.papers) == want and len(report.papers) == 5
    assert report.entries == 6 and report.duplicates_merged == 1
    merged = report.papers[1]  # first-seen position, fields from both records
    assert merged.venue == "ICML 2024" and merged.authors == ("Ann One", "Bob Two")
    assert "graph networks" in merged.text  # de-hyphenated against both files' word counts
    assert [p.paper_id for p in report.papers[1:3]] == [want[1].paper_id, want[2].paper_id]


def test_the_bundled_listings_load_as_before(settings):
    report, _ = load_paths([settings.data_dir], load_manifest(settings.data_dir))
    manifest = load_manifest(settings.data_dir)
    files = sorted(p for p in settings.data_dir.iterdir() if p.suffix == ".txt")
    want = merge_all([paper for f in files for paper in load_file(f, manifest).papers])
    assert list(report.papers) == want and len(want) == 95


def test_a_file_that_fails_half_way_adds_nothing(tmp_path):
    good = _jsonl(tmp_path / "a.jsonl", [_row(0, "Sparse autoencoders scale.")])
    bad = tmp_path / "b.jsonl"
    rows = [json.dumps(_row(i, "Graph learning.")) for i in range(1, 2000)]  # past the 64 KB read to detect the format
    bad.write_bytes(("\n".join(rows) + "\n").encode() + b'{"abstract": "caf\xe9 broken"}\n')
    report, errors = load_paths([good, bad])
    offset = len(bad.read_bytes()) - len(b'caf\xe9 broken"}\n') + 3
    assert len(errors) == 1 and f"b.jsonl: not UTF-8 (byte 0xe9 at offset {offset})" in errors[0]
    assert [p.source_id for p in report.papers] == ["r0"] and report.entries == 1 and report.duplicates_merged == 0


def test_json_lines_are_read_as_the_file_is_read(tmp_path, monkeypatch):
    """A JSON-lines file is never read whole (a million-paper file would be held twice: bytes and text)."""
    from pathlib import Path

    path = _jsonl(tmp_path / "big.jsonl", [_row(i, "Graph learning.") for i in range(3000)])
    monkeypatch.setattr(Path, "read_bytes", lambda self: (_ for _ in ()).throw(AssertionError(f"read whole: {self}")))
    report, errors = load_paths([path])
    assert errors == [] and len(report.papers) == 3000 and report.papers[2999].source_id == "r2999"


def test_reading_reports_every_byte_of_every_file(tmp_path, settings):
    """The 'reading' bar of `ragqa ingest` ends at the inputs' size: JSON lines count as they are read (CRLF too),
    other formats when read whole."""
    from ragqa.ingest.corpus import read_papers
    from ragqa.ingest.paper import LoadReport

    lines = tmp_path / "a.jsonl"
    lines.write_bytes(b"\r\n".join(json.dumps(_row(i, "Graph learning \u00e9.")).encode() for i in range(300))
                      + b"\r\n")
    listing = next(p for p in settings.data_dir.iterdir() if p.suffix == ".txt")
    for path in (lines, listing):
        seen: list[int] = []
        papers = list(read_papers(path, load_manifest(settings.data_dir), LoadReport(), seen.append))
        assert papers and sum(seen) == path.stat().st_size


def test_a_pipelines_load_is_held_next_to_its_store(settings, monkeypatch):
    """Not in /tmp, which is often RAM-backed (tmpfs): the spill would take the memory it exists to save."""
    import tempfile

    from ragqa.pipeline import Pipeline

    folders = []
    real = tempfile.TemporaryFile
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda **kw: folders.append(kw.get("dir")) or real(**kw))
    report, _ = Pipeline(settings).load()
    assert len(report.papers) == 95 and folders == [settings.vectorstore_dir] and settings.vectorstore_dir.is_dir()
