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
                                          "abstract": f"We fold proteins with transformers, study {i}. " * 4, "venue": "bioRxiv",
                                          "year": 2024}) for i in range(start, start + n)))
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


@pytest.mark.parametrize("name, fmt_check", [("refs.json", lambda t: json.loads(t)[0]["title"]), ("refs.md", lambda t: t.startswith("1. "))])
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
