"""Lists of catalogued paper ids in the Papers tab's order (venue, then title) or newest first, read through the
catalog's indexes, so the first rows of a million papers cost a few reads. Which papers a filter admits is the
caller's; their records are read by catalog.py.
"""
from __future__ import annotations

from collections import Counter

from ragqa.store.catalog_db import CatalogConnection

_SHOWN = "COALESCE(venue, ''), COALESCE(NULLIF(title, ''), label)"  # the Papers tab's order (index papers_shown)


class CatalogBrowse(CatalogConnection):
    """Pages of paper ids in a shown order, for a set of papers or all of them."""

    def browse(self, paper_ids: set[str] | None, limit: int) -> tuple[list[str], Counter]:
        """The Papers tab's page: up to `limit` of these papers' ids (every paper's when None) by venue, then title
        (label when untitled), through an index, so the first rows of a million papers cost a few reads; and
        topic -> papers with it among them. The ids are written to a temporary table once, for both."""
        where = f"WHERE paper_id IN (SELECT paper_id FROM {self._picked(paper_ids)})" if paper_ids is not None else ""
        db = self._db()
        ids = [r[0] for r in db.execute(f"SELECT paper_id FROM papers {where} ORDER BY {_SHOWN} LIMIT ?", (limit,))]
        topics = Counter(dict(db.execute(
            f"SELECT topic, COUNT(*) FROM papers {where} {'AND' if where else 'WHERE'} COALESCE(topic, '') != '' "
            "GROUP BY topic")))
        return ids, topics

    def newest(self, paper_ids: set[str] | None, limit: int) -> list[str]:
        """Up to `limit` of these papers' ids (every paper's when None), newest first, then by label, through an index:
        the lines a list of what a metadata filter admits shows, without reading the other records. Many ids walk the
        newest-first index instead of filling a temporary table (newest_of_each: the same papers)."""
        if paper_ids is not None and len(paper_ids) > self.PICK_MAX:
            return self.newest_of_each({"": paper_ids}, limit)[""]
        where = f"WHERE paper_id IN (SELECT paper_id FROM {self._picked(paper_ids)})" if paper_ids is not None else ""
        return [r[0] for r in self._db().execute(
            f"SELECT paper_id FROM papers {where} ORDER BY COALESCE(year, 0) DESC, label, paper_id LIMIT ?", (limit,))]

    PICK_MAX = 20000  # speed only: fewer ids are looked up through a temporary table, more found by walking the index

    def newest_of_each(self, groups: dict[str, set[str]], limit: int) -> dict[str, list[str]]:
        """Up to `limit` ids of each group, in `newest`'s order, in one pass: the lines of a group answer cite these.
        Small groups are read through a temporary table of their ids; large ones walk the newest-first index until
        every group has its `limit` (a group of 300,000 papers fills at once, not after a 300,000-row join)."""
        wanted = {name: ids for name, ids in groups.items() if ids}
        out: dict[str, list[str]] = {name: [] for name in groups}
        union = set().union(*wanted.values()) if wanted else set()
        if not union:
            return out
        where = (f"WHERE paper_id IN (SELECT paper_id FROM {self._picked(union)})" if len(union) <= self.PICK_MAX
                 else "")
        rows = self._db().execute(
            f"SELECT paper_id FROM papers {where} ORDER BY COALESCE(year, 0) DESC, label, paper_id")
        for (pid,) in rows:
            for name in [n for n, ids in wanted.items() if pid in ids]:
                out[name].append(pid)
                if len(out[name]) >= limit:
                    del wanted[name]
            if not wanted:
                break
        return out

    def shown_as(self, name: str, venue: str) -> list[str]:
        """Papers the Papers tab shows with this name (title, label when untitled) and venue."""
        return [r[0] for r in self._db().execute(
            "SELECT paper_id FROM papers WHERE COALESCE(venue, '') = ? AND COALESCE(NULLIF(title, ''), label) = ?",
            (venue, name))]

    def _picked(self, paper_ids: set[str]) -> str:
        """A temporary table of these ids, for a join where an IN (...) list would pass SQLite's parameter limit."""
        db = self._db()
        with db:  # committed at once: an open transaction would pin this connection to a stale snapshot
            db.execute("CREATE TEMP TABLE IF NOT EXISTS picked (paper_id TEXT PRIMARY KEY) WITHOUT ROWID")
            db.execute("DELETE FROM temp.picked")
            db.executemany("INSERT OR IGNORE INTO temp.picked VALUES (?)", ((pid,) for pid in paper_ids))
        return "temp.picked"
