"""Document frequencies of content terms (ragqa/text/terms.py) over the papers' titles, labels and texts, in the
catalog's term_df table: moved by every write, recounted once when terms.py changes what a term is. Which rows a
write changes is the writer's (catalog.py).
"""
from __future__ import annotations

import sqlite3
from collections import Counter

from ragqa.store.catalog_db import CatalogConnection, pages
from ragqa.text.terms import paper_terms

# document frequency of each content term (terms.py) over the papers' title, label and text, kept in step by every
# write, so a reader looks up the few terms a question has instead of counting terms over every paper at start
TERMS_SCHEMA = "CREATE TABLE IF NOT EXISTS term_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;"
# bump when terms.py changes what a term is: the table is recounted on open (2: hyphenated words' parts, 3: and their
# parts joined)
_TERMS_VERSION = 3


class CatalogTerms(CatalogConnection):
    """The term table: counted once from the rows, read a few terms at a time."""

    def _count_terms(self) -> None:
        """Count the term table from the rows, once: for a catalog from before it, or from another term definition."""
        db = self._db()
        if (db.execute("SELECT value FROM state WHERE key = 'terms'").fetchone() or (0,))[0] == _TERMS_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")  # one process counts; another opening it meanwhile waits, then finds it done
        try:
            if (db.execute("SELECT value FROM state WHERE key = 'terms'").fetchone() or (0,))[0] != _TERMS_VERSION:
                db.execute("DELETE FROM term_df")
                add_terms(db, terms_of_rows(db.execute("SELECT label, title, text FROM papers")), +1)
                db.execute("INSERT INTO state (key, value) VALUES ('terms', ?) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           (_TERMS_VERSION,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def term_frequencies(self, terms: list[str]) -> dict[str, int]:
        """term -> the number of papers whose title, label or text has it (terms.py), for those of `terms` any paper
        has."""
        out: dict[str, int] = {}
        for where, params in pages(terms, "term"):
            out.update(self._db().execute(f"SELECT term, df FROM term_df {where}", params))
        return out


def terms_of_rows(rows) -> Counter:
    """How many of these (label, title, text) rows have each term."""
    return Counter(t for label, title, text in rows
                   for t in paper_terms({"label": label, "title": title, "text": text}))


def add_terms(db: sqlite3.Connection, counts: Counter, sign: int) -> None:
    """Add (+1) or take away (-1) these papers' term counts; a term no paper has any more leaves the table."""
    if not counts:
        return
    db.executemany("INSERT INTO term_df (term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
                   [(t, sign * n) for t, n in counts.items()])
    if sign < 0:
        db.executemany("DELETE FROM term_df WHERE term = ? AND df <= 0", [(t,) for t in counts])
