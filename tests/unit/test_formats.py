"""Library import: format detection, the BibTeX / RIS / arXiv / OpenReview readers, and the
load_file / load_paths fixes (UTF-16, missing paths, unsupported files in folders)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragqa.errors import ListingError
from ragqa.ingest.bibtex import bibtex_records
from ragqa.ingest.corpus import load_file, load_paths
from ragqa.ingest.formats import detect_format, read_records
from ragqa.ingest.latex import decode_latex
from ragqa.ingest.paper import paper_id_for

LIBRARIES = Path(__file__).resolve().parents[1] / "data" / "libraries"
CORPORA = Path(__file__).resolve().parents[3] / "shared" / "data" / "corpora"
HAND_WRITTEN = {"mueller2023gans", "dup2024", "dup2024#2", "after2022broken", "arXiv:hep-th/9901001", "RejSub0001",
                "YearOnly01", None}
ABSTRACT = "We study duplicate detection in reference managers and show that content hashes of abstracts work well."


def papers_by_id(path: Path) -> dict:
    return {p.source_id: p for p in load_file(path).papers}


# -- detection ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,name,expected", [
    ("@article{a, title={T}}\n", "refs.txt", "bibtex"),
    ("% Encoding: UTF-8\n\n@inproceedings{a,\n title={T}}", "refs.bib", "bibtex"),
    ("My references\n\n@misc{a, title={T}}\n", "notes.txt", "bibtex"),
    ("not bibtex at all", "refs.bib", "bibtex"),
    ("TY  - JOUR\nTI  - T\nER  - \n", "export.txt", "ris"),
    ("\ufeff\nTY  - CONF\nER  - ", "export.ris", "ris"),
    ('{"id": "0704.0001", "authors_parsed": [["Foo", "A.", ""]], "abstract": "x"}\n', "arxiv.json", "arxiv"),
    ('{"id": "0704.0001", "categories": "cs.LG", "versions": []}\n', "slice.jsonl", "arxiv"),
    ('{"id": "x", "content": {"title": {"value": "T"}}}\n', "notes.jsonl", "openreview"),
    ('{"notes": [{"id": "x", "content": {"title": "T"}}], "count": 1}', "notes.json", "openreview"),
    ('[\n  {"id": "x", "content": {"title": "T"}}\n]', "notes.txt", "openreview"),
    ('{"id": "a", "abstract": "x"}\n{"id": "b", "abstract": "y"}\n', "papers.json", "jsonl"),
    ('[{"id": "a", "abstract": "x"}]', "papers.json", "json"),
    ('[\n  {"id": "a", "abstract": "x"},\n  {"id": "b", "abstract": "y"}\n]\n', "papers.json", "json"),
    ('{broken\n{"id": "b", "abstract": "y"}\n', "papers.txt", "jsonl"),
    ("{not json\n", "broken.jsonl", "jsonl"),
    ("id,title,abstract\n1,T,x\n", "papers.txt", "csv"),
    ("id\ttitle\tabstract\n1\tT\tx\n", "papers.csv", "tsv"),
    ("NeurIPS 2024 论文列表\n\nAn abstract.", "list.txt", "listing"),
])
def test_detect_format_by_content(text, name, expected):
    assert detect_format(text, name) == expected


@pytest.mark.parametrize("fixture,saved_as", [
    ("zotero.bib", "library.txt"), ("endnote.ris", "export.txt"), ("arxiv-snapshot.jsonl", "slice.json"),
    ("openreview-v2.json", "notes.jsonl"), ("openreview-v1.jsonl", "notes.txt"),
])
def test_file_saved_with_another_extension_loads_the_same(tmp_path, fixture, saved_as):
    shutil.copy(LIBRARIES / fixture, tmp_path / saved_as)
    original, renamed = load_file(LIBRARIES / fixture), load_file(tmp_path / saved_as)
    assert [p.paper_id for p in renamed.papers] == [p.paper_id for p in original.papers] != []
    assert [s.reason for s in renamed.skipped] == [s.reason for s in original.skipped]


# -- every fixture: good records load, each bad one is one clear skip ---------------------------
@pytest.mark.parametrize("fixture,n_papers,bare,skips", [
    # both dup2024 entries are kept (a key is a label); a record without an abstract is kept as its record
    ("zotero.bib", 13, 1, {"zotero.bib:line 117": "malformed @article entry 'broken2021'"}),
    ("zotero-utf16.bib", 3, 0, {}),
    ("endnote.ris", 7, 1, {"endnote.ris:line 73": "text outside a record"}),
    ("arxiv-snapshot.jsonl", 8, 1, {"arxiv-snapshot.jsonl:line 9": "invalid JSON"}),
    ("openreview-v2.json", 6, 1, {}),
    ("openreview-v1.jsonl", 5, 0, {"openreview-v1.jsonl:line 6": "not an OpenReview note"}),
])
def test_fixture_loads_good_records_and_reports_each_bad_one(fixture, n_papers, bare, skips):
    report = load_file(LIBRARIES / fixture)
    assert len(report.papers) == n_papers
    assert sum(p.metadata_only for p in report.papers) == bare
    assert all(p.title and p.text == p.title for p in report.papers if p.metadata_only)
    assert len(report.skipped) == len(skips)
    for skip in report.skipped:
        assert skips[skip.source] in skip.reason and "\n" not in skip.reason


@pytest.mark.parametrize("fixture", ["zotero.bib", "zotero-utf16.bib", "endnote.ris", "arxiv-snapshot.jsonl",
                                     "openreview-v2.json", "openreview-v1.jsonl"])
def test_fixture_abstracts_hash_like_the_source_corpus(fixture):
    """Importing undoes each format's encoding: the real papers get the ids the JSONL corpus gives them."""
    if not CORPORA.is_dir():
        pytest.skip("shared corpora not available")
    ids = {paper_id_for(json.loads(line)["abstract"]) for name in ("iclr2024.jsonl", "icml2024.jsonl")
           for line in (CORPORA / name).open(encoding="utf-8")}
    real = [p for p in load_file(LIBRARIES / fixture).papers if p.source_id not in HAND_WRITTEN and not p.metadata_only]
    assert real and all(p.paper_id in ids for p in real)


# -- BibTeX -------------------------------------------------------------------------------------
@pytest.mark.parametrize("latex,text", [
    (r"{GAN}s for M{\"u}ller", "GANs for Müller"),
    (r"caf\'e na\"ive {\'E}cole", "café naïve École"),
    (r"Garc\'{\i}a", "García"),
    (r"50\% of \$5 \& x\_i \#1 \{a\}", "50% of $5 & x_i #1 {a}"),
    ("50% raw & bare", "50% raw & bare"),
    (r"\textbackslash{}alpha \textasciitilde{}\textasciicircum{} \^{}\~{}", "\\alpha ~^ ^~"),
    ("Fig.~3 -- and --- ``quoted''", "Fig. 3 \u2013 and \u2014 \u201cquoted\u201d"),
    (r"$\mathcal{O}(n^2)$ and $x_i \in \{0,1\}$", r"$\mathcal{O}(n^2)$ and $x_i \in \{0,1\}$"),
    (r"\emph{Why} \textbf{bold}", "Why bold"),
    ("plain text", "plain text"),
])
def test_decode_latex(latex, text):
    assert decode_latex(latex) == text


def test_bibtex_entry_fields():
    (mueller,) = [p for p in load_file(LIBRARIES / "zotero.bib").papers if p.source_id == "mueller2023gans"]
    assert mueller.title == "GANs for Müller's café: naïve Bayes revisited"
    assert (mueller.authors == ("Jörg Müller", "José García", "OpenAI Team", "Jean de la Fontaine")
            and mueller.authors_truncated)
    assert mueller.venue == "NeurIPS 2023" and mueller.year == 2023  # canonical (venues.tsv); as written kept:
    assert dict(mueller.extra)["venue_as_written"] == "Advances in Neural Information Processing Systems 36"
    assert mueller.abstract.startswith("Generative adversarial networks (GANs) trained on café menus reach 50% "
                                       "accuracy on $")
    assert "\n" not in mueller.abstract and r"$x_i \in \{0, 1\}$" in mueller.abstract
    assert dict(mueller.extra) == {"doi": "10.0000/synthetic_doi", "citekey": "mueller2023gans",
                                   "venue_as_written": "Advances in Neural Information Processing Systems 36"}


def test_zotero_entry_keeps_url_keywords_and_venue():
    paper = papers_by_id(LIBRARIES / "zotero.bib")["guo_out-of-variable_2024"]
    assert paper.title == "Out-of-Variable Generalisation for Discriminative Models"
    assert paper.authors == ("Siyuan Guo", "Jonas Bernhard Wildberger", "Bernhard Schölkopf")
    assert paper.venue == "ICLR 2024" and paper.year == 2024
    assert dict(paper.extra)["keywords"] == "Out-of-Variable Generalization, Causality"
    assert r"$\textit{strong}$" in paper.abstract


@pytest.mark.parametrize("bib,where,reason", [
    ("@misc{k1, title={T}, year={2020}}", "k1", None),
    ("@string{k1 = {A}}\n@string{k1 = {B}}", "k1", "duplicate @string (first on line 1); the one on line 2"),
    ("@misc{k1, title={A}, title={B}, abstract={x}}", "k1", "field title given twice"),
    ("@misc{k1,\n abstract = {never closed,\n}\n\n@misc{k2, abstract={ok}}", "line 1", "malformed @misc entry 'k1'"),
])
def test_bibtex_problem_entries(bib, where, reason):
    results = list(bibtex_records(bib))
    found = [r for w, r in results if w == where]
    assert found
    if reason is None:
        assert found[0]["abstract"] == ""
    else:
        assert isinstance(found[-1], str) and reason in found[-1]


@pytest.mark.parametrize("bib,field,value", [
    ('@string{conf = "Neural Nets"}\n@misc{k, abstract={x}, booktitle = conf # " 2021"}', "venue", "Neural Nets 2021"),
    ('@STRING{Conf = {Big Conf}}\n@misc{k, abstract={x}, journal = CONF}', "venue", "Big Conf"),
    ("@misc{k, abstract={x}, howpublished={\\url{https://example.org/a_b}}}", "url", "https://example.org/a_b"),
    ("@misc{k, abstract={x}, date={2019-05-02}}", "year", 2019),
    ("@misc{k, abstract={x}, year={in press}}", "year", None),
    ("@misc{k, abstract={x}, keywords={a; b, c}}", "keywords", ["a", "b", "c"]),
    ("@misc{k, abstract={x}, url={http://x.org/~me/a_b%20c}}", "url", "http://x.org/~me/a_b%20c"),
    ("@misc{k, abstract={x}, Author={Smith, Jr., John and {World Health Organization}}}", "authors",
     ["John Smith Jr.", "World Health Organization"]),
    ("@misc{k, abstract={Line one\n    line two.}, title={A\n  wrapped  title}}", "abstract", "Line one line two."),
    ("@misc{k, abstract={x}, title={A\n  wrapped  title}}", "title", "A wrapped  title"),
])
def test_bibtex_field_mapping(bib, field, value):
    ((_, record),) = list(bibtex_records(bib))
    assert record[field] == value


# -- RIS ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("source_id,title,authors,venue,year", [
    ("OF7e0w1uon", "Q-Star Meets Scalable Posterior Sampling: Bridging Theory and Practice via HyperAgent",
     ("Yingru Li", "Jiawei Xu", "Lei Han", "Zhi-Quan Luo"), "ICML 2024", 2024),
    (None, "Alternative Tags From EndNote", ("Ann Lee", "Bo Kim Jr."), "Journal of Tests 2023", 2023),
])
def test_ris_records(source_id, title, authors, venue, year):
    paper = next(p for p in load_file(LIBRARIES / "endnote.ris").papers if p.title == title)
    assert (paper.source_id, paper.authors, paper.venue, paper.year) == (source_id, authors, venue, year)


def test_ris_extras_and_multiline_abstract():
    papers = {p.title: p for p in load_file(LIBRARIES / "endnote.ris").papers}
    endnote = papers["Alternative Tags From EndNote"]
    assert endnote.abstract.endswith("the journal is JO and this abstract continues on an untagged second line.")
    assert dict(endnote.extra) == {"keywords": "ris, endnote"}
    assert dict(papers["The Last Record Has No End Tag"].extra) == {}
    q_star = papers["Q-Star Meets Scalable Posterior Sampling: Bridging Theory and Practice via HyperAgent"]
    assert dict(q_star.extra) == {"doi": "10.0000/synthetic.3", "url": "https://proceedings.mlr.press/v235/li24by.html"}


# -- arXiv --------------------------------------------------------------------------------------
def test_arxiv_snapshot_records():
    papers = papers_by_id(LIBRARIES / "arxiv-snapshot.jsonl")
    first = papers["arXiv:2401.00001"]
    assert first.venue == "arXiv cs.CL 2024" and first.year == 2024
    assert "\n" not in first.title and "  " not in first.abstract and not first.abstract.startswith(" ")
    assert dict(first.extra) == {"eprint": "2401.00001", "categories": "cs.CL cs.AI", "url": "https://arxiv.org/abs/2401.00001"}
    old = papers["arXiv:hep-th/9901001"]
    assert old.authors == ("J. Müller", "A. García") and old.year == 1999 and old.venue == "arXiv hep-th 1999"
    assert old.title == "An Old-Style Identifier"


@pytest.mark.parametrize("row,field,value", [
    ({"versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}], "update_date": "2008-11-13"}, "year",
     2007),
    ({"versions": [{"version": "v1", "created": "garbled"}], "update_date": "2008-11-13"}, "year", 2008),
    ({"authors_parsed": [["Foo", "A.", ""], ["Bar", "B.", "Jr"]], "authors": "ignored"}, "authors",
     ["A. Foo", "B. Bar Jr"]),
    ({"authors": "A. Foo, B. Bar and C. Baz"}, "authors", "A. Foo, B. Bar and C. Baz"),
    ({"categories": "stat.ML cs.LG"}, "venue", "arXiv stat.ML"),
    ({"journal-ref": "Phys. Rev. D 76 (2007)", "doi": "10.1103/x"}, "journal_ref", "Phys. Rev. D 76 (2007)"),
    ({"title": "Multi-line\n  title  here"}, "title", "Multi-line title here"),
])
def test_arxiv_field_mapping(row, field, value):
    line = json.dumps({"id": "0704.0001", "abstract": "  An abstract\nwrapped.\n", "categories": "cs.LG"} | row)
    ((_, record),) = list(read_records(line + "\n", "arxiv"))
    assert record[field] == value and record["id"] == "arXiv:0704.0001" and record["abstract"] == "An abstract wrapped."


# -- OpenReview ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fixture,source_id,venue,year,status", [
    ("openreview-v2.json", "RejSub0001", "ICLR 2024", 2024, "Reject"),
    ("openreview-v2.json", "yiMB2DOjsR", "ICLR 2024", 2024, "Poster"),
    ("openreview-v1.jsonl", "YearOnly01", None, 2020, None),
])
def test_openreview_fixture_notes(fixture, source_id, venue, year, status):
    paper = papers_by_id(LIBRARIES / fixture)[source_id]
    assert (paper.venue, paper.year, dict(paper.extra).get("status")) == (venue, year, status)
    assert dict(paper.extra)["url"] == f"https://openreview.net/forum?id={source_id}"


def test_openreview_v1_status_from_decision_or_venue():
    statuses = {dict(p.extra).get("status") for p in load_file(LIBRARIES / "openreview-v1.jsonl").papers if p.venue}
    assert statuses <= {"Poster", "Oral", "Spotlight"} and statuses
    assert {p.venue for p in load_file(LIBRARIES / "openreview-v1.jsonl").papers} == {"ICML 2024", None}


@pytest.mark.parametrize("content,extra,expected", [
    ({"venue": "ICLR 2024 oral", "venueid": "ICLR.cc/2024/Conference"}, {}, ("ICLR 2024", 2024, "Oral")),
    ({"venue": "ICLR 2023 notable top 25%"}, {}, ("ICLR 2023", 2023, "Spotlight")),
    ({"venue": "NeurIPS 2023 Datasets and Benchmarks Poster"}, {},
     ("NeurIPS 2023 Datasets and Benchmarks", 2023, "Poster")),
    ({"venueid": "ICLR.cc/2024/Conference"},
     {"details": {"replies": [{"content": {"decision": {"value": "Accept (spotlight)"}}}]}},
     ("ICLR 2024", 2024, "Spotlight")),
    ({"venueid": "ICLR.cc/2024/Workshop/ME-FoMo"}, {}, ("ICLR 2024 Workshop ME-FoMo", 2024, None)),
    ({"venue": "Withdrawn Submission", "venueid": "ICLR.cc/2024/Conference/Withdrawn_Submission"},
     {"pdate": 1706700000000}, ("Withdrawn Submission", 2024, "Withdrawn")),
    ({}, {"cdate": 1577836800000}, (None, 2020, None)),
    ({"decision": "Reject"}, {}, (None, None, "Reject")),
])
def test_openreview_venue_year_status(content, extra, expected):
    for version in ("v1", "v2"):
        body = {"title": "T", "abstract": "A", "authors": ["Ann Lee"], "primary_area": "generative_models"} | content
        if version == "v2":
            body = {k: {"value": v} for k, v in body.items()}
        ((_, record),) = list(read_records(json.dumps([{"id": "n1", "content": body} | extra]), "openreview"))
        assert (record["venue"], record["year"], record["status"]) == expected
        assert record["topic"] == "generative models" and record["authors"] == ["Ann Lee"] and record["title"] == "T"


# -- reading files: encodings, missing paths, folders -------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_utf16_and_bom_files_are_decoded(tmp_path, encoding):
    path = tmp_path / "refs.bib"
    path.write_bytes((LIBRARIES / "zotero.bib").read_text("utf-8").encode(encoding))
    assert ([p.paper_id for p in load_file(path).papers]
            == [p.paper_id for p in load_file(LIBRARIES / "zotero.bib").papers])


def test_utf16_jsonl_without_bom(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(json.dumps({"id": "a", "abstract": ABSTRACT, "title": "Ünïcode"}).encode("utf-16-le"))
    (paper,) = load_file(path).papers
    assert paper.title == "Ünïcode" and paper.paper_id == paper_id_for(ABSTRACT)


@pytest.mark.parametrize("name", ["missing.jsonl", "missing.pdf", "missing-folder"])
def test_missing_path_says_no_such_file_or_folder(tmp_path, name):
    with pytest.raises(ListingError, match="no such file or folder"):
        load_file(tmp_path / name)
    report, errors = load_paths([tmp_path / name])
    assert report.papers == [] and len(errors) == 1 and "no such file or folder" in errors[0]


def test_folder_reads_bib_and_ris_and_reports_unsupported_files(tmp_path):
    for name in ("zotero.bib", "endnote.ris"):
        shutil.copy(LIBRARIES / name, tmp_path / name)
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "README").write_text("notes")
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x01")
    (tmp_path / "sub").mkdir()
    report, errors = load_paths([tmp_path])
    # zotero.bib's two dup2024 entries are two papers; records without an abstract kept
    assert len(report.papers) == 13 + 7
    assert errors == [f"{tmp_path / 'README'}: unsupported format (no extension) "
                      "(use .txt, .jsonl, .json, .csv, .bib, .ris)",
                      f"{tmp_path / 'paper.pdf'}: unsupported format .pdf (use .txt, .jsonl, .json, .csv, .bib, .ris)"]


def test_several_paths_at_once_merge_duplicates(tmp_path):
    """What 'ragqa ingest a.bib b.jsonl folder/' does: one report, the same paper once."""
    folder = tmp_path / "more"
    folder.mkdir()
    shutil.copy(LIBRARIES / "endnote.ris", folder / "endnote.ris")
    report, errors = load_paths([LIBRARIES / "zotero.bib", LIBRARIES / "zotero.bib", folder])
    assert errors == [] and len(report.papers) == 13 + 7 and report.duplicates_merged == 13


def test_csl_json_from_a_reference_manager_is_read_by_content(tmp_path):
    """Zotero, Mendeley and Paperpile export CSL-JSON; ragqa exported it but could not read it (#46 3)."""
    from ragqa.ingest.corpus import load_file

    items = [
        {"id": "http://zotero.org/users/1/items/ABC", "type": "paper-conference",
         "citation-key": "vaswani2017attention",
         "title": "Attention Is All You Need", "container-title": "Advances in Neural Information Processing Systems",
         "author": [{"family": "Vaswani", "given": "Ashish"}, {"family": "Shazeer", "given": "Noam"},
                    {"literal": "Google Brain"}],
         "issued": {"date-parts": [[2017, 12]]}, "DOI": "10.5555/3295222.3295349",
         "abstract": "The dominant sequence transduction models are based on complex recurrent networks. " * 3},
        {"id": "item2", "type": "article-journal", "title": "A Preprint", "author": [{"family": "Lee", "given": "Ann"}],
         "issued": {"raw": "2023"}, "URL": "https://arxiv.org/abs/2301.00001",
         "abstract": "We study preprints and their citation in reference managers with care. " * 3},
    ]
    path = tmp_path / "My Library.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    report = load_file(path)
    assert report.skipped == [] and len(report.papers) == 2
    first, second = report.papers
    assert (first.title == "Attention Is All You Need"
            and first.authors == ("Ashish Vaswani", "Noam Shazeer", "Google Brain"))
    assert first.year == 2017 and first.venue == "NeurIPS 2017"
    assert (dict(first.extra)["citekey"] == "vaswani2017attention"
            and dict(first.extra)["doi"] == "10.5555/3295222.3295349")
    assert second.year == 2023 and dict(second.extra)["url"] == "https://arxiv.org/abs/2301.00001"


def test_ragqas_own_csl_json_export_reads_back_as_the_same_papers(tmp_path):
    from ragqa.ingest.corpus import load_file
    from ragqa.ingest.export import export_papers

    originals = load_file(LIBRARIES / "zotero.bib").papers
    path = tmp_path / "export.json"
    path.write_text(export_papers(originals, "csl-json"), encoding="utf-8")
    back = load_file(path).papers
    assert [p.paper_id for p in back] == [p.paper_id for p in originals]
    assert [(p.title, p.year, p.authors) for p in back] == [(p.title, p.year, p.authors) for p in originals]


def test_a_real_world_bib_keeps_colliding_keys_and_sloppy_author_lists(tmp_path):
    """Two different papers under one citekey (li2024learning, common in raw exports) and an author list with a stray
    comma ("… and weihongluo,  and …", as a proceedings export wrote it) are every one kept (#46 1)."""
    from ragqa.ingest.corpus import load_file

    path = tmp_path / "icml.bib"
    path.write_text("""@string{icml = {International Conference on Machine Learning}}
@inproceedings{li2024learning, title = {Learning A}, author = {Li, Wei and Chen, Bo}, booktitle = icml,
  abstract = {We learn A with care and many sentences about the method and its results.}, year = {2024}}
@inproceedings{li2024learning, title = {Learning B}, author = {Li, Ming}, booktitle = icml # { 2024},
  abstract = {We learn B with other care and different sentences about methods and data.}, year = {2024}}
@inproceedings{luo2024sloppy, title = {Sloppy Names}, author = {Zhang, San and weihongluo,  and Wang, Wu},
  abstract = {We study sloppy author lists in the proceedings exports of conferences.}, year = {2024}}
""", encoding="utf-8")
    report = load_file(path)
    assert report.skipped == [] and [p.title for p in report.papers] == ["Learning A", "Learning B", "Sloppy Names"]
    assert report.papers[1].authors == ("Ming Li",) and report.papers[1].venue == "ICML 2024"
    assert report.papers[2].authors == ("San Zhang", "weihongluo", "Wu Wang")
    assert ([w.source for w in report.warnings] == ["icml.bib:luo2024sloppy"]
            and "weihongluo" in report.warnings[0].reason)
    assert {dict(p.extra)["citekey"] for p in report.papers[:2]} == {"li2024learning"}  # the user's key, as written


def test_a_csv_with_a_huge_field_is_read_without_raising_the_process_wide_field_limit():
    """csv's field-size limit is process-wide: reading a long abstract raises it only while that reader parses."""
    import csv

    from ragqa.ingest.records import csv_records

    before = csv.field_size_limit()
    rows = list(csv_records("title,abstract\nT," + "x" * (before + 10) + "\n", ","))
    assert len(rows[0][1]["abstract"]) == before + 10 and csv.field_size_limit() == before
    with pytest.raises(Exception, match="abstract"):
        list(csv_records("", ","))
