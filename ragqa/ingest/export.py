"""Paper records -> citation files: BibTeX (via bibtexparser's writer), CSL-JSON, a Markdown reference list.

Only what a Paper holds is written (no look-ups, no invented fields). The BibTeX is escaped so that
bibtex.bibtex_records reads back the same abstracts, hence the same paper ids.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, urlsplit

from ragqa.errors import RagqaError
from ragqa.ingest.paper import Paper

EXPORT_SUFFIXES = {".bib": "bibtex", ".json": "csl-json", ".md": "markdown"}

_CONFERENCE = re.compile(
    r"\b(ICLR|ICML|NeurIPS|NIPS|AAAI|IJCAI|ACL|EMNLP|NAACL|EACL|COLING|CVPR|ICCV|ECCV|WACV|BMVC|KDD|WWW|SIGIR|"
    r"WSDM|CIKM|COLT|AISTATS|UAI|CoRL|ICRA|IROS|RSS|ICASSP|INTERSPEECH|MICCAI|CHI|MLSys|ALT)\b"
    r"|conference|proceedings|symposium|workshop|neural information processing systems", re.I)
_STOP_WORDS = frozenset(
    "a an the on of for in to and or with via from by at as is are be do does can how what when why which "
    "towards toward into beyond under over we our its not no".split())
_PARTICLES = frozenset("van von de der den del della di da du dos das la le ten ter zu bin ibn".split())
_NAME_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())
# what no exported field may carry: control characters (a NUL makes a .bib unreadable) and bidi controls (a name
# shown reversed), each written as a space (so an abstract keeps its paper id); line breaks are joined by the writers
_INVISIBLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_DOI = re.compile(r"10\.\d+(?:\.\d+)*/[^\s{}\\\"<>]+")
_EPRINT = re.compile(r"[\w.\-/:]+")
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


class ExportError(RagqaError):
    """Papers could not be written in the requested citation format."""


def export_papers(papers: Iterable[Paper], fmt: str) -> str:
    """Papers (deduplicated by paper id, in the given order) as 'bibtex', 'csl-json' or 'markdown' text."""
    writers = {"bibtex": to_bibtex, "csl-json": to_csl_json, "markdown": to_markdown}
    if fmt not in writers:
        raise ExportError(f"unknown export format {fmt!r}. Use one of: {', '.join(writers)}.")
    unique: dict[str, Paper] = {}
    for paper in papers:
        unique.setdefault(paper.paper_id, paper)
    return writers[fmt](list(unique.values()))


def format_for_path(path: str | Path) -> str:
    """The export format a file name asks for: .bib, .json (CSL-JSON) or .md."""
    suffix = Path(path).suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise ExportError(f"{path}: cannot export to {suffix or '(no extension)'}. "
                          "Name the file .bib, .json (CSL-JSON) or .md.")
    return EXPORT_SUFFIXES[suffix]


# -- keys and names -----------------------------------------------------------------------------
def split_name(name: str) -> tuple[str, str, str, str]:
    """'Jean de la Fontaine' -> ('Jean', 'de la', 'Fontaine', ''); 'John Smith Jr.' -> ('John', '', 'Smith', 'Jr.')."""
    words = name.split()
    suffix = words.pop() if len(words) > 2 and words[-1].lower() in _NAME_SUFFIXES else ""
    if len(words) <= 1:
        return "", "", " ".join(words), suffix
    first, last = words[:-1], words[-1]
    von: list[str] = []
    while len(first) > 1 and first[-1].lower() in _PARTICLES:
        von.insert(0, first.pop())
    return " ".join(first), " ".join(von), last, suffix


def _ascii(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower())


def _base_key(paper: Paper) -> str:
    held = re.sub(r"[^\w:.+/-]", "", dict(paper.extra).get("citekey", ""))
    if held:
        return held  # imported from BibTeX: the user's own key, cited in their documents
    surname = _ascii(split_name(paper.authors[0])[2]) if paper.authors else ""
    words = (_ascii(w) for w in re.split(r"[\s\-:/]+", paper.title or paper.label))
    word = next((w for w in words if w and w not in _STOP_WORDS), "")
    return f"{surname or 'anon'}{paper.year or ''}{word}"


def citekeys(papers: Iterable[Paper]) -> dict[str, str]:
    """paper_id -> citekey, e.g. karvonen2024measuring. Papers sharing a key are ordered by paper id:
    the first keeps it, the others get a, b, c... appended."""
    taken: set[str] = set()
    keys: dict[str, str] = {}
    for paper in sorted(papers, key=lambda p: (_base_key(p), p.paper_id)):
        base = key = _base_key(paper)
        n = 0
        while key in taken:
            n += 1
            key = base + _letters(n)
        taken.add(key)
        keys[paper.paper_id] = key
    return keys


def _letters(n: int) -> str:
    """1 -> 'a', 26 -> 'z', 27 -> 'aa'."""
    out = ""
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(97 + r) + out
    return out


def _is_conference(venue: str | None) -> bool:
    return bool(venue and _CONFERENCE.search(venue) and not venue.lower().startswith("arxiv"))


def _url(paper: Paper) -> str | None:
    """The paper's first web link that is safe to write anywhere (safe_url), or None."""
    extra = dict(paper.extra)
    return next((url for url in (safe_url(extra.get(k)) for k in ("url", "proceedings_url", "virtual_site", "pdf"))
                 if url), None)


def safe_url(value) -> str | None:
    """An http(s) link on one line, with every character a citation file or Markdown could read as syntax ({ } \\ " < >
    spaces, control characters) percent-encoded; anything else (javascript:, file:, a relative path, text) -> None."""
    text = str(value or "").strip()
    if not text or re.search(r"[\r\n]", text):
        return None
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return quote(text, safe="%:/?#[]@!$&'()*+,;=~-._")


def safe_doi(value) -> str | None:
    """A DOI (10.<registrant>/<suffix>, a doi.org link's path too) with nothing a citation file reads as syntax."""
    text = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", str(value or "").strip(), flags=re.I)
    return text if _DOI.fullmatch(text) else None


def safe_eprint(value) -> str | None:
    """An archive identifier (2301.00001, hep-th/9901001v2): letters, digits and . - / : only."""
    text = str(value or "").strip()
    return text if _EPRINT.fullmatch(text) else None


def plain(text: str) -> str:
    """Text on one line: control and bidi characters, tabs and line breaks (with the spaces around them) as one
    space."""
    return re.sub(r" *[\t\r\n\v\f\x85\u2028\u2029][\s]*", " ", _INVISIBLE.sub(" ", text)).strip()


# -- BibTeX -------------------------------------------------------------------------------------
def escape_latex(text: str) -> str:
    """Text -> LaTeX that decodes back to the same text: & % $ # _ { } ~ ^ \\ escaped, the -- `` ''
    ligatures broken with {}, line breaks joined. Non-ASCII stays UTF-8."""
    text = re.sub(r"[ \t]*\n\s*", " ", _INVISIBLE.sub(" ", text))  # a space, as paper_id_for reads them
    balanced = _braces_balance(text)
    braces = {"{": r"\{", "}": r"\}"} if balanced else {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
    text = re.sub(r"[\\{}$&%#_~^]", lambda m: _LATEX_SPECIAL.get(m.group(), braces.get(m.group(), "")), text)
    return re.sub(r"([-`'])(?=\1)|([!?])(?=`)", r"\1\2{}", text)


def _braces_balance(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _protect_case(escaped_title: str) -> str:
    """{GAN}s, {BERT}, {ImageNet}: styles that lower-case titles must leave these words alone."""
    return re.sub(r"(?<![\\\w])[A-Za-z0-9]*[A-Za-z0-9][A-Z][A-Za-z0-9]*", lambda m: "{" + m.group() + "}",
                  escaped_title)


def _bib_name(name: str) -> str:
    if (re.search(r"\band\b", name, re.I) or not re.fullmatch(r"(?:[^\W_]|[ .'\-])+", name)
            or len(name.split()) == 1 and not name.isalpha()):
        # one unit: an organisation, or a name BibTeX would split or its name parser misread (commas, LaTeX marks)
        return "{" + escape_latex(name) + "}"
    first, von, last, suffix = (escape_latex(part) for part in split_name(name))
    return ", ".join(part for part in (f"{von} {last}".strip(), suffix, first) if part)


def to_bibtex(papers: list[Paper]) -> str:
    """@inproceedings for conference venues, @misc otherwise; fields only where the Paper has them."""
    import bibtexparser
    from bibtexparser.middlewares import default_unparse_stack
    from bibtexparser.model import Entry, Field

    keys = citekeys(papers)
    library = bibtexparser.Library()
    for paper in papers:
        extra = dict(paper.extra)
        conference = _is_conference(paper.venue)
        fields = {
            "title": _protect_case(escape_latex(plain(paper.title))) if paper.title else None,
            "author": " and ".join(_bib_name(plain(a)) for a in paper.authors if plain(a))
            + (" and others" if paper.authors_truncated else "") if paper.authors else None,
            "year": str(paper.year) if paper.year else None,
            ("booktitle" if conference else "howpublished"): escape_latex(plain(paper.venue)) if paper.venue else None,
            "abstract": escape_latex(paper.abstract),
            "keywords": escape_latex(plain(", ".join(k.strip() for k in extra.get("keywords", "").split(",")
                                                     if k.strip()))),
            "doi": safe_doi(extra.get("doi")), "url": _url(paper), "eprint": safe_eprint(extra.get("eprint")),
        }
        if fields["eprint"] and (paper.venue or "").lower().startswith("arxiv"):
            fields["archiveprefix"] = "arXiv"
        library.add(Entry("inproceedings" if conference else "misc", keys[paper.paper_id],
                          [Field(k, v) for k, v in fields.items() if v]))
    layout = bibtexparser.BibtexFormat()
    layout.indent, layout.block_separator = "  ", "\n"
    return bibtexparser.write_string(library, unparse_stack=default_unparse_stack(allow_inplace_modification=True),
                                     bibtex_format=layout)


# -- CSL-JSON and Markdown ----------------------------------------------------------------------
def _csl_name(name: str) -> dict[str, str]:
    first, von, last, suffix = split_name(name)
    if not first:
        return {"literal": name}
    return {k: v for k, v in (("family", last), ("given", first), ("non-dropping-particle", von), ("suffix", suffix))
            if v}


def to_csl_json(papers: list[Paper]) -> str:
    """CSL-JSON as citation processors (pandoc, Zotero, citeproc) read it."""
    keys = citekeys(papers)
    items = []
    for paper in papers:
        extra = dict(paper.extra)
        item = {
            "id": keys[paper.paper_id], "type": "paper-conference" if _is_conference(paper.venue) else "article",
            "title": plain(paper.title or ""), "author": [_csl_name(plain(a)) for a in paper.authors] or None,
            "issued": {"date-parts": [[paper.year]]} if paper.year else None,
            "container-title": plain(paper.venue or ""),
            "abstract": _INVISIBLE.sub(" ", paper.abstract), "DOI": safe_doi(extra.get("doi")), "URL": _url(paper),
        }
        items.append({k: v for k, v in item.items() if v})
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def _markdown_text(text: str) -> str:
    """One line of literal text: every character Markdown (or its HTML) could read as markup is backslash-escaped."""
    text = re.sub(r"([\\`*_\[\]<>&|~])", r"\\\1", plain(text))
    # what opens a list, a heading, a quote or a rule where a line starts ("- Ann", "1. Ann", "# Ann")
    return re.sub(r"^(\d+)([.)])", r"\1\\\2", re.sub(r"^([-+#>=])", r"\\\1", text))


def to_markdown(papers: list[Paper]) -> str:
    """'1. Authors (Year). *Title*. Venue. URL' per paper; parts a paper lacks are left out."""
    lines = []
    for n, paper in enumerate(papers, 1):
        parts = [f"{_markdown_text(paper.author_line())} ({paper.year or 'n.d.'})." if paper.authors
                 else f"({paper.year or 'n.d.'}).", f"*{_markdown_text(paper.title or paper.label)}*."]
        if paper.venue:
            parts.append(f"{_markdown_text(paper.venue)}.")
        if _url(paper):
            parts.append(f"<{_url(paper)}>")
        lines.append(f"{n}. " + " ".join(parts))
    return "\n".join(lines) + ("\n" if lines else "")
