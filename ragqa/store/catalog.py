"""The paper catalog: one SQLite row per indexed paper (record, abstract, text, chunk count) and
its authors as a child table, next to the Chroma store. Chunks in Chroma carry only their own
text and the few fields Chroma filters on; filters, stats and answers read paper records here.

Stdlib sqlite3 in WAL mode: readers in other processes see each committed write. No embedding,
no chunking, no Chroma.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from pathlib import Path

from ragqa.errors import IndexMissingError
from ragqa.ingest.corpus import Paper
from ragqa.text.terms import paper_terms

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
# the name index (names.py): full-text postings of each paper's label, title and text, kept in step with `papers` by
# triggers, so every catalog write updates it and no reader builds it
_NAMES = """
CREATE VIRTUAL TABLE IF NOT EXISTS names USING fts5(label, title, text, content='papers', content_rowid='rowid');
CREATE TRIGGER IF NOT EXISTS names_insert AFTER INSERT ON papers BEGIN
    INSERT INTO names (rowid, label, title, text) VALUES (new.rowid, new.label, new.title, new.text);
END;
CREATE TRIGGER IF NOT EXISTS names_delete AFTER DELETE ON papers BEGIN
    INSERT INTO names (names, rowid, label, title, text) VALUES ('delete', old.rowid, old.label, old.title, old.text);
END;
CREATE TRIGGER IF NOT EXISTS names_update AFTER UPDATE ON papers BEGIN
    INSERT INTO names (names, rowid, label, title, text) VALUES ('delete', old.rowid, old.label, old.title, old.text);
    INSERT INTO names (rowid, label, title, text) VALUES (new.rowid, new.label, new.title, new.text);
END;
CREATE VIRTUAL TABLE IF NOT EXISTS author_names USING fts5(name, content='authors', content_rowid='rowid');
CREATE TRIGGER IF NOT EXISTS author_names_insert AFTER INSERT ON authors BEGIN
    INSERT INTO author_names (rowid, name) VALUES (new.rowid, new.name);
END;
CREATE TRIGGER IF NOT EXISTS author_names_delete AFTER DELETE ON authors BEGIN
    INSERT INTO author_names (author_names, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
"""
# document frequency of each content term (terms.py) over the papers' title, label and text, kept in step by every
# write, so a reader looks up the few terms a question has instead of counting terms over every paper at start
_TERMS = "CREATE TABLE IF NOT EXISTS term_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;"
_TERMS_VERSION = 3  # bump when terms.py changes what a term is: the table is recounted on open (2: hyphenated words' parts,
# 3: and their parts joined)
_COLUMNS = ("paper_id", "label", "title", "venue", "year", "topic", "status", "track", "authors_truncated",
            "source_id", "sources", "extra", "abstract", "text", "n_chunks", "flags")
_PAGE = 900  # below SQLite's default limit of host parameters
_SHOWN = "COALESCE(venue, ''), COALESCE(NULLIF(title, ''), label)"  # the Papers tab's order (index papers_shown)
# full-text matches (an FTS5 query bound as the one parameter) on a paper's label, title and text, and on author names
_NAME_MATCH = "FROM names JOIN papers p ON p.rowid = names.rowid WHERE names MATCH ?"
_AUTHOR_MATCH = "FROM author_names JOIN authors a ON a.rowid = author_names.rowid WHERE author_names MATCH ?"
DEFAULT_LIBRARY = "default"


def check_library_name(name: str) -> str:
    """Letters, digits, spaces and . - _ (1-80 characters); "all" and "any" are the selectors' words."""
    import re

    from ragqa.errors import QueryError

    name = name.strip()
    if not re.fullmatch(r"[\w .-]{1,80}", name) or name.lower() in ("all", "any"):
        raise QueryError(f"Library name {name!r} is not allowed: use 1-80 letters, digits, spaces, '.', '-' or '_' (not 'all' or 'any').")
    return name


def corrupt(exc: BaseException) -> bool:
    """SQLite found the file is not a database, or a damaged page in it (not a lock, not a full disk)."""
    return getattr(exc, "sqlite_errorname", None) in ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def corrupt_message(path, exc: BaseException) -> str:
    return (f"The paper catalog {path} is damaged ({exc}). Move it away and run 'ragqa ingest' with the files you "
            "indexed: it rebuilds the catalog from them and embeds nothing again.")


class Catalog:
    """Paper records keyed by paper_id; every write is one transaction."""

    def __init__(self, path: Path, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise IndexMissingError(f"No paper catalog at {self.path}. Run 'ragqa ingest' (it rebuilds the catalog without re-embedding).")
        if self.path.exists() and not self.path.is_file():
            raise IndexMissingError(f"{self.path} is not a file. Move it away or set RAGQA_VECTORSTORE_DIR to another folder.")
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
            db.executescript(_NAMES)
            for table in new:  # a catalog from before the name index: index the rows it already holds, once
                db.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
            if "flags" not in {r[1] for r in db.execute("PRAGMA table_info(papers)")}:  # a catalog from before flags
                db.execute("ALTER TABLE papers ADD COLUMN flags TEXT NOT NULL DEFAULT ''")
            # rows from before libraries existed belong to the default one
            db.execute("INSERT OR IGNORE INTO libraries SELECT paper_id, ? FROM papers "
                       "WHERE paper_id NOT IN (SELECT paper_id FROM libraries)", (DEFAULT_LIBRARY,))
            db.executescript(_TERMS)
        self._count_terms()

    def _count_terms(self) -> None:
        """Count the term table from the rows, once: for a catalog from before it, or from another term definition."""
        db = self._db()
        if (db.execute("SELECT value FROM state WHERE key = 'terms'").fetchone() or (0,))[0] == _TERMS_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")  # one process counts; another opening it meanwhile waits, then finds it done
        try:
            if (db.execute("SELECT value FROM state WHERE key = 'terms'").fetchone() or (0,))[0] != _TERMS_VERSION:
                db.execute("DELETE FROM term_df")
                _add_terms(db, _terms_of_rows(db.execute("SELECT label, title, text FROM papers")), +1)
                db.execute("INSERT INTO state (key, value) VALUES ('terms', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           (_TERMS_VERSION,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def term_frequencies(self, terms: list[str]) -> dict[str, int]:
        """term -> the number of papers whose title, label or text has it (terms.py), for those of `terms` any paper has."""
        out: dict[str, int] = {}
        for where, params in _pages(terms, "term"):
            out.update(self._db().execute(f"SELECT term, df FROM term_df {where}", params))
        return out

    def _db(self) -> sqlite3.Connection:
        """One connection per thread (the UI answers on worker threads)."""
        db = getattr(self._local, "db", None)
        if db is None:
            try:
                db = sqlite3.connect(self.path, timeout=30)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA foreign_keys=ON")
            except sqlite3.DatabaseError as exc:
                raise IndexMissingError(corrupt_message(self.path, exc) if corrupt(exc) else
                                        f"The paper catalog {self.path} cannot be opened ({exc}). Delete it and run 'ragqa ingest'.") from None
            db.row_factory = sqlite3.Row
            self._local.db = db
        return db

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
            _note_added(db, [p.paper_id for p in papers if p.paper_id not in old], [pid for pid in old])
            moved = [p for p in papers if old.get(p.paper_id) != (p.label, p.title, p.text)]
            _add_terms(db, _terms_of_rows(old[p.paper_id] for p in moved if p.paper_id in old), -1)
            _add_terms(db, _terms_of_rows((p.label, p.title, p.text) for p in moved), +1)
            db.executemany(f"INSERT INTO papers ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
                           f"ON CONFLICT(paper_id) DO UPDATE SET {updates}", rows)
            ids = [(p.paper_id,) for p in papers]
            db.executemany("DELETE FROM authors WHERE paper_id = ?", ids)
            db.executemany("INSERT INTO authors (paper_id, position, name) VALUES (?, ?, ?)",
                           [(p.paper_id, i, name) for p in papers for i, name in enumerate(p.authors)])
            db.executemany("INSERT OR IGNORE INTO libraries (paper_id, library) VALUES (?, ?)",
                           [(p.paper_id, library) for p in papers])
            _touch(db)

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
            _touch(db)

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
        ids = [pid for (pid,) in db.execute("SELECT paper_id FROM papers WHERE paper_id IN (SELECT paper_id FROM added) "
                                             "ORDER BY rowid")]
        return row[0], ids

    def join_library(self, paper_ids: list[str], library: str) -> None:
        """Add these catalogued papers to `library`; a revision only when one was not in it yet (an unchanged
        re-ingest leaves the readers' saved views current)."""
        with self._db() as db:
            before = db.total_changes
            db.executemany("INSERT OR IGNORE INTO libraries (paper_id, library) SELECT paper_id, ? FROM papers WHERE paper_id = ?",
                           [(library, pid) for pid in paper_ids])
            if db.total_changes != before:
                _views_stale(db)
                _touch(db)

    def libraries(self) -> dict[str, int]:
        """library -> papers in it."""
        return dict(self._db().execute("SELECT library, COUNT(*) FROM libraries GROUP BY library ORDER BY library"))

    def library_of(self, paper_ids: list[str] | None = None) -> dict[str, list[str]]:
        """paper_id -> the libraries holding it (of every paper, or of these)."""
        out: dict[str, list[str]] = {}
        for where, params in _pages(paper_ids):
            for pid, name in self._db().execute(f"SELECT paper_id, library FROM libraries {where} ORDER BY library", params):
                out.setdefault(pid, []).append(name)
        return out

    def browse(self, paper_ids: set[str] | None, limit: int) -> tuple[list[str], Counter]:
        """The Papers tab's page: up to `limit` of these papers' ids (every paper's when None) by venue, then title
        (label when untitled), through an index, so the first rows of a million papers cost a few reads; and
        topic -> papers with it among them. The ids are written to a temporary table once, for both."""
        where = f"WHERE paper_id IN (SELECT paper_id FROM {self._picked(paper_ids)})" if paper_ids is not None else ""
        db = self._db()
        ids = [r[0] for r in db.execute(f"SELECT paper_id FROM papers {where} ORDER BY {_SHOWN} LIMIT ?", (limit,))]
        topics = Counter(dict(db.execute(
            f"SELECT topic, COUNT(*) FROM papers {where} {'AND' if where else 'WHERE'} COALESCE(topic, '') != '' GROUP BY topic")))
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
        where = f"WHERE paper_id IN (SELECT paper_id FROM {self._picked(union)})" if len(union) <= self.PICK_MAX else ""
        rows = self._db().execute(f"SELECT paper_id FROM papers {where} ORDER BY COALESCE(year, 0) DESC, label, paper_id")
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

    def with_words(self, words: list[str]) -> set[str]:
        """Papers whose label, title, text or an author's name has these words in a row (the last one a prefix)."""
        phrase = '"' + " ".join(w.replace('"', "") for w in words) + '"*'
        db = self._db()
        found = {r[0] for r in db.execute(f"SELECT p.paper_id {_NAME_MATCH} LIMIT -1", (phrase,))}
        found.update(r[0] for r in db.execute(f"SELECT a.paper_id {_AUTHOR_MATCH} LIMIT -1", (phrase,)))
        return found

    def _picked(self, paper_ids: set[str]) -> str:
        """A temporary table of these ids, for a join where an IN (...) list would pass SQLite's parameter limit."""
        db = self._db()
        with db:  # committed at once: an open transaction would pin this connection to a stale snapshot
            db.execute("CREATE TEMP TABLE IF NOT EXISTS picked (paper_id TEXT PRIMARY KEY) WITHOUT ROWID")
            db.execute("DELETE FROM temp.picked")
            db.executemany("INSERT OR IGNORE INTO temp.picked VALUES (?)", ((pid,) for pid in paper_ids))
        return "temp.picked"

    def in_library(self, library: str) -> set[str]:
        return {r[0] for r in self._db().execute("SELECT paper_id FROM libraries WHERE library = ?", (library,))}

    def ids(self):
        """Every paper_id, in insertion order, streamed."""
        for row in self._db().execute("SELECT paper_id FROM papers ORDER BY rowid"):
            yield row[0]

    def leave_library(self, library: str) -> list[str]:
        """Take every paper out of `library`; -> the papers now in no library (to be removed)."""
        with self._db() as db:
            ids = [r[0] for r in db.execute("SELECT paper_id FROM libraries WHERE library = ?", (library,))]
            db.execute("DELETE FROM libraries WHERE library = ?", (library,))
            _views_stale(db)
            _touch(db)
            kept = {r[0] for r in db.execute("SELECT DISTINCT paper_id FROM libraries")}
        return [pid for pid in ids if pid not in kept]

    def leave(self, paper_ids: list[str], library: str) -> None:
        """Take these papers out of `library` (each stays in its other libraries)."""
        if not paper_ids:
            return
        with self._db() as db:
            db.executemany("DELETE FROM libraries WHERE paper_id = ? AND library = ?", [(pid, library) for pid in paper_ids])
            _views_stale(db)
            _touch(db)

    def delete(self, paper_ids: list[str]) -> None:
        with self._db() as db:
            _add_terms(db, _terms_of_rows(self._old_texts(db, paper_ids).values()), -1)
            db.executemany("DELETE FROM papers WHERE paper_id = ?", [(pid,) for pid in paper_ids])
            _views_stale(db)
            _touch(db)

    def name_hits(self, match: str, limit: int) -> list[tuple[str, str]]:
        """(paper_id, text) of up to `limit` papers whose label, title or text match an FTS5 query (names.py)."""
        return [tuple(r) for r in self._db().execute(
            f"SELECT p.paper_id, p.text {_NAME_MATCH} LIMIT ?",
            (match, limit))]

    def author_name_hits(self, match: str, limit: int) -> list[str]:
        """Up to `limit` paper_ids with an author whose name matches an FTS5 query (names.py)."""
        return [r[0] for r in self._db().execute(
            f"SELECT a.paper_id {_AUTHOR_MATCH} LIMIT ?",
            (match, limit))]

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
        for where, params in _pages(values, column):
            out.update(self._select(where, params))
        return out

    def all(self) -> dict[str, tuple[Paper, int]]:
        return self._select("", [])

    def flagged(self, paper_ids: list[str] | None = None) -> dict[str, str]:
        """paper_id -> flags, for papers with any (of every paper, or of these; see untrusted.py)."""
        out: dict[str, str] = {}
        for where, params in _pages(paper_ids):
            out.update(self._db().execute(f"SELECT paper_id, flags FROM papers {where} {'AND' if where else 'WHERE'} flags != ''", params))
        return out

    def chunk_counts(self) -> dict[str, int]:
        return dict(self._db().execute("SELECT paper_id, n_chunks FROM papers").fetchall())

    @staticmethod
    def _old_texts(db: sqlite3.Connection, paper_ids: list[str]) -> dict[str, tuple]:
        """paper_id -> (label, title, text) of these papers' current rows (a write takes their terms out before putting
        the new ones in)."""
        out: dict[str, tuple] = {}
        for where, params in _pages(paper_ids):
            out.update((pid, (label, title, text)) for pid, label, title, text
                       in db.execute(f"SELECT paper_id, label, title, text FROM papers {where}", params))
        return out

    def _select(self, where: str, params: list) -> dict[str, tuple[Paper, int]]:
        db = self._db()
        rows = db.execute(f"SELECT * FROM papers {where} ORDER BY rowid", params).fetchall()
        authors: dict[str, list[str]] = {}
        ids = [r["paper_id"] for r in rows]
        for where, params in _pages(ids):
            for pid, name in db.execute(f"SELECT paper_id, name FROM authors {where} ORDER BY paper_id, position", params):
                authors.setdefault(pid, []).append(name)
        return {r["paper_id"]: (_paper(r, authors.get(r["paper_id"], [])), r["n_chunks"]) for r in rows}


def _pages(values: list[str] | None, column: str = "paper_id"):
    """(WHERE clause, parameters) per page of values of `column` (SQLite's limit of host parameters); one empty
    clause for every row when values is None."""
    if values is None:
        yield "", []
        return
    for start in range(0, len(values), _PAGE):
        part = values[start:start + _PAGE]
        yield f"WHERE {column} IN ({', '.join('?' * len(part))})", part


def _terms_of_rows(rows) -> Counter:
    """How many of these (label, title, text) rows have each term."""
    return Counter(t for label, title, text in rows for t in paper_terms({"label": label, "title": title, "text": text}))


def _add_terms(db: sqlite3.Connection, counts: Counter, sign: int) -> None:
    """Add (+1) or take away (-1) these papers' term counts; a term no paper has any more leaves the table."""
    if not counts:
        return
    db.executemany("INSERT INTO term_df (term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
                   [(t, sign * n) for t, n in counts.items()])
    if sign < 0:
        db.executemany("DELETE FROM term_df WHERE term = ? AND df <= 0", [(t,) for t in counts])


def _note_added(db: sqlite3.Connection, new: list[str], updated: list[str]) -> None:
    """Inside a write: record new papers for the views' extension; an update of a paper the views already hold (one
    not added since) makes them stale (papers_added)."""
    row = db.execute("SELECT value FROM state WHERE key = 'views_revision'").fetchone()
    if row is None or row[0] < 0:
        return
    if updated:
        held = set(updated)
        for where, params in _pages(updated):
            held -= {pid for (pid,) in db.execute(f"SELECT paper_id FROM added {where}", params)}
        if held:
            _views_stale(db)
            return
    db.executemany("INSERT OR IGNORE INTO added (paper_id) VALUES (?)", [(pid,) for pid in new])


def _views_stale(db: sqlite3.Connection) -> None:
    """Inside a write that changes what the saved views hold other than by adding papers: they are built anew."""
    db.execute("UPDATE state SET value = -1 WHERE key = 'views_revision'")
    db.execute("DELETE FROM added")


def _touch(db: sqlite3.Connection) -> None:
    """Count one more write, inside the writer's transaction."""
    db.execute("INSERT INTO state (key, value) VALUES ('revision', 1) ON CONFLICT(key) DO UPDATE SET value = value + 1")


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
