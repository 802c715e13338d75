"""Citation export: citekeys, LaTeX escaping, BibTeX / CSL-JSON / Markdown output, and the BibTeX
round trip through the importer (same paper ids, no duplicates on re-import)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragqa.errors import RagqaError
from ragqa.ingest.bibtex import bibtex_records
from ragqa.ingest.corpus import load_file, load_paths
from ragqa.ingest.export import _INVISIBLE, citekeys, escape_latex, export_papers, format_for_path, split_name
from ragqa.ingest.latex import decode_latex
from ragqa.ingest.paper import make_paper

LIBRARIES = Path(__file__).resolve().parents[1] / "data" / "libraries"
CORPORA = Path(__file__).resolve().parents[3] / "shared" / "data" / "corpora"
MARKS = ["$", "%", "_", "{", "}", "\\", "~", "^", "&", "#", "--", "''", "``"]
TRICKY_ABSTRACTS = [
    r"We reach 50% of $\mathcal{O}(n^2)$ with x_i, {braces} and a \alpha -- and ``quotes'' --- done.",
    "Unbalanced { brace and } twice } here, plus ~tilde ^caret #hash & amp, and a trailing backslash \\",
    "Non-ASCII stays: Schölkopf, naïve, 数据, “curly”, and a\ttab  and  double  spaces.",
    "Ligatures -- --- ---- `` '' ''' !` ?` must survive, as must 100%% and $$x$$ and \\\\ twice.",
]


def paper(abstract: str = "An abstract about graphs.", **fields):
    return make_paper(abstract, "test", **fields)


# -- keys and names -----------------------------------------------------------------------------
@pytest.mark.parametrize("authors,year,title,key", [
    (("Adam Karvonen", "Ben Wright"), 2024, "Measuring Progress in Dictionary Learning", "karvonen2024measuring"),
    (("Bernhard Schölkopf",), 2021, "On the Causal Nature of Things", "scholkopf2021causal"),
    (("Jean de la Fontaine",), 2020, "The A-to-Z of Fables", "fontaine2020z"),
    (("John Smith Jr.",), 2019, "A Study", "smith2019study"),
    ((), None, "Towards $\\alpha$-GANs: Beyond", "anonalpha"),
    (("OpenAI",), 2023, "GPT-4 Technical Report", "openai2023gpt"),
])
def test_citekey(authors, year, title, key):
    p = paper(authors=authors, year=year, title=title)
    assert citekeys([p]) == {p.paper_id: key}


def test_colliding_citekeys_get_letters_in_paper_id_order():
    papers = [paper(f"Abstract number {i} about sparse autoencoders.", authors=("Adam Karvonen",), year=2024,
                    title="Measuring Things") for i in range(4)]
    keys = citekeys(papers)
    ordered = [keys[p.paper_id] for p in sorted(papers, key=lambda p: p.paper_id)]
    assert (ordered == ["karvonen2024measuring", "karvonen2024measuringa", "karvonen2024measuringb",
                        "karvonen2024measuringc"])
    assert citekeys(list(reversed(papers))) == keys


def test_imported_citekey_is_kept():
    p = paper(authors=("Ann Lee",), year=2020, title="Anything", extra=(("citekey", "lee:2020:any"),))
    assert citekeys([p]) == {p.paper_id: "lee:2020:any"}


@pytest.mark.parametrize("name,parts", [
    ("Adam Karvonen", ("Adam", "", "Karvonen", "")),
    ("Nicholas Donald Lane", ("Nicholas Donald", "", "Lane", "")),
    ("Jean de la Fontaine", ("Jean", "de la", "Fontaine", "")),
    ("Ludwig van Beethoven", ("Ludwig", "van", "Beethoven", "")),
    ("John Smith Jr.", ("John", "", "Smith", "Jr.")),
    ("Plato", ("", "", "Plato", "")),
])
def test_split_name(name, parts):
    assert split_name(name) == parts


# -- escaping -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,latex", [
    ("50% & $5 #1 x_i", r"50\% \& \$5 \#1 x\_i"),
    ("{a} \\b ~c ^d", r"\{a\} \textbackslash{}b \textasciitilde{}c \textasciicircum{}d"),
    ("only { open", r"only \textbraceleft{} open"),
    ("a -- b --- c", "a -{}- b -{}-{}- c"),
    ("``q'' !`", "`{}`q'{}' !{}`"),
    ("Schölkopf 数据", "Schölkopf 数据"),
    ("wrapped\n   line", "wrapped line"),
])
def test_escape_latex(text, latex):
    assert escape_latex(text) == latex


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ -`'!?{}~%&$#_^\\\"<>é.,:;()[]@*/=+0\t") + ["数", "\u2013"]),
               max_size=80))
def test_escape_then_decode_is_identity(text):
    assert decode_latex(escape_latex(text)) == text


# -- BibTeX output ------------------------------------------------------------------------------
def test_bibtex_entry_types_and_only_held_fields():
    conf = paper(authors=("Adam Karvonen", "Samuel Marks"), year=2024,
                 title="Measuring Progress with GANs and ImageNet",
                 venue="NeurIPS 2024", extra=(("keywords", "sae, interpretability"), ("status", "Poster")))
    preprint = paper("A different abstract.", title="A Preprint", venue="arXiv cs.LG 2023", year=2023,
                     extra=(("eprint", "2301.00001"), ("url", "https://arxiv.org/abs/2301.00001")))
    bare = paper("A third abstract with no metadata at all.")
    library = {e.key: e for e in bibtexparser.parse_string(export_papers([conf, preprint, bare], "bibtex")).entries}
    assert set(library) == {"karvonen2024measuring", "anon2023preprint", "anonthird"}
    entry = library["karvonen2024measuring"]
    assert entry.entry_type == "inproceedings"
    assert {f.key for f in entry.fields} == {"title", "author", "year", "booktitle", "abstract", "keywords"}
    assert entry["title"] == "Measuring Progress with {GANs} and {ImageNet}"
    assert entry["author"] == "Karvonen, Adam and Marks, Samuel"
    pre = library["anon2023preprint"]
    assert pre.entry_type == "misc" and pre["howpublished"] == "arXiv cs.LG 2023"
    assert (pre["eprint"], pre["archiveprefix"]) == ("2301.00001", "arXiv")
    assert {f.key for f in library["anonthird"].fields} == {"abstract"}


@pytest.mark.parametrize("name,bib", [
    ("Jean de la Fontaine", "de la Fontaine, Jean"),
    ("John Smith Jr.", "Smith, Jr., John"),
    ("World Health Organization, Geneva", "{World Health Organization, Geneva}"),
    ("Bill and Melinda Gates Foundation", "{Bill and Melinda Gates Foundation}"),
])
def test_bibtex_author_names_read_back(name, bib):
    p = paper(authors=(name, "Ann Lee"), title="T")
    text = export_papers([p], "bibtex")
    assert f"author = {{{bib} and Lee, Ann}}" in text
    ((_, record),) = list(bibtex_records(text))
    assert record["authors"] == [name, "Ann Lee"]


def test_truncated_author_list_exports_and_others(tmp_path):
    p = paper(authors=("Ann Lee",), authors_truncated=True, title="T")
    (back,) = _round_trip([p], tmp_path)
    assert "and others" in export_papers([p], "bibtex") and back.authors == ("Ann Lee",) and back.authors_truncated


def _round_trip(papers, tmp_path: Path):
    path = tmp_path / "export.bib"
    path.write_text(export_papers(papers, "bibtex"), encoding="utf-8")
    report = load_file(path)
    assert report.skipped == []
    return report.papers


@pytest.mark.parametrize("abstract", TRICKY_ABSTRACTS)
def test_bibtex_round_trip_keeps_tricky_abstracts_exactly(tmp_path, abstract):
    p = paper(abstract, authors=("Zoë Müller-Lüdenscheidt", "Ann Lee"), title="{Braces} & 50% $x$ -- Title",
              venue="ICLR 2024", year=2024)
    (back,) = _round_trip([p], tmp_path)
    assert (back.paper_id, back.abstract, back.title, back.authors, back.venue, back.year) == \
           (p.paper_id, re.sub(r"[ \t]*\n\s*", " ", p.abstract), p.title, p.authors, p.venue, p.year)


@pytest.fixture(scope="module")
def corpus_papers(tmp_path_factory):
    """ICLR/ICML 2024 papers whose abstracts hold each LaTeX-special mark, plus non-ASCII ones."""
    if not CORPORA.is_dir():
        pytest.skip("shared corpora not available")
    rows = [json.loads(line) for name in ("iclr2024.jsonl", "icml2024.jsonl")
            for line in (CORPORA / name).open(encoding="utf-8")]
    chosen = [r for mark in MARKS for r in [r for r in rows if mark in r["abstract"]][:8]]
    chosen += [r for r in rows if any(ord(c) > 127 for c in r["abstract"] + "".join(r["authors"]))][:20]
    path = tmp_path_factory.mktemp("corpus") / "sample.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in {r["id"]: r for r in chosen}.values()), encoding="utf-8")
    return path


def _keywords(p) -> str | None:
    words = [w.strip() for w in dict(p.extra).get("keywords", "").split(",") if w.strip()]
    return ", ".join(words) or None


def test_bibtex_round_trip_on_real_abstracts(corpus_papers, tmp_path):
    originals = load_file(corpus_papers).papers
    back = {p.paper_id: p for p in _round_trip(originals, tmp_path)}
    assert len(originals) > 60 and set(back) == {p.paper_id for p in originals}
    for p in originals:
        q = back[p.paper_id]
        assert (q.abstract == _INVISIBLE.sub(" ", p.abstract) and q.title == p.title
                and (q.venue, q.year) == (p.venue, p.year))
        assert q.authors == tuple(" ".join(a.split()) for a in p.authors)
        assert dict(q.extra).get("keywords") == _keywords(p)


def test_reimport_adds_no_duplicates_and_keeps_citekeys(corpus_papers, tmp_path):
    exported = tmp_path / "library.bib"
    exported.write_text(export_papers(load_file(corpus_papers).papers, "bibtex"), encoding="utf-8")
    report, errors = load_paths([corpus_papers, exported])
    assert errors == [] and len(report.papers) == len(load_file(corpus_papers).papers)
    again = export_papers(load_file(exported).papers, "bibtex")
    assert again == exported.read_text("utf-8")  # citekeys and fields are stable across a re-export


@pytest.mark.parametrize("fixture", ["zotero.bib", "endnote.ris", "arxiv-snapshot.jsonl", "openreview-v2.json",
                                     "openreview-v1.jsonl"])
def test_every_import_format_round_trips_through_bibtex(fixture, tmp_path):
    originals = load_file(LIBRARIES / fixture).papers
    back = _round_trip(originals, tmp_path)
    assert [p.paper_id for p in back] == [p.paper_id for p in originals]
    assert [(p.title, p.year, p.venue) for p in back] == [(p.title, p.year, p.venue) for p in originals]


# -- CSL-JSON and Markdown ----------------------------------------------------------------------
def test_csl_json():
    conf = paper(authors=("Adam Karvonen", "Jean de la Fontaine", "Plato"), year=2024, title="Measuring Progress",
                 venue="ICML 2024", extra=(("doi", "10.1/x"), ("url", "https://example.org/p")))
    preprint = paper("Another abstract.", title="Preprint", venue="arXiv cs.LG 2023")
    items = json.loads(export_papers([conf, preprint], "csl-json"))
    assert items[0] == {
        "id": "karvonen2024measuring", "type": "paper-conference", "title": "Measuring Progress",
        "author": [{"family": "Karvonen", "given": "Adam"},
                   {"family": "Fontaine", "given": "Jean", "non-dropping-particle": "de la"}, {"literal": "Plato"}],
        "issued": {"date-parts": [[2024]]}, "container-title": "ICML 2024", "abstract": conf.abstract,
        "DOI": "10.1/x", "URL": "https://example.org/p",
    }
    assert items[1]["type"] == "article" and "issued" not in items[1] and "author" not in items[1]


@pytest.mark.parametrize("fields,line", [
    ({"authors": ("Ann Lee", "Bo Kim"), "year": 2024, "title": "Graphs", "venue": "ICLR 2024",
      "extra": (("url", "https://openreview.net/forum?id=x"),)},
     "1. Ann Lee, Bo Kim (2024). *Graphs*. ICLR 2024. <https://openreview.net/forum?id=x>"),
    ({"authors": ("Ann Lee",), "authors_truncated": True, "title": "JKOnet*: a_b"},
     r"1. Ann Lee et al. (n.d.). *JKOnet\*: a\_b*."),
    ({"title": "No Authors", "year": 2020}, "1. (2020). *No Authors*."),
])
def test_markdown_reference_line(fields, line):
    assert export_papers([paper(**fields)], "markdown") == line + "\n"


def test_export_numbers_and_dedupes():
    a, b = paper("First.", title="A"), paper("Second.", title="B")
    assert export_papers([a, b, a], "markdown").splitlines() == ["1. (n.d.). *A*.", "2. (n.d.). *B*."]
    assert export_papers([], "bibtex").strip() == "" and json.loads(export_papers([], "csl-json")) == []


@pytest.mark.parametrize("path,fmt", [("refs.bib", "bibtex"), ("out/REFS.JSON", "csl-json"), ("list.md", "markdown")])
def test_format_for_path(path, fmt):
    assert format_for_path(path) == fmt


@pytest.mark.parametrize("call,match", [
    (lambda: format_for_path("refs.docx"),
     r"cannot export to \.docx\. Name the file \.bib, \.json \(CSL-JSON\) or \.md\."),
    (lambda: format_for_path("refs"), r"cannot export to \(no extension\)"),
    (lambda: export_papers([], "ris"), "unknown export format 'ris'. Use one of: bibtex, csl-json, markdown."),
])
def test_export_errors_are_one_line_ragqa_errors(call, match):
    with pytest.raises(RagqaError, match=match):
        call()


# -- hostile fields -----------------------------------------------------------------------------
HOSTILE = st.lists(st.sampled_from(
    list("aZ 0.,:;-_{}\\%#@=\"'<>[]()!*`|~&$^/\n\r\t") + ["\x00", "\u202e", "\u200b", "数", "}\n@misc{x,", "\\write18{",
                                                       "javascript:", "](", "![x](http://a/i.png)", "<script>"]),
    min_size=1, max_size=20).map("".join)
URLISH = st.one_of(HOSTILE, st.builds(lambda s, t: s + t,
                                      st.sampled_from(["https://a.org/", "http://b.io/x?", "javascript:", "file:///",
                                                       " https://c.d/"]), HOSTILE))
EXPORTED_FIELDS = {"title", "author", "year", "booktitle", "howpublished", "abstract", "keywords", "doi", "url",
                   "eprint", "archiveprefix"}


def _one_line(text: str) -> str:
    from ragqa.ingest.export import plain
    return plain(text)


@st.composite
def hostile_papers(draw):
    papers = []
    for n in range(draw(st.integers(1, 3))):
        extra = {"keywords": draw(HOSTILE), "doi": draw(st.one_of(HOSTILE, st.just("10.1234/ok-1"))),
                 "url": draw(URLISH), "eprint": draw(HOSTILE), "citekey": draw(HOSTILE)}
        papers.append(paper(f"Abstract {n}: " + draw(HOSTILE), title=draw(HOSTILE), venue=draw(HOSTILE),
                            authors=tuple(draw(st.lists(HOSTILE, min_size=1, max_size=3))), year=2024,
                            extra=tuple(extra.items())))
    return papers


@settings(max_examples=150, deadline=None)
@given(hostile_papers())
def test_hostile_fields_never_add_entries_or_fields_to_a_bibtex_export(papers):
    text = export_papers(papers, "bibtex")
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks and not library.strings and not library.preambles
    assert len(library.entries) == len({p.paper_id for p in papers})
    for entry in library.entries:
        assert {f.key for f in entry.fields} <= EXPORTED_FIELDS
        url = entry.fields_dict.get("url")
        assert url is None or re.fullmatch(r"https?://[^\s{}\\\"<>]+", url.value)
    from ragqa.ingest.paper import paper_id_for

    back = {paper_id_for(record["abstract"]): record for _, record in bibtex_records(text)}
    for p in papers:  # ragqa reads back the same paper (its id), its fields on one line without invisible characters
        record = back[p.paper_id]
        assert (record["title"] or None) == (_one_line(p.title) or None) if p.title else True
        assert record["venue"] == (" ".join(_one_line(p.venue).split()) or None) if p.venue else True  # spaces folded
        assert record["authors"] == [" ".join(a.split()) for a in p.authors if _one_line(a)]  # names: spaces folded


@settings(max_examples=150, deadline=None)
@given(hostile_papers())
def test_hostile_fields_give_valid_csl_json(papers):
    items = json.loads(export_papers(papers, "csl-json"))
    assert len(items) == len({p.paper_id for p in papers})
    for item, p in zip(items, papers):
        assert set(item) <= {"id", "type", "title", "author", "issued", "container-title", "abstract", "DOI", "URL"}
        assert "URL" not in item or re.fullmatch(r"https?://[^\s{}\\\"<>]+", item["URL"])
        assert item.get("title", "") == _one_line(p.title or "")


@settings(max_examples=150, deadline=None)
@given(hostile_papers())
def test_hostile_fields_give_one_markdown_list_item_per_paper_and_only_web_links(papers):
    from markdown_it import MarkdownIt

    text = export_papers(papers, "markdown")
    tokens = MarkdownIt("commonmark").parse(text)
    assert [t.type for t in tokens if t.type.endswith("list_open")] == ["ordered_list_open"]
    assert sum(t.type == "list_item_open" for t in tokens) == len({p.paper_id for p in papers})
    inline = [child for t in tokens if t.type == "inline" for child in t.children]
    assert (not [c for c in inline if c.type in ("image", "html_inline")]
            and not [t for t in tokens if t.type == "html_block"])
    assert all(re.match(r"https?://", c.attrs["href"]) for c in inline if c.type == "link_open")
    items = [t for t in tokens if t.type == "inline"]
    for p, item in zip(papers, items):  # the title reads back as the emphasised text, and nothing else is markup
        kinds = [c.type for c in item.children]
        assert set(kinds) <= {"text", "em_open", "em_close", "link_open", "link_close", "softbreak"}
        inside = kinds.index("em_open"), kinds.index("em_close")
        assert "".join(c.content for c in item.children[inside[0] + 1:inside[1]]) == _one_line(p.title or p.label)


@pytest.mark.parametrize("url,safe", [
    ("https://openreview.net/forum?id=x", "https://openreview.net/forum?id=x"),
    ("https://a.org/p}\n@misc{evil, note={\\input{/etc/hostname}}", None),
    ("https://a.org/p} , note = {\\write18{rm}}", "https://a.org/p%7D%20,%20note%20=%20%7B%5Cwrite18%7Brm%7D%7D"),
    ("javascript:alert(1)", None), ("file:///etc/passwd", None), ("www.example.org", None), ("https://", None),
])
def test_safe_url(url, safe):
    from ragqa.ingest.export import safe_url
    assert safe_url(url) == safe


def test_injected_url_cannot_add_fields_or_entries():
    evil = paper(title="T", extra=(("url", "https://a.org/x}, note = {\\input{/etc/hostname}}\n@misc{pwn, title={x}"),
                                   ("doi", "10.1/x}, note={y"), ("eprint", "2301.1} , write = {z")))
    text = export_papers([evil], "bibtex")
    (entry,) = bibtexparser.parse_string(text).entries
    assert {f.key for f in entry.fields} == {"title", "abstract"} and "\\input" not in text
    assert "javascript" not in export_papers([paper(title="T", extra=(("url", "javascript:alert(1)"),))], "markdown")
