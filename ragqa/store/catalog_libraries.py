"""Libraries: named sets of catalogued papers (a paper may be in several) in the catalog's libraries table; a
library's name checked, papers joining and leaving, the libraries listed. Removing the papers that no library
holds any more is the index's (index.py).
"""
from __future__ import annotations

from ragqa.store.catalog_db import CatalogConnection, pages
from ragqa.store.catalog_state import touch, views_stale

DEFAULT_LIBRARY = "default"


def check_library_name(name: str) -> str:
    """Letters, digits, spaces and . - _ (1-80 characters); "all" and "any" are the selectors' words."""
    import re

    from ragqa.errors import QueryError

    name = name.strip()
    if not re.fullmatch(r"[\w .-]{1,80}", name) or name.lower() in ("all", "any"):
        raise QueryError(f"Library name {name!r} is not allowed: use 1-80 letters, digits, spaces, '.', '-' or '_' "
                         "(not 'all' or 'any').")
    return name


class CatalogLibraries(CatalogConnection):
    """Which libraries hold which papers."""

    def join_library(self, paper_ids: list[str], library: str) -> None:
        """Add these catalogued papers to `library`; a revision only when one was not in it yet (an unchanged
        re-ingest leaves the readers' saved views current)."""
        with self._db() as db:
            before = db.total_changes
            db.executemany("INSERT OR IGNORE INTO libraries (paper_id, library) "
                           "SELECT paper_id, ? FROM papers WHERE paper_id = ?",
                           [(library, pid) for pid in paper_ids])
            if db.total_changes != before:
                views_stale(db)
                touch(db)

    def libraries(self) -> dict[str, int]:
        """library -> papers in it."""
        return dict(self._db().execute("SELECT library, COUNT(*) FROM libraries GROUP BY library ORDER BY library"))

    def library_of(self, paper_ids: list[str] | None = None) -> dict[str, list[str]]:
        """paper_id -> the libraries holding it (of every paper, or of these)."""
        out: dict[str, list[str]] = {}
        for where, params in pages(paper_ids):
            for pid, name in self._db().execute(f"SELECT paper_id, library FROM libraries {where} ORDER BY library",
                                                params):
                out.setdefault(pid, []).append(name)
        return out

    def in_library(self, library: str) -> set[str]:
        return {r[0] for r in self._db().execute("SELECT paper_id FROM libraries WHERE library = ?", (library,))}

    def leave_library(self, library: str) -> list[str]:
        """Take every paper out of `library`; -> the papers now in no library (to be removed)."""
        with self._db() as db:
            ids = [r[0] for r in db.execute("SELECT paper_id FROM libraries WHERE library = ?", (library,))]
            db.execute("DELETE FROM libraries WHERE library = ?", (library,))
            views_stale(db)
            touch(db)
            kept = {r[0] for r in db.execute("SELECT DISTINCT paper_id FROM libraries")}
        return [pid for pid in ids if pid not in kept]

    def leave(self, paper_ids: list[str], library: str) -> None:
        """Take these papers out of `library` (each stays in its other libraries)."""
        if not paper_ids:
            return
        with self._db() as db:
            db.executemany("DELETE FROM libraries WHERE paper_id = ? AND library = ?",
                           [(pid, library) for pid in paper_ids])
            views_stale(db)
            touch(db)
