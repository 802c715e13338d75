"""The UI's pure helpers (no server, no browser): library names from uploads and their checks
(ui/library.py), and citation files written for the download buttons (ui/app.py)."""
from __future__ import annotations

import pytest

from ragqa.errors import QueryError
from ragqa.ingest.paper import Paper
from ui.app import write_export
from ui.library import check_library_name, library_name_for


@pytest.mark.parametrize("filename, name", [
    ("/tmp/gradio/abc/protein-folding.bib", "protein-folding"),
    ("My refs (2).bib", "My-refs-2"),
    ("zotero.export.json", "zotero.export"),
    ("蛋白质 折叠.ris", "蛋白质-折叠"),
    (".bib", "bib"),
    (None, ""),
    ("x" * 80 + ".csv", "x" * 64),
])
def test_library_name_for(filename, name):
    assert library_name_for(filename) == name


@pytest.mark.parametrize("name, ok", [
    ("  protein-folding ", "protein-folding"), ("My refs 2", "My refs 2"), ("v1.2_final", "v1.2_final"),
    ("", None), ("   ", None), ("all", None), ("ALL", None), ("any", None), ("-leading", None), ("a;b", None),
    ("x" * 65, None),
])
def test_check_library_name(name, ok):
    if ok is None:
        with pytest.raises(QueryError):
            check_library_name(name)
    else:
        assert check_library_name(name) == ok


def _paper(n: int) -> Paper:
    return Paper(paper_id=f"p{n}", abstract=f"Abstract number {n}.", text=f"Abstract number {n}.", label=f"P{n}",
                 title=f"Folding Paper {n}", authors=("Maren Quill",), year=2025,
                 extra=(("citekey", f"quill2025p{n}"),))


def test_write_export_is_named_by_content(tmp_path):
    first = write_export([_paper(1), _paper(2)], "bibtex", "ragqa-cited", tmp_path)
    again = write_export([_paper(1), _paper(2)], "bibtex", "ragqa-cited", tmp_path)
    other = write_export([_paper(2)], "bibtex", "ragqa-cited", tmp_path)
    assert first == again != other and first.name == other.name == "ragqa-cited.bib"
    text = first.read_text(encoding="utf-8")
    assert "@misc{quill2025p1," in text and "Folding Paper 2" in text
    assert not list(tmp_path.rglob("*.part"))


@pytest.mark.parametrize("fmt, suffix, start", [("csl-json", ".json", "["), ("markdown", ".md", "1. ")])
def test_write_export_formats(tmp_path, fmt, suffix, start):
    path = write_export([_paper(1)], fmt, "ragqa-conversation", tmp_path)
    assert path.suffix == suffix and path.read_text(encoding="utf-8").startswith(start)


def test_check_port_takes_ipv6_in_brackets_and_names_the_real_reason():
    """`serve --host [::1]` was told another server held the port; a port in use and an address this machine does not
    have are told apart."""
    import socket

    import pytest

    from ragqa.errors import RagqaError
    from tests.conftest import free_port
    from ui.app import check_port

    port = free_port()
    try:
        socket.create_server(("::1", port), family=socket.AF_INET6).close()
        ipv6 = True
    except OSError:  # a machine without IPv6 loopback
        ipv6 = False
    if ipv6:
        check_port("[::1]", port)
    check_port("127.0.0.1", port)
    with socket.create_server(("127.0.0.1", port)):
        with pytest.raises(RagqaError, match="another server .* holds the port"):
            check_port("127.0.0.1", port)
    with pytest.raises(RagqaError, match="no such address"):
        check_port("192.0.2.1", port)  # TEST-NET-1: never an address of this machine
