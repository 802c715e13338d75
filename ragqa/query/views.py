"""The views of the collection a reader's questions look things up in (venues, years, topics, statuses, libraries;
value -> papers postings; author names and surnames; the author and topic indexes): how each is built from paper
records in catalog order, and how one is extended by the papers added after them, so a writer that only added papers
extends the saved views instead of building them from every record (35 s at 100k papers). Asking them is the
Searcher's (retrieve.py), saving them snapshot.py's; the method-name map is method_names.py's."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ragqa.ingest.paper import authors_of, libraries_of
from ragqa.query.metadata import AuthorIndex, TopicIndex, fold


def venue_of(meta: dict) -> str | None:
    return meta.get("venue") or None


def status_of(meta: dict) -> str | None:
    return fold(meta.get("status") or "") or None


def topic_of(meta: dict) -> str | None:
    return fold(meta.get("topic") or "") or None


def year_of(meta: dict) -> int | None:
    return int(meta["year"]) if meta.get("year") else None


@dataclass(frozen=True)
class View:
    build: Callable  # (records, view_of) -> the view over every record; view_of(name) gives another view
    extend: Callable  # (view, records of papers added after those it holds) -> the view over all of them


def _values(values: Callable, make: Callable = sorted) -> View:
    """The distinct values papers have (sorted, or a set)."""
    def extend(view, metas, _=None):
        return make(set(view) | {v for m in metas.values() for v in values(m) if v})
    return View(lambda metas, _: extend((), metas), extend)


def _postings(key: Callable) -> View:
    """value -> ids of the papers that have it (key(record) -> value or None): a filter is a lookup, not a loop."""
    def extend(out, metas, _=None):
        for pid, m in metas.items():
            value = key(m)
            if value is not None:
                out.setdefault(value, set()).add(pid)
        return out
    return View(lambda metas, _: extend({}, metas), extend)


def _by_author(out, metas, _=None):
    """Folded author name -> their papers."""
    for pid, m in metas.items():
        for a in authors_of(m):
            out.setdefault(fold(a), set()).add(pid)
    return out


def _surnames_of(view_of) -> dict[str, set[str]]:
    """Folded surname -> papers of every author with it (from the author-name view, not every record again)."""
    out: dict[str, set[str]] = {}
    for name, ids in view_of("authors by name").items():
        out.setdefault(name.split()[-1], set()).update(ids)
    return out


def _more_surnames(out, metas, _=None):
    for pid, m in metas.items():
        for a in authors_of(m):
            out.setdefault(fold(a).split()[-1], set()).add(pid)
    return out


def _indexed(cls) -> View:
    def extend(view, metas, _=None):
        view.add(metas)
        return view
    return View(lambda metas, _: cls(metas), extend)


VIEWS: dict[str, View] = {
    "venue": _values(lambda m: [m.get("venue")]),
    "year": _values(lambda m: [int(m["year"])] if m.get("year") else []),
    "topic": _values(lambda m: [m.get("topic")]),
    "status": _values(lambda m: [m.get("status")], set),
    "library": _values(libraries_of),
    "postings:venue": _postings(venue_of),
    "postings:year": _postings(year_of),
    "postings:status": _postings(status_of),
    "postings:topic text": _postings(topic_of),
    "authors by name": View(lambda metas, _: _by_author({}, metas), _by_author),
    "surnames": View(lambda _, view_of: _surnames_of(view_of), _more_surnames),
    "author index": _indexed(AuthorIndex),
    "topic index": _indexed(TopicIndex),
}
