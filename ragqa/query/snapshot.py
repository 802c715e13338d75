"""A reader's views of one collection (the method-name map, the facets: venue, year, status and topic postings,
author and topic indexes; not the paper records, which a reader reads from the catalog when asked for), saved next
to the catalog by the writer after each write, so a reader's cold start reads the views it needs from one file
instead of reading every record and rebuilding every index.

Keyed by the catalog's paper count, write generation and revision (any write): a stale, missing or unreadable file
is ignored, and the reader builds its views itself, as before. The file is a pickle: it lives in the store folder,
which holds the user's own index and is trusted like the Chroma files next to it. Building the views stays in
retrieve.py (Searcher)."""
from __future__ import annotations

import os
import pickle
import weakref
from pathlib import Path

VERSION = 6  # 2: method names keyed by retrieve.name_key; 3: + names an abstract introduces; 4: no paper records;
# 5: the key pickled before the views, so a writer checks it without loading them; 6: each view pickled on its own,
# unpickled when a reader first asks for it


def path_for(catalog_path: Path) -> Path:
    return catalog_path.with_name(catalog_path.name.removesuffix(".catalog.sqlite") + ".views.pkl")


def save(path: Path, key: tuple[int, ...], names: dict, facets: dict[str, object]) -> None:
    """Write atomically: a reader sees the old file or the new one, never half of one. The header (version, key, where
    each view lies) comes first, then each view as its own pickle."""
    blobs = {"names": pickle.dumps(names, protocol=pickle.HIGHEST_PROTOCOL)}
    blobs |= {f"facet {name}": pickle.dumps(view, protocol=pickle.HIGHEST_PROTOCOL) for name, view in facets.items()}
    spans, at = {}, 0
    for name, blob in blobs.items():
        spans[name], at = (at, len(blob)), at + len(blob)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        pickle.dump({"version": VERSION, "key": list(key), "spans": spans}, f, protocol=pickle.HIGHEST_PROTOCOL)
        for blob in blobs.values():
            f.write(blob)
    os.replace(tmp, path)


class SavedViews:
    """The saved views of one file, each unpickled when first asked for: a search asks for a few (at 100k papers the
    author-name maps it does not ask for were ~0.25 s of a 0.34 s load). `read(name)` unpickles one (load: from the
    file the key was read from, held open until these views go, so a writer replacing the file (os.replace) cannot mix
    two versions into one reader)."""

    def __init__(self, names: dict, facets: list[str], read):
        self.names, self._facets, self._read = names, facets, read

    def facets(self) -> list[str]:
        return list(self._facets)

    def facet(self, name: str):
        """The saved view, or None when the file has none by that name or it cannot be read (the caller builds it)."""
        if name not in self._facets:
            return None
        try:
            return self._read(name)
        except _UNREADABLE:
            return None


def _read(fd: int, start: int, span: tuple[int, int]):
    """One pickle at span (offset after the header, length), with pread: threads share the descriptor."""
    offset, length = span
    blob = os.pread(fd, length, start + offset)
    if len(blob) != length:
        raise EOFError(f"{len(blob)} of {length} bytes")
    return pickle.loads(blob)


def _header(f, key: tuple[int, ...], versions: tuple[int, ...] = (VERSION,)) -> dict | None:
    head = pickle.load(f)
    current = isinstance(head, dict) and head.get("version") in versions and tuple(head.get("key") or ()) == tuple(key)
    return head if current else None


def is_current(path: Path, key: tuple[int, ...]) -> bool:
    """Whether the saved views were written for this (paper count, generation, revision); reads the key only."""
    try:
        with open(path, "rb") as f:
            return _header(f, key) is not None
    except _UNREADABLE:
        return False


def saved_key(path: Path) -> tuple[int, ...] | None:
    """The (paper count, generation, revision) the saved views were written for (this VERSION), or None."""
    try:
        with open(path, "rb") as f:
            head = pickle.load(f)
        return tuple(head["key"]) if isinstance(head, dict) and head.get("version") == VERSION else None
    except (*_UNREADABLE, KeyError):
        return None


def load(path: Path, key: tuple[int, ...]) -> SavedViews | None:
    """The saved views if they were written for this (paper count, generation, revision), else None. Unpickles the
    method names now and each facet when asked for (SavedViews.facet)."""
    try:
        with open(path, "rb") as f:
            head = _header(f, key, (VERSION, 5))
            if head is None:
                return None
            if head["version"] == 5:  # a store saved before VERSION 6: read whole, as then, until its next write
                whole = pickle.load(f)  # saves it again (is_current says no), not built by every reader
                return SavedViews(whole["names"], list(whole["facets"]), whole["facets"].__getitem__)
            fd, start = os.dup(f.fileno()), f.tell()
        spans = head["spans"]
        try:
            names = _read(fd, start, spans["names"])
        except BaseException:
            os.close(fd)
            raise
        views = SavedViews(names, [n.removeprefix("facet ") for n in spans if n.startswith("facet ")],
                           lambda name: _read(fd, start, spans[f"facet {name}"]))
        weakref.finalize(views, os.close, fd)
        return views
    except (*_UNREADABLE, KeyError):
        return None


_UNREADABLE = (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError)
