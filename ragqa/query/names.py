"""The name index: whether any indexed paper carries a name (GPT-4, LoRA, Stable Diffusion) in its label, title,
text or authors, and whether one introduces it. Look-ups are phrase queries on the catalog's full-text table,
which every catalog write keeps current (catalog.py), so nothing here reads every paper. Which words of a question
are names, and what to do when one is missing, is retrieve.py's business.
"""
from __future__ import annotations

import re
from itertools import product

from ragqa.query.metadata import fold

_SUFFIX = re.compile(r"-(?:style|based|like|type|free|aware|driven|guided|inspired|level|wise|scale)$", re.I)
_INTRODUCING = re.compile(r"\b(?:propos|introduc|present|call|dub|term|nam|develop)\w*\b", re.I)
_SEPARATOR = r"[\s_.\-]?"  # between a name's pieces in an abstract: GPT-4, GPT 4, GPT4
_SCAN = 200  # papers whose abstract is read for an "introduces" sentence: the first this many that contain the name


_GREEK = dict(zip("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
                  "upsilon phi chi psi omega".split(), "αβγδεζηθικλμνξοπρστυφχψω"))
_SPELLED_GREEK = re.compile(rf"(?<=-)({'|'.join(sorted(_GREEK, key=len, reverse=True))})(?![a-z])", re.I)


def greek(name: str) -> str:
    """A Greek letter spelled out after a hyphen written as the letter: CRATE-alpha -> CRATE-α, as papers write it."""
    return _SPELLED_GREEK.sub(lambda m: _GREEK[m[1].lower()], name)


def parts(name: str) -> list[str]:
    """GPT-4 -> [gpt, 4]; SVD-style -> [svd]; CRATE-alpha -> [crate, α]: the pieces a name is matched by."""
    return re.findall(r"[a-zα-ω]+|\d+", greek(_SUFFIX.sub("", name)).lower())


def _spellings(pieces: list[str], plural: bool = True) -> list[str]:
    """FTS5 phrases for every way the pieces may be written: GPT-4 / GPT 4 (two tokens) or GPT4 (one); with
    `plural`, also with an s added or dropped (a mention of LLMs is one of LLM; a title's "Transformers" names no
    method called Transformer)."""
    last = pieces[-1]
    forms = [pieces] + ([pieces[:-1] + [last + "s"], pieces[:-1] + [last.removesuffix("s")]] if plural else [])
    out = []
    # the s on the last word: "Switch Sparse Autoencoder" is written ...Autoencoders
    for form in (f for f in forms if f[-1]):
        for joins in product((" ", ""), repeat=len(form) - 1):
            out.append(form[0] + "".join(j + p for j, p in zip(joins, form[1:])))
    return list(dict.fromkeys(out))


def _query(pieces: list[str], columns: str = "", plural: bool = True) -> str:
    phrases = " OR ".join(f'"{s}"' for s in _spellings(pieces, plural))
    return f"{columns} : ({phrases})" if columns else phrases


class NameIndex:
    """Name look-ups over a Catalog's full-text tables. `surnames()` gives folded author surname -> papers (the
    Searcher's view of them), for "the Bengio paper"."""

    def __init__(self, catalog, surnames):
        self.catalog, self._surnames = catalog, surnames

    def mentions(self, name: str) -> bool:
        """Some indexed paper's label, title, text or author names contain `name` (GPT-4 = GPT4 = gpt 4)."""
        pieces = parts(name)
        if len(pieces) > 3:  # too long to be one name: never the reason to refuse
            return True
        if not pieces:
            return False
        query = _query(pieces)
        return bool(self.catalog.name_hits(query, 1) or self.catalog.author_name_hits(query, 1))

    def mentioned_by(self, name: str, limit: int) -> int:
        """How many indexed papers (at most `limit`) carry `name` in their label, title or text, as written
        (no plural)."""
        pieces = parts(name)
        return len({pid for pid, _ in self.catalog.name_hits(_query(pieces, plural=False), limit)}) if pieces else 0

    def introduces(self, name: str) -> bool:
        """Some indexed paper is labelled or titled with `name`, introduces it in its abstract ("we propose/
        introduce/call ... NAME" within one sentence), or has an author of that surname ("the Bengio paper")."""
        pieces = parts(name)
        if not pieces:
            return False
        if fold(name) in self._surnames() or self.catalog.name_hits(_query(pieces, "{label title}", plural=False), 1):
            return True
        return any(_introduced_in(text, pieces)
                   for _, text in self.catalog.name_hits(_query(pieces, "text", plural=False), _SCAN))

    def own_papers(self, name: str, limit: int) -> list[str]:
        """The papers whose abstract introduces `name` ("we introduce ... p-annealing"), when at most `limit` indexed
        papers carry it at all (its own paper, and one that cites or compares with it); none when more do, as a name
        many papers use (LoRA, GPT-4) is no one paper's own."""
        pieces = parts(name)
        hits = dict(self.catalog.name_hits(_query(pieces, plural=False), limit + 1)) if pieces else {}
        if len(hits) > limit:
            return []
        return [pid for pid, text in hits.items() if _introduced_in(text, pieces)]


def _introduced_in(text: str, pieces: list[str]) -> bool:
    """The text names the pieces' name after an introducing verb of the same sentence
    ("we propose/introduce/call ... NAME")."""
    # JKOnet* or LoRA+ is not JKOnet or LoRA
    loose = re.compile(r"(?<![\w-])" + _SEPARATOR.join(pieces) + r"(?![\w\-*+])", re.I)
    return any(_INTRODUCING.search(text[max(0, m.start() - 80):m.start()].rsplit(".", 1)[-1])
               for m in loose.finditer(text or ""))
