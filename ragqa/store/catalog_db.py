"""The catalog's SQLite connection (stdlib sqlite3): one per thread, in WAL mode, so readers in other processes see
each committed write; a damaged file told apart from a lock or a full disk; IN-lists paged below SQLite's limit of
host parameters. No table is defined here (catalog.py).
"""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from ragqa.errors import IndexMissingError

_PAGE = 900  # below SQLite's default limit of host parameters


def corrupt(exc: BaseException) -> bool:
    """SQLite found the file is not a database, or a damaged page in it (not a lock, not a full disk)."""
    return getattr(exc, "sqlite_errorname", None) in ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def corrupt_message(path, exc: BaseException) -> str:
    return (f"The paper catalog {path} is damaged ({exc}). Move it away and run 'ragqa ingest' with the files you "
            "indexed: it rebuilds the catalog from them and embeds nothing again.")


class CatalogConnection:
    """The base of the catalog's parts (catalog.py combines them): its file and a connection per thread."""

    path: Path
    _local: threading.local

    def _db(self) -> sqlite3.Connection:
        """One connection per thread (the UI answers on worker threads)."""
        db = getattr(self._local, "db", None)
        if db is None:
            try:
                db = sqlite3.connect(self.path, timeout=30)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA foreign_keys=ON")
            except sqlite3.DatabaseError as exc:
                raise IndexMissingError(
                    corrupt_message(self.path, exc) if corrupt(exc) else
                    f"The paper catalog {self.path} cannot be opened ({exc}). Delete it and run 'ragqa ingest'."
                ) from None
            db.row_factory = sqlite3.Row
            self._local.db = db
        return db


def pages(values: list[str] | None, column: str = "paper_id"):
    """(WHERE clause, parameters) per page of values of `column` (SQLite's limit of host parameters); one empty
    clause for every row when values is None."""
    if values is None:
        yield "", []
        return
    for start in range(0, len(values), _PAGE):
        part = values[start:start + _PAGE]
        yield f"WHERE {column} IN ({', '.join('?' * len(part))})", part
