"""The content terms of a text (answerability's lexical features): lower-cased words of three or more characters
and number-unit tokens, less the words that say what kind of question it is rather than what it is about,
with light plural folding. One definition for the question side (answerability.py) and the collection side
(the catalog's term table); TermStats, their document frequencies over the indexed papers."""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping

_TERM = re.compile(r"[a-z][a-z0-9\-]{2,}|\d+[a-z]+")
# words that say what kind of question it is, not what it is about (form, not topic)
_FORM_WORDS = {
    "paper", "papers", "work", "works", "study", "studies", "studied", "research", "method", "methods", "approach",
    "approaches", "propose", "proposes", "proposed", "introduce", "introduces", "introduced", "present", "presents",
    "which", "what", "how", "does", "did", "are", "there", "any", "some", "show", "shows", "find", "found", "about",
    "collection", "indexed", "use", "uses", "using", "used", "way", "ways", "new", "is", "the", "and", "for", "with",
    "that", "this", "these", "their", "they", "them", "into", "from", "can", "could", "would", "should", "when", "why",
    "who", "where", "whether", "than", "more", "most", "less", "has", "have", "had", "been", "being", "was", "were",
    "its", "it's", "also", "only", "other", "such", "between", "without", "within", "over", "under", "our", "you",
    "your", "one", "two", "get", "make", "makes", "making", "help", "helps", "know", "known", "tell", "me", "else",
    "anything", "something", "look", "looking", "want", "need", "give", "list", "all", "each", "not", "but", "via",
    "of", "to", "in", "on", "by", "as", "at", "or", "an", "a", "do", "be", "if", "so", "we", "i",
    # how a request is phrased in conversation ("whats the deal with X", "explain X simply", "briefly summarize X")
    "whats", "hows", "deal", "explain", "explains", "describe", "describes", "summarize", "summarise", "summary",
    "overview", "briefly", "simply", "please", "exactly", "actually", "basically", "really",
}
# what a list request says the papers do with its subject ("papers mentioning X", "work discussing X"), in every form:
# request wording here and in metadata.FRAME_WORDS alike
REQUEST_VERBS = frozenset("""
studying proposing propose proposes proposed introducing introduce introduces introduced mention mentions mentioned
mentioning discuss discusses discussed discussing regarding concerning tackle tackles tackling investigate investigates
investigated investigating examine examines examined examining focusing focused dealing
""".split())
_FORM_WORDS |= REQUEST_VERBS


def terms(text: str) -> list[str]:
    """Content terms of a text, lower-cased, light plural folding (models -> model)."""
    out = []
    for t in _TERM.findall(text.lower()):
        if t in _FORM_WORDS:
            continue
        if len(t) > 4 and t.endswith("s") and not t.endswith("ss"):
            t = t[:-1]
        out.append(t)
    return out


_COMPOUND = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


def paper_terms(meta: dict) -> frozenset[str]:
    """A paper's terms: its title, display label and text, as the catalog and a record both hold them; a hyphenated
    word also gives its parts and its parts written as one, so a question's "high norm tokens" finds an abstract's
    "high-norm tokens", and "multimodal LLMs" a title's "Multi-Modal"."""
    return _terms_of_record(meta, inner=False)


def _terms_of_record(meta: dict, inner: bool) -> frozenset[str]:
    """paper_terms; with `inner`, also the runs of two or more parts inside its longer hyphenated words ("in-context"
    of "in-context-learning"), so a question's "in-context" finds them: a candidate's own terms only (the catalog's
    term table counts paper_terms, whose definition its counts were added and are taken away with)."""
    text = f"{meta.get('title') or ''} {meta.get('label') or ''} {meta.get('text') or ''}"
    compounds = _COMPOUND.findall(text.lower())
    parts = " ".join(compounds).replace("-", " ")
    joined = " ".join(c.replace("-", "") for c in compounds)
    runs = ""
    if inner:
        runs = " ".join("-".join(split[i:j]) for split in (c.split("-") for c in compounds)
                        for i in range(len(split)) for j in range(i + 2, len(split) + 1) if (i, j) != (0, len(split)))
    return frozenset(terms(text) + terms(parts) + terms(joined) + terms(runs))


class TermStats:
    """Document frequencies of terms over the indexed papers (title + label + abstract), for IDF weights.
    `frequencies(terms) -> {term: df}` looks up only the terms a question asks about (the catalog's term table,
    Catalog.term_frequencies); without it they are counted over `papers` in memory. A paper's own terms come
    from its record when it is a candidate: nothing here holds a term set per indexed paper."""

    _KEEP = 50_000  # candidate papers' term sets kept between questions

    def __init__(self, papers: Mapping[str, dict], frequencies: Callable[[list[str]], dict[str, int]] | None = None):
        self._papers = papers
        self.n = max(1, len(papers))
        if frequencies is None:
            counts = Counter(t for meta in papers.values() for t in paper_terms(meta))
            frequencies = lambda ts: {t: counts[t] for t in ts if counts.get(t)}  # noqa: E731
        self._frequencies = frequencies
        self._df: dict[str, int] = {}
        self._terms: dict[str, frozenset[str]] = {}

    def df(self, terms: list[str]) -> dict[str, int]:
        """term -> the number of indexed papers that have it, for the given terms that any paper has."""
        todo = [t for t in dict.fromkeys(terms) if t not in self._df]
        if todo:
            found = self._frequencies(todo)
            self._df.update({t: int(found.get(t, 0)) for t in todo})
        # entries are only ever added: safe across the UI's threads
        return {t: self._df[t] for t in terms if self._df[t]}

    def as_indexed(self, qterms: list[str]) -> list[str]:
        """`qterms`, a hyphenated one no indexed paper writes whole ("Wasserstein-space", where abstracts write
        "Wasserstein space") read as its parts, as a paper's hyphenated words also give their parts (paper_terms)."""
        df = self.df(qterms)
        split = {t: terms(t.replace("-", " ")) for t in qterms if "-" in t and t not in df}
        return list(dict.fromkeys(p for t in qterms for p in split.get(t, [t]))) if split else qterms

    def subject_terms(self, text: str) -> list[str]:
        """The distinct terms of a question or subject, as_indexed: what its IDF weights are taken over."""
        return self.as_indexed(list(dict.fromkeys(terms(text))))

    def idf(self, term: str) -> float:
        return math.log((self.n + 1) / (self.df([term]).get(term, 0) + 0.5))

    def terms_of(self, paper_id: str) -> frozenset[str]:
        found = self._terms.get(paper_id)
        if found is None:
            if len(self._terms) >= self._KEEP:
                self._terms.clear()
            meta = self._papers.get(paper_id)
            found = self._terms[paper_id] = _terms_of_record(meta, inner=True) if meta else frozenset()
        return found
