"""The paper catalog: one SQLite row per indexed paper (record, abstract, text, chunk count) and its authors, next to
the Chroma store, whose chunks carry only their text and the fields Chroma filters on. Here: the schema, opening (and
migrating) it, the paper rows; libraries, terms, names, lists and state are catalog_*.py's. No embedding, no Chroma.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from ragqa.errors import IndexMissingError
from ragqa.ingest.paper import Paper
from ragqa.store.catalog_browse import CatalogBrowse
from ragqa.store.catalog_db import corrupt, corrupt_message, pages
from ragqa.store.catalog_libraries import DEFAULT_LIBRARY, CatalogLibraries
from ragqa.store.catalog_names import NAMES_SCHEMA, CatalogNames
from ragqa.store.catalog_state import CatalogState, note_added, touch, views_stale
from ragqa.store.catalog_terms import TERMS_SCHEMA, CatalogTerms, add_terms, terms_of_rows

_SCHEMA = """
CREATE TABLE IF NOT EXISTS papers (
    paper_id TEXT PRIMARY KEY, label TEXT NOT NULL, title TEXT, venue TEXT, year INTEGER,
    topic TEXT, status TEXT, track TEXT, authors_truncated INTEGER NOT NULL DEFAULT 0,
    source_id TEXT, sources TEXT NOT NULL DEFAULT '[]', extra TEXT NOT NULL DEFAULT '{}',
    abstract TEXT NOT NULL, text TEXT NOT NULL, n_chunks INTEGER NOT NULL,
    flags TEXT NOT NULL DEFAULT ''  -- e.g. "instructions": its abstract addresses the model (untrusted.py)
);
CREATE TABLE IF NOT EXISTS authors (
    paper_id TEXT NOT NULL REFERENCES papers(paper_id) ON DELETE CASCADE,
    position INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (paper_id, position)
);
CREATE TABLE IF NOT EXISTS libraries (
    paper_id TEXT NOT NULL REFERENCES papers(paper_id) ON DELETE CASCADE,
    library TEXT NOT NULL, PRIMARY KEY (paper_id, library)
);
CREATE INDEX IF NOT EXISTS libraries_name ON libraries(library);
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
-- papers whose chunks were written or removed since the generation in state 'lexical_base' (see chunks_changing)
CREATE TABLE IF NOT EXISTS rewritten (paper_id TEXT PRIMARY KEY) WITHOUT ROWID;
-- papers added since the readers' views were saved at the revision in state 'views_revision' (see papers_added)
CREATE TABLE IF NOT EXISTS added (paper_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS papers_source ON papers(source_id);
CREATE INDEX IF NOT EXISTS papers_venue_year ON papers(venue, year);
CREATE INDEX IF NOT EXISTS papers_shown ON papers(COALESCE(venue, ''), COALESCE(NULLIF(title, ''), label));
CREATE INDEX IF NOT EXISTS papers_topic ON papers(topic);
CREATE INDEX IF NOT EXISTS papers_newest ON papers(COALESCE(year, 0) DESC, label, paper_id);
CREATE INDEX IF NOT EXISTS authors_name ON authors(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS papers_title ON papers(lower(title));
"""
_COLUMNS = ("paper_id", "label", "title", "venue", "year", "topic", "status", "track", "authors_truncated",
            "source_id", "sources", "extra", "abstract", "text", "n_chunks", "flags")


class Catalog(CatalogState, CatalogTerms, CatalogLibraries, CatalogNames, CatalogBrowse):
    """Paper records keyed by paper_id; every write is one transaction."""

    def __init__(self, path: Path, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise IndexMissingError(f"No paper catalog at {self.path}. "
                                    "Run 'ragqa ingest' (it rebuilds the catalog without re-embedding).")
        if self.path.exists() and not self.path.is_file():
            raise IndexMissingError(f"{self.path} is not a file. "
                                    "Move it away or set RAGQA_VECTORSTORE_DIR to another folder.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            if not corrupt(exc):
                raise
            raise IndexMissingError(corrupt_message(self.path, exc)) from None

    def _open(self) -> None:
        """The schema, and the migrations of a catalog from an earlier version (they read every row)."""
        with self._db() as db:
            db.executescript(_SCHEMA)
            have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE name IN ('names', 'author_names')")}
            new = [t for t in ("names", "author_names") if t not in have]
            db.executescript(NAMES_SCHEMA)
            for table in new:  # a catalog from before the name index: index the rows it already holds, once
                db.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
            if "flags" not in {r[1] for r in db.execute("PRAGMA table_info(papers)")}:  # a catalog from before flags
                db.execute("ALTER TABLE papers ADD COLUMN flags TEXT NOT NULL DEFAULT ''")
            # rows from before libraries existed belong to the default one
            db.execute("INSERT OR IGNORE INTO libraries SELECT paper_id, ? FROM papers "
                       "WHERE paper_id NOT IN (SELECT paper_id FROM libraries)", (DEFAULT_LIBRARY,))
            db.executescript(TERMS_SCHEMA)
        self._count_terms()

    def upsert(self, papers: list[Paper], n_chunks: dict[str, int], library: str = DEFAULT_LIBRARY) -> None:
        """Insert or update these papers' rows and author lists and add them to `library` (a paper
        stays in the libraries it was in), all or nothing."""
        if not papers:
            return
        rows = [_row(p, n_chunks[p.paper_id]) for p in papers]
        updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[1:])
        with self._db() as db:  # an upsert, not REPLACE: REPLACE deletes the row and cascades to its libraries
            # the term counts move by the rows whose label, title or text changed (a new file name or author list
            # changes none: at 100k papers recounting them all took ~2 minutes)
            old = self._old_texts(db, [p.paper_id for p in papers])
            note_added(db, [p.paper_id for p in papers if p.paper_id not in old], [pid for pid in old])
            moved = [p for p in papers if old.get(p.paper_id) != (p.label, p.title, p.text)]
            add_terms(db, terms_of_rows(old[p.paper_id] for p in moved if p.paper_id in old), -1)
            add_terms(db, terms_of_rows((p.label, p.title, p.text) for p in moved), +1)
            db.executemany(f"INSERT INTO papers ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
                           f"ON CONFLICT(paper_id) DO UPDATE SET {updates}", rows)
            ids = [(p.paper_id,) for p in papers]
            db.executemany("DELETE FROM authors WHERE paper_id = ?", ids)
            db.executemany("INSERT INTO authors (paper_id, position, name) VALUES (?, ?, ?)",
                           [(p.paper_id, i, name) for p in papers for i, name in enumerate(p.authors)])
            db.executemany("INSERT OR IGNORE INTO libraries (paper_id, library) VALUES (?, ?)",
                           [(p.paper_id, library) for p in papers])
            touch(db)

    def ids(self):
        """Every paper_id, in insertion order, streamed."""
        for row in self._db().execute("SELECT paper_id FROM papers ORDER BY rowid"):
            yield row[0]

    def delete(self, paper_ids: list[str]) -> None:
        with self._db() as db:
            add_terms(db, terms_of_rows(self._old_texts(db, paper_ids).values()), -1)
            db.executemany("DELETE FROM papers WHERE paper_id = ?", [(pid,) for pid in paper_ids])
            views_stale(db)
            touch(db)

    def count(self) -> int:
        """The number of papers (COUNT(*) scans the table: 30 ms at 1M papers; `empty` when that is all one asks)."""
        return self._db().execute("SELECT COUNT(*) FROM papers").fetchone()[0]

    def empty(self) -> bool:
        return self._db().execute("SELECT 1 FROM papers LIMIT 1").fetchone() is None

    def get(self, paper_ids: list[str]) -> dict[str, tuple[Paper, int]]:
        """paper_id -> (Paper, n_chunks) for the ids that have a row."""
        return self._select_in("paper_id", paper_ids)

    def with_source_ids(self, source_ids: list[str]) -> dict[str, tuple[Paper, int]]:
        return self._select_in("source_id", source_ids)

    def titled(self, titles: list[str]) -> dict[str, tuple[Paper, int]]:
        """Papers whose title is one of these, case ignored (a record without an abstract meets its full version)."""
        return self._select_in("lower(title)", sorted({t.lower() for t in titles if t}))

    def _select_in(self, column: str, values: list[str]) -> dict[str, tuple[Paper, int]]:
        out: dict[str, tuple[Paper, int]] = {}
        for where, params in pages(values, column):
            out.update(self._select(where, params))
        return out

    def all(self) -> dict[str, tuple[Paper, int]]:
        return self._select("", [])

    def flagged(self, paper_ids: list[str] | None = None) -> dict[str, str]:
        """paper_id -> flags, for papers with any (of every paper, or of these; see untrusted.py)."""
        out: dict[str, str] = {}
        for where, params in pages(paper_ids):
            out.update(self._db().execute(
                f"SELECT paper_id, flags FROM papers {where} {'AND' if where else 'WHERE'} flags != ''", params))
        return out

    def chunk_counts(self) -> dict[str, int]:
        return dict(self._db().execute("SELECT paper_id, n_chunks FROM papers").fetchall())

    @staticmethod
    def _old_texts(db: sqlite3.Connection, paper_ids: list[str]) -> dict[str, tuple]:
        """paper_id -> (label, title, text) of these papers' current rows (a write takes their terms out before putting
        the new ones in)."""
        out: dict[str, tuple] = {}
        for where, params in pages(paper_ids):
            out.update((pid, (label, title, text)) for pid, label, title, text
                       in db.execute(f"SELECT paper_id, label, title, text FROM papers {where}", params))
        return out

    def _select(self, where: str, params: list) -> dict[str, tuple[Paper, int]]:
        db = self._db()
        rows = db.execute(f"SELECT * FROM papers {where} ORDER BY rowid", params).fetchall()
        authors: dict[str, list[str]] = {}
        ids = [r["paper_id"] for r in rows]
        for where, params in pages(ids):
            for pid, name in db.execute(f"SELECT paper_id, name FROM authors {where} ORDER BY paper_id, position",
                                        params):
                authors.setdefault(pid, []).append(name)
        return {r["paper_id"]: (_paper(r, authors.get(r["paper_id"], [])), r["n_chunks"]) for r in rows}


def _row(paper: Paper, n_chunks: int) -> tuple:
    from ragqa.text.sentences import split_sentences
    from ragqa.text.untrusted import instruction_sentences, is_instruction

    extra = dict(paper.extra)
    # a sentence that matches is a part of the text that matches: the text is checked first, in one pass
    flags = "instructions" if is_instruction(paper.text) and instruction_sentences(split_sentences(paper.text)) else ""
    return (paper.paper_id, paper.label, paper.title, paper.venue, paper.year, paper.topic,
            extra.get("status"), extra.get("track"), int(paper.authors_truncated), paper.source_id,
            json.dumps(list(paper.sources), ensure_ascii=False), json.dumps(extra, ensure_ascii=False),
            paper.abstract, paper.text, n_chunks, flags)


def _paper(row: sqlite3.Row, authors: list[str]) -> Paper:
    return Paper(
        paper_id=row["paper_id"], abstract=row["abstract"], text=row["text"], label=row["label"],
        venue=row["venue"], year=row["year"], topic=row["topic"], authors=tuple(authors),
        authors_truncated=bool(row["authors_truncated"]), title=row["title"], source_id=row["source_id"],
        extra=tuple(json.loads(row["extra"]).items()), sources=tuple(json.loads(row["sources"])),
    )
