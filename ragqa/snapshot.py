"""A reader's views of one collection (the method-name map, the facets: venue, year, status and topic postings,
author and topic indexes; not the paper records, which a reader reads from the catalog when asked for), saved next to the catalog by the writer after each write, so a
reader's cold start loads one file instead of reading every record and rebuilding every index.

Keyed by the catalog's paper count, write generation and revision (any write): a stale, missing or unreadable file is ignored, and
the reader builds its views itself, as before. The file is a pickle: it lives in the store folder, which
holds the user's own index and is trusted like the Chroma files next to it. Building the views stays in
retrieve.py (Searcher)."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

VERSION = 5  # 2: method names keyed by retrieve.name_key; 3: + names an abstract introduces; 4: no paper records;
# 5: the key pickled before the views, so a writer checks it without loading them


def path_for(catalog_path: Path) -> Path:
    return catalog_path.with_name(catalog_path.name.removesuffix(".catalog.sqlite") + ".views.pkl")


def save(path: Path, key: tuple[int, ...], views: dict) -> None:
    """Write atomically: a reader sees the old file or the new one, never half of one."""
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        pickle.dump({"version": VERSION, "key": list(key)}, f, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(views, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


def _header_matches(f, key: tuple[int, ...]) -> bool:
    head = pickle.load(f)
    return isinstance(head, dict) and head.get("version") == VERSION and tuple(head.get("key") or ()) == tuple(key)


def is_current(path: Path, key: tuple[int, ...]) -> bool:
    """Whether the saved views were written for this (paper count, generation, revision); reads the key only."""
    try:
        with open(path, "rb") as f:
            return _header_matches(f, key)
    except _UNREADABLE:
        return False


def load(path: Path, key: tuple[int, ...]) -> dict | None:
    """The saved views if they were written for this (paper count, generation, revision), else None."""
    try:
        with open(path, "rb") as f:
            return pickle.load(f) if _header_matches(f, key) else None
    except _UNREADABLE:
        return None


_UNREADABLE = (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError)
