"""The Paper record: its content-hash id, its identity when it has no abstract, how one is built from fields as
written (control characters stripped, text cleaned, an author line split) and how its flat metadata is read back;
the LoadReport of a load. No file reading, no merging.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

from ragqa.text.clean import clean_text, make_label
from ragqa.text.untrusted import strip_controls

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


def make_paper(abstract: str, source: str, **fields) -> Paper:
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
        identity = record_identity(fields["title"], fields.get("authors"), fields.get("year"),
                                   dict(fields.get("extra", ())))
        paper_id = "m" + paper_id_for(identity)[1:]  # a metadata-only id never equals an abstract's
    return Paper(
        paper_id=paper_id, abstract=abstract, text=text,
        label=make_label(text, fields.get("title")), sources=(source,), **fields,
    )


def year_of(venue: str | None) -> int | None:
    match = re.search(r"(19|20)\d\d", venue or "")
    return int(match.group(0)) if match else None


def split_authors(line: str) -> tuple[tuple[str, ...], bool]:
    line = line.strip()
    truncated = line.endswith(ET_AL_MARK) or line.lower().endswith("et al.")
    line = re.sub(rf"\s*(?:{ET_AL_MARK}|et al\.)$", "", line, flags=re.I)
    names = [n.strip() for n in re.split(r",|;|\band\b", line) if n.strip()]
    return tuple(names), truncated
