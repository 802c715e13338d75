"""Parsing the bundled listings and other inputs into Paper records."""
from __future__ import annotations

import json

import pytest

from ragqa.errors import ListingError
from ragqa.ingest.corpus import load_file, load_paths
from ragqa.ingest.listing import load_manifest, parse_listing
from ragqa.ingest.merge import merge_all
from ragqa.ingest.paper import paper_id_for

ABSTRACT = ("We introduce FooNet, a model for graphs. " * 6).strip()
ABSTRACT2 = ("Diffusion models degrade when sampling with few steps, and we study why this happens in "
             "detail. " * 3).strip()


def test_bundled_corpus_counts(settings):
    report, errors = load_paths([settings.data_dir], load_manifest(settings.data_dir))
    assert errors == []
    assert report.entries == 97
    assert len(report.papers) == 95
    assert report.duplicates_merged == 2
    assert report.skipped == []


def test_merged_karvonen_paper_keeps_venue_and_nine_authors(settings):
    report, _ = load_paths([settings.data_dir], load_manifest(settings.data_dir))
    paper = next(p for p in report.papers if p.authors and p.authors[0] == "Adam Karvonen")
    assert paper.venue == "NeurIPS 2024" and paper.year == 2024
    assert len(paper.authors) == 9 and paper.authors[-1] == "Samuel Marks"
    assert len(paper.sources) == 2 and paper.topic == "Interpretability"


def test_paper_listed_twice_in_one_file_is_one_paper(settings):
    report, _ = load_paths([settings.data_dir / "004_352b537c057e361d.txt"], load_manifest(settings.data_dir))
    assert report.entries == 20 and len(report.papers) == 19
    assert all(p.venue == "ICLR 2025" and p.year == 2025 for p in report.papers)


def test_truncated_author_list_sets_et_al(settings):
    report, _ = load_paths([settings.data_dir], load_manifest(settings.data_dir))
    cut = [p for p in report.papers if p.authors_truncated]
    assert {p.authors[0] for p in cut} == {"Jianbiao Mei", "Jingxuan Chen"}
    assert all("等" not in a for p in cut for a in p.authors)
    assert cut[0].author_line().endswith("et al.")


def test_records_without_topic_line(settings):
    report, _ = load_paths([settings.data_dir / "004_352b537c057e361d.txt"], load_manifest(settings.data_dir))
    liu = next(p for p in report.papers if p.authors[0] == "Toni Liu")
    assert liu.topic is None and len(liu.authors) == 4


def test_labels_name_the_method(settings):
    report, _ = load_paths([settings.data_dir], load_manifest(settings.data_dir))
    labels = {p.label for p in report.papers}
    assert {"DRAGON", "JKOnet*", "InterpBench"} <= labels
    assert all(0 < len(p.label) <= 80 for p in report.papers)


@pytest.mark.parametrize("text,header_venue,n,venue", [
    (f"NeurIPS 2024 论文列表\n\n{ABSTRACT}\n\n{ABSTRACT2}\n", None, 2, "NeurIPS 2024"),
    (f"论文检索\n\nTheory · Learning Theory\n\nA. One, B. Two\n\n{ABSTRACT}\n", "ICLR 2025", 1, "ICLR 2025"),
    (f"论文检索\n\nA. One, B. Two 等\n\n{ABSTRACT}\n\nC. Three\n\n{ABSTRACT2}", None, 2, None),
])
def test_parse_listing_formats(text, header_venue, n, venue):
    report = parse_listing(text, "x.txt", {"venue": header_venue} if header_venue else None)
    assert len(report.papers) == n
    assert report.papers[0].venue == venue


def test_search_page_topic_and_authors():
    report = parse_listing(f"论文检索\n\nTheory · Learning Theory\n\nA. One, B. Two 等\n\n{ABSTRACT}\n\nC. Three\n\n"
                           f"{ABSTRACT2}", "x.txt")
    first, second = report.papers
    assert (first.topic == "Theory · Learning Theory" and first.authors == ("A. One", "B. Two")
            and first.authors_truncated)
    assert second.topic is None and second.authors == ("C. Three",)


def test_unknown_header_is_a_clear_error():
    with pytest.raises(ListingError, match="unknown listing header"):
        parse_listing(f"Some list\n\n{ABSTRACT}", "x.txt")


def test_search_page_record_without_abstract_is_skipped():
    report = parse_listing(f"论文检索\n\nA. One\n\n{ABSTRACT}\n\nB. Two, C. Three\n", "x.txt")
    assert len(report.papers) == 1 and len(report.skipped) == 1


def test_identical_abstract_ids_ignore_whitespace_and_case():
    assert paper_id_for("Hello   World.") == paper_id_for("hello world")
    assert paper_id_for("hello world") != paper_id_for("hello there")


@pytest.mark.parametrize("content,match", [
    (b"", "empty"),
    (b"\x00\x01\x02binary", "binary"),
    ("caf\xe9 latin-1".encode("latin-1") * 20, "not UTF-8"),
])
def test_bad_files(tmp_path, content, match):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(ListingError, match=match):
        load_file(path)


def test_unknown_format(tmp_path):
    path = tmp_path / "papers.pdf"
    path.write_text("x")
    with pytest.raises(ListingError, match="unknown format"):
        load_file(path)


def test_jsonl_records_and_bad_lines(tmp_path):
    rows = [
        {"id": "a", "title": "Foo: A Net", "authors": ["Ann A", "Bob B"], "abstract": ABSTRACT, "venue": "ICLR",
         "year": 2024, "keywords": ["x", "y"]},
        {"id": "b", "title": "No abstract", "authors": [], "abstract": "", "venue": "ICLR", "year": 2024},
        {"id": "a", "title": "Same id", "abstract": ABSTRACT2, "venue": "ICLR", "year": 2024},
        {"id": "c", "title": "Bad year", "abstract": ABSTRACT2, "venue": "ICLR", "year": "soon"},
        {"id": "d", "title": "", "abstract": "", "venue": "ICLR", "year": 2024},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{not json\n[1, 2]\n")
    report = load_file(path)
    assert [p.source_id for p in report.papers] == ["a", "b", "c"]  # b: kept without an abstract, as its record
    bad_year = report.papers[2]  # c: a year that is none is left empty, kept as written, with a warning
    assert bad_year.year is None and dict(bad_year.extra)["year_as_written"] == "soon"
    assert [(w.source, "year 'soon'" in w.reason) for w in report.warnings] == [("p.jsonl:line 4", True)]
    assert [p.metadata_only for p in report.papers] == [False, True, False] and report.papers[1].text == "No abstract"
    paper = report.papers[0]
    assert (paper.venue == "ICLR 2024" and paper.label == "FooNet" and paper.title == "Foo: A Net"
            and dict(paper.extra)["keywords"] == "x, y")
    reasons = " | ".join(s.reason for s in report.skipped)
    for expected in ("no abstract and no title", "duplicate id 'a' with different text", "invalid JSON",
                     "not a JSON object"):
        assert expected in reasons
    assert len(report.skipped) == 4


def test_csv_records(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(f'id,title,authors,abstract,venue,year\n1,T,"Ann A; Bob B","{ABSTRACT}",ICML 2024,2024\n'
                    '2,U,,,ICML 2024,2024\n3,,,,ICML 2024,2024\n')
    report = load_file(path)
    assert len(report.papers) == 2 and report.papers[0].authors == ("Ann A", "Bob B") and report.papers[1].metadata_only
    assert report.papers[0].venue == "ICML 2024" and len(report.skipped) == 1


def test_csv_without_abstract_column(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("id,title\n1,T\n")
    with pytest.raises(ListingError, match="no 'abstract' column"):
        load_file(path)


def test_merge_keeps_venue_from_one_and_authors_from_other():
    venue_only = parse_listing(f"ICML 2024 论文列表\n\n{ABSTRACT}", "a.txt").papers
    authors_only = parse_listing(f"论文检索\n\nTopic · X\n\nA. One, B. Two\n\n{ABSTRACT}", "b.txt").papers
    (merged,) = merge_all(venue_only + authors_only)
    assert merged.venue == "ICML 2024" and merged.authors == ("A. One", "B. Two") and merged.topic == "Topic · X"
    assert merged.sources == ("a.txt", "b.txt")


def test_bad_file_in_folder_does_not_stop_the_rest(tmp_path, settings):
    (tmp_path / "good.txt").write_text(f"ICML 2024 论文列表\n\n{ABSTRACT}")
    (tmp_path / "empty.jsonl").write_text("")
    report, errors = load_paths([tmp_path])
    assert len(report.papers) == 1 and len(errors) == 1 and "empty" in errors[0]


def test_absurd_year_keeps_the_record_without_a_year(tmp_path):
    """#46 1: a malformed field keeps the record, with the value as written and a one-line warning naming it."""
    from ragqa.ingest.corpus import load_file

    path = tmp_path / "y.jsonl"
    path.write_text('{"id": "a", "abstract": "A fine abstract about graphs and more graphs.", "year": 1e400}\n'
                    '{"id": "b", "abstract": "Another abstract about proteins and folding.", "year": 2024}\n'
                    '{"id": "c", "abstract": "A third abstract about images.", "year": 99999}\n')
    report = load_file(path)
    assert ([(p.source_id, p.year) for p in report.papers] == [("a", None), ("b", 2024), ("c", None)]
            and not report.skipped)
    assert [dict(p.extra).get("year_as_written") for p in report.papers] == ["inf", None, "99999"]
    assert [(w.source, w.reason.split(":")[0]) for w in report.warnings] == [
        ("y.jsonl:line 1", "year inf is not a year"), ("y.jsonl:line 3", "year 99999 is not a year")]


def test_merge_unites_extra_fields_and_keeps_the_finer_topic():
    from dataclasses import replace

    (paper,) = parse_listing(f"ICML 2024 论文列表\n\n{ABSTRACT}", "a.txt").papers
    listed = replace(paper, topic="Deep Learning", extra=(("status", "Poster"), ("url", "https://x.org/1")))
    record = replace(paper, topic="Deep Learning->Graph Neural Networks",
                     extra=(("keywords", "graphs, GNN"), ("status", "Oral")))
    (merged,) = merge_all([listed, record])
    assert dict(merged.extra) == {"keywords": "graphs, GNN", "status": "Poster", "url": "https://x.org/1"}
    assert merged.topic == "Deep Learning->Graph Neural Networks"
    (other,) = merge_all([replace(listed, topic="Robotics"), record])
    assert other.topic == "Robotics"  # neither refines the other: the first record's
