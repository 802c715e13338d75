"""The catalog's bookkeeping in its `state` table: a revision every write bumps (readers' views are built for one), a
generation every chunk write bumps (the lexical index is built for one), the papers whose chunks changed since the
lexical index was saved, and the papers added since the views were saved. No paper record is read or written here.
"""
from __future__ import annotations

import sqlite3

from ragqa.store.catalog_db import CatalogConnection, pages


class CatalogState(CatalogConnection):
    """The revision, the generation and what changed since the lexical index and the views were saved."""

    def revision(self) -> int:
        """Bumped by every write to the catalog (records, libraries, generation): readers' views are built for one."""
        row = self._db().execute("SELECT value FROM state WHERE key = 'revision'").fetchone()
        return row[0] if row else 0

    def generation(self) -> int:
        """Bumped by every write that adds, changes or removes chunks (the lexical index is built for one)."""
        row = self._db().execute("SELECT value FROM state WHERE key = 'generation'").fetchone()
        return row[0] if row else 0

    def chunks_changing(self, paper_ids: list[str] | None) -> None:
        """Before chunks of these papers (None: any) are written or removed. The first such call since the lexical
        index was last saved moves the collection to a new generation (the saved index is stale to readers from then
        on, even if the writer is killed) and records the one it was built for; the papers are recorded with it, so
        the next save, in this process or after a kill, knows which chunks changed since (`chunk_changes`)."""
        with self._db() as db:
            if db.execute("SELECT 1 FROM state WHERE key = 'lexical_base'").fetchone() is None:
                db.execute("INSERT INTO state (key, value) SELECT 'lexical_base', COALESCE("
                           "(SELECT value FROM state WHERE key = 'generation'), 0)")
                db.execute("INSERT INTO state (key, value) VALUES ('generation', 1) "
                           "ON CONFLICT(key) DO UPDATE SET value = value + 1")
            if paper_ids is None:
                db.execute("UPDATE state SET value = -1 WHERE key = 'lexical_base'")  # no saved index can be reused
            else:
                db.executemany("INSERT OR IGNORE INTO rewritten (paper_id) VALUES (?)", [(pid,) for pid in paper_ids])
            touch(db)

    def chunk_changes(self) -> tuple[int | None, set[str]] | None:
        """(the generation the last saved lexical index was built for, or None when it cannot be reused; the papers
        whose chunks changed since), or None when no chunk changed since that save."""
        db = self._db()
        row = db.execute("SELECT value FROM state WHERE key = 'lexical_base'").fetchone()
        if row is None:
            return None
        return (row[0] if row[0] >= 0 else None), {pid for (pid,) in db.execute("SELECT paper_id FROM rewritten")}

    def chunk_changes_saved(self) -> None:
        """The lexical index for the current generation is saved: nothing is pending."""
        with self._db() as db:
            db.execute("DELETE FROM state WHERE key = 'lexical_base'")
            db.execute("DELETE FROM rewritten")

    def views_saved(self, revision: int) -> None:
        """The readers' views were saved for this revision: papers added from now on are recorded (papers_added)."""
        with self._db() as db:
            db.execute("INSERT INTO state (key, value) VALUES ('views_revision', ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (revision,))
            db.execute("DELETE FROM added")

    def papers_added(self) -> tuple[int, list[str]] | None:
        """(the revision the readers' views were last saved for, the papers added since, in catalog order), or None
        when some other change was written since (an update, a removal, a library change: the views are built anew)."""
        db = self._db()
        row = db.execute("SELECT value FROM state WHERE key = 'views_revision'").fetchone()
        if row is None or row[0] < 0:
            return None
        ids = [pid for (pid,) in db.execute(
            "SELECT paper_id FROM papers WHERE paper_id IN (SELECT paper_id FROM added) ORDER BY rowid")]
        return row[0], ids


def note_added(db: sqlite3.Connection, new: list[str], updated: list[str]) -> None:
    """Inside a write: record new papers for the views' extension; an update of a paper the views already hold (one
    not added since) makes them stale (papers_added)."""
    row = db.execute("SELECT value FROM state WHERE key = 'views_revision'").fetchone()
    if row is None or row[0] < 0:
        return
    if updated:
        held = set(updated)
        for where, params in pages(updated):
            held -= {pid for (pid,) in db.execute(f"SELECT paper_id FROM added {where}", params)}
        if held:
            views_stale(db)
            return
    db.executemany("INSERT OR IGNORE INTO added (paper_id) VALUES (?)", [(pid,) for pid in new])


def views_stale(db: sqlite3.Connection) -> None:
    """Inside a write that changes what the saved views hold other than by adding papers: they are built anew."""
    db.execute("UPDATE state SET value = -1 WHERE key = 'views_revision'")
    db.execute("DELETE FROM added")


def touch(db: sqlite3.Connection) -> None:
    """Count one more write, inside the writer's transaction."""
    db.execute("INSERT INTO state (key, value) VALUES ('revision', 1) ON CONFLICT(key) DO UPDATE SET value = value + 1")
