"""One writer per store at a time: an exclusive lock file beside the catalog, held by every ingest, library removal and
repair, across processes (flock) and threads (the UI writes on worker threads).

A second writer is refused at once with who holds the lock and since when; the OS releases the lock of a process that
dies, so a killed ingest never leaves the store locked. Readers take no lock (SQLite's WAL and the saved views let them
read while a writer works). Covers the processes of one machine: writers on two machines sharing a Chroma server are
not excluded.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from ragqa.errors import StoreBusyError, StoreReadOnlyError

_held: dict[Path, tuple[threading.RLock, list[int]]] = {}  # path -> (its lock, [depth, fd])
_guard = threading.Lock()


def _entry(path: Path) -> tuple[threading.RLock, list[int]]:
    with _guard:
        return _held.setdefault(path, (threading.RLock(), [0, -1]))


def holder(path: Path) -> str:
    """Who holds the lock, as its file says: 'since 2026-12-06 01:02:03, pid 123 (ragqa ingest x.bib)'."""
    try:
        info = json.loads(Path(path).read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        info = {}
    if not info.get("pid"):
        return "(its pid is not recorded yet)"
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.get("since", 0)))
    return f"since {since}, pid {info['pid']}" + (f" ({info['command']})" if info.get("command") else "")


def _busy(path: Path, store: str) -> StoreBusyError:
    return StoreBusyError(f"Another writer holds the store ({store}) {holder(path)}; nothing was written. Wait for it "
                          "to finish, then run this again (searching and asking work meanwhile).")


@contextmanager
def write_lock(path: Path, store: str):
    """Hold the store's write lock for the block (re-entrant in the thread that holds it); StoreBusyError when another
    process or thread holds it, StoreReadOnlyError when the lock file cannot be made."""
    path = Path(path)
    lock, state = _entry(path)
    if not lock.acquire(blocking=False):
        raise _busy(path, store)
    try:
        if state[0] == 0:
            state[1] = _lock_file(path, store)
        state[0] += 1
        try:
            yield
        finally:
            state[0] -= 1
            if state[0] == 0:
                os.close(state[1])  # closing the descriptor releases the flock
                state[1] = -1
    finally:
        lock.release()


def store_lock(settings):
    """The write lock of the store these Settings name (Settings.write_lock_path), for PaperIndex and Pipeline alike."""
    return write_lock(settings.write_lock_path(), settings.chroma_label())


def _lock_file(path: Path, store: str) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise StoreReadOnlyError(
                f"The store at {store} cannot be written ({exc.strerror}: {path}). Searching and asking still work; "
                "to add or remove papers, make the folder writable or point RAGQA_VECTORSTORE_DIR at a writable "
                "copy.") from None
        raise
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise _busy(path, store) from None
    info = {"pid": os.getpid(), "since": time.time(), "command": " ".join(["ragqa", *sys.argv[1:]])[:200]
            if Path(sys.argv[0]).name == "ragqa" else Path(sys.argv[0]).name}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(info).encode(), 0)
    return fd
