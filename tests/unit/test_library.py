"""Per-library collections (#16.4) and citation export from the CLI (#16.3): a round trip from
`search --bibtex` back through `ingest` gives the same papers, no duplicates."""
from __future__ import annotations

import json

import pytest

from ragqa.cli import main
from tests.unit.test_cli import env  # noqa: F401  (the CLI environment fixture)


def _mine(tmp_path, n=3, start=0):
    path = tmp_path / f"mine{start}.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"m{i}", "title": f"Protein folding study {i}", "authors": ["Ann Lee"],
                                          "abstract": f"We fold proteins with transformers, study {i}. " * 4,
                                          "venue": "bioRxiv", "year": 2024}) for i in range(start, start + n)))
    return path


def _libraries(capsys):
    capsys.readouterr()
    assert main(["library", "list", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_libraries_are_kept_apart_and_removing_one_removes_only_its_papers(env, capsys, tmp_path):
    assert main(["ingest", "--quiet"]) == 0
    assert main(["ingest", "--quiet", "--library", "mine", str(_mine(tmp_path))]) == 0
    assert _libraries(capsys) == {"default": 95, "mine": 3}
    assert main(["search", "protein folding", "--library", "mine", "--json", "--k", "10"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert len(results) == 3 and all(r["venue"] == "bioRxiv 2024" for r in results)
    assert main(["library", "remove", "mine"]) == 0
    assert "3 papers" in capsys.readouterr().out
    assert _libraries(capsys) == {"default": 95}
    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["papers"] == 95


def test_a_paper_in_two_libraries_survives_removing_one(env, capsys, tmp_path):
    path = _mine(tmp_path)
    assert main(["ingest", "--quiet", "--library", "a", str(path)]) == 0
    assert main(["ingest", "--quiet", "--library", "b", str(path)]) == 0
    assert _libraries(capsys) == {"a": 3, "b": 3}
    assert main(["library", "remove", "a"]) == 0
    assert _libraries(capsys) == {"b": 3}
    assert main(["search", "protein folding", "--library", "b", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 3


def _search_abstracts(capsys, library):
    capsys.readouterr()
    assert main(["search", "protein folding", "--library", library, "--json", "--k", "10"]) == 0
    return sorted(r["text"] for r in json.loads(capsys.readouterr().out)["results"])


def test_an_edited_version_in_another_library_leaves_the_first_librarys_version_alone(env, capsys, tmp_path):
    """Library A holds a paper; B imports an edited version of it (same id and title, other abstract): B gets the new
    version, A keeps its own, and removing B leaves A's paper in place."""
    original = _mine(tmp_path)
    assert main(["ingest", "--quiet", "--library", "a", str(original)]) == 0
    rows = [json.loads(line) for line in original.read_text().splitlines()]
    rows[1]["abstract"] = "An edited abstract: we fold proteins with diffusion models instead. " * 3
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(json.dumps(r) for r in rows))
    assert main(["ingest", "--quiet", "--library", "b", str(edited)]) == 0
    assert _libraries(capsys) == {"a": 3, "b": 3}
    a_before = _search_abstracts(capsys, "a")
    assert not any("diffusion" in text for text in a_before)
    assert any("diffusion" in text for text in _search_abstracts(capsys, "b"))
    assert main(["library", "remove", "b"]) == 0
    assert _libraries(capsys) == {"a": 3}
    assert _search_abstracts(capsys, "a") == a_before


def test_reimporting_a_library_after_editing_one_record_changes_exactly_that_record(env, capsys, tmp_path):
    original = _mine(tmp_path)
    assert main(["ingest", "--quiet", "--library", "a", str(original)]) == 0
    before = _search_abstracts(capsys, "a")
    rows = [json.loads(line) for line in original.read_text().splitlines()]
    rows[2]["abstract"] = "An edited abstract: we fold proteins with diffusion models instead. " * 3
    original.write_text("\n".join(json.dumps(r) for r in rows))
    assert main(["ingest", "--quiet", "--library", "a", str(original)]) == 0
    after = _search_abstracts(capsys, "a")
    assert _libraries(capsys) == {"a": 3}
    assert len(set(before) - set(after)) == 1 and len(set(after) - set(before)) == 1
    assert any("diffusion" in text for text in set(after) - set(before))


def test_an_unknown_library_is_a_one_line_error(env, capsys):
    main(["ingest", "--quiet"])
    capsys.readouterr()
    assert main(["search", "graphs", "--library", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No library 'nope'" in err and "default" in err
    assert main(["library", "remove", "nope"]) == 1


def test_exported_bibtex_reingests_as_the_same_papers(env, capsys, tmp_path):
    main(["ingest", "--quiet"])
    capsys.readouterr()
    bib = tmp_path / "cited.bib"
    assert main(["search", "sparse autoencoders", "--k", "5", "--json", "--bibtex", str(bib)]) == 0
    ids = [r["paper_id"] for r in json.loads(capsys.readouterr().out)["results"]]
    assert bib.read_text().count("@") == 5
    assert main(["ingest", "--quiet", "--library", "exported", str(bib)]) == 0
    assert "0 new" in capsys.readouterr().out  # the same papers: nothing new, no duplicate
    assert _libraries(capsys) == {"default": 95, "exported": 5}
    assert main(["search", "sparse autoencoders", "--k", "10", "--library", "exported", "--json"]) == 0
    assert sorted(r["paper_id"] for r in json.loads(capsys.readouterr().out)["results"]) == sorted(ids)


@pytest.mark.parametrize("name, fmt_check",
                         [("refs.json", lambda t: json.loads(t)[0]["title"]),
                          ("refs.md", lambda t: t.startswith("1. "))])
def test_export_format_follows_the_suffix(env, capsys, tmp_path, name, fmt_check):
    main(["ingest", "--quiet"])
    out = tmp_path / name
    assert main(["search", "graph neural networks", "--k", "2", "--export", str(out)]) == 0
    assert fmt_check(out.read_text())


def test_a_bad_export_path_fails_before_any_work(env, capsys, tmp_path):
    main(["ingest", "--quiet"])
    capsys.readouterr()
    assert main(["search", "graphs", "--export", str(tmp_path / "x.pdf")]) == 1
    assert "cannot export to .pdf" in capsys.readouterr().err
    assert main(["search", "graphs", "--bibtex", str(tmp_path / "no" / "x.bib")]) == 1
    assert "No folder" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["a; b", "all", "x" * 81, "../etc"])
def test_a_bad_library_name_is_refused_before_any_work(env, capsys, tmp_path, name):
    assert main(["ingest", "--quiet", "--library", name, str(_mine(tmp_path))]) == 1
    assert "is not allowed" in capsys.readouterr().err


def test_oversized_title_and_author_list_keep_every_record(env, capsys, tmp_path):
    """A ~700-character title aborted the whole file (llama-index: metadata longer than the chunk); a 2 MB title or
    5,000 authors made every page that shows the paper huge. Each record is kept, cut down, with a line saying so."""
    rows = [{"id": "long", "title": "Graph learning " * 47, "abstract": "We study graph learning at length. " * 5},
            {"id": "huge", "title": "x" * 2_000_000, "abstract": "We study huge titles in bibliographies. " * 5},
            {"id": "crowd", "title": "Crowd", "authors": [f"Author {i}" for i in range(5000)],
             "abstract": "We study very large author lists in physics papers. " * 5},
            {"id": "plain", "title": "Plain paper", "abstract": "We study protein folding with transformers. " * 5}]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    assert main(["ingest", "--quiet", "--library", "odd", str(path)]) == 0
    captured = capsys.readouterr()
    assert "4 new" in captured.out
    kept = [line for line in captured.err.splitlines() if line.startswith("kept record")]
    assert len(kept) == 2 and "odd.jsonl:line 2" in kept[0] and "authors" in kept[1]
    assert main(["search", "graph learning at length", "--library", "odd", "--json", "--k", "4"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert len(results) == 4 and max(len(json.dumps(r)) for r in results) < 100_000


def test_one_conference_written_six_ways_is_one_venue_for_filters_and_counts(env, capsys, tmp_path):
    """The same venue as JSONL, BibTeX, RIS, CSL-JSON, an arXiv row's journal-ref and an OpenReview note writes it
    (#46 2): filters, counts and stats see one "NeurIPS 2020"; the string as written is kept in the record."""
    abstract = "We study {0} in neural networks with a long and careful abstract about many things; {0} again. "
    (tmp_path / "a.jsonl").write_text(json.dumps({"id": "j1", "title": "Jsonl Paper", "venue": "NeurIPS", "year": 2020,
                                                  "abstract": abstract.format("jsonl")}))
    (tmp_path / "b.bib").write_text("@inproceedings{b1, title={Bib Paper}, booktitle={Advances in Neural Information "
                                    "Processing Systems}, year={2020}, abstract={" + abstract.format("bibtex") + "}}")
    (tmp_path / "c.ris").write_text("TY  - CONF\nTI  - Ris Paper\nT2  - Advances in Neural Information Processing "
                                    "Systems 33\nPY  - 2020\nAB  - " + abstract.format("ris") + "\nER  - \n")
    (tmp_path / "d.json").write_text(json.dumps([{"id": "d1", "type": "paper-conference", "title": "Csl Paper",
                                                  "container-title": "NeurIPS", "issued": {"date-parts": [[2020]]},
                                                  "abstract": abstract.format("csl")}]))
    (tmp_path / "e.jsonl").write_text(json.dumps({"id": "2006.00001", "title": "Arxiv Paper", "authors": "Ann Lee",
                                                  "categories": "cs.LG", "versions": [{"created": "Mon, 1 Jun 2020"}],
                                                  "journal-ref": "Advances in Neural Information Processing Systems 33 "
                                                                 "(NeurIPS 2020)",
                                                  "abstract": abstract.format("arxiv")}))
    (tmp_path / "f.json").write_text(json.dumps({"notes": [{"id": "o1", "forum": "o1", "content": {
        "title": {"value": "Openreview Paper"}, "venue": {"value": "NeurIPS 2020 Poster"},
        "abstract": {"value": abstract.format("openreview")}}}]}))
    assert main(["ingest", "--quiet", "--library", "six", *map(str, sorted(tmp_path.glob("[a-f].*")))]) == 0
    capsys.readouterr()
    assert main(["stats", "--json"]) == 0
    venues = json.loads(capsys.readouterr().out)["venues"]
    assert venues.get("NeurIPS 2020", {}).get("papers") == 6, venues
    assert main(["search", "neural networks", "--venue", "NeurIPS 2020", "--json", "--k", "10"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 6
