"""The name index: SQLite FTS5 tables over the papers' labels, titles, texts and author names, kept in step with the
catalog's rows by triggers (every write updates them, no reader builds them), and the queries on them. What counts
as a name, and how a query is phrased, is ragqa/query/names.py's.
"""
from __future__ import annotations

from ragqa.store.catalog_db import CatalogConnection

# the name index (names.py): full-text postings of each paper's label, title and text, kept in step with `papers` by
# triggers, so every catalog write updates it and no reader builds it
NAMES_SCHEMA = """
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
# full-text matches (an FTS5 query bound as the one parameter) on a paper's label, title and text, and on author names
_NAME_MATCH = "FROM names JOIN papers p ON p.rowid = names.rowid WHERE names MATCH ?"
_AUTHOR_MATCH = "FROM author_names JOIN authors a ON a.rowid = author_names.rowid WHERE author_names MATCH ?"


class CatalogNames(CatalogConnection):
    """Full-text lookups of the papers that mention a name or have an author of that name."""

    def with_words(self, words: list[str]) -> set[str]:
        """Papers whose label, title, text or an author's name has these words in a row (the last one a prefix)."""
        phrase = '"' + " ".join(w.replace('"', "") for w in words) + '"*'
        db = self._db()
        found = {r[0] for r in db.execute(f"SELECT p.paper_id {_NAME_MATCH} LIMIT -1", (phrase,))}
        found.update(r[0] for r in db.execute(f"SELECT a.paper_id {_AUTHOR_MATCH} LIMIT -1", (phrase,)))
        return found

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
