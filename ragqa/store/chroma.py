"""Chroma connection and collection naming: embedded (persistent folder) or a `chroma run` server.

The collection name encodes what determines its vectors (embedding model + chunking), so changing
either builds a new collection instead of mixing vectors. Nothing here embeds or chunks.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import time
import uuid
from contextlib import closing
from pathlib import Path

from ragqa.config import Settings
from ragqa.errors import (
    IndexMissingError,
    StoreDamagedError,
    StoreFailedError,
    StoreReadOnlyError,
    StoreUnavailableError,
    VectorsMissingError,
)


def collection_name(settings: Settings, embed_name: str) -> str:
    """e.g. papers-all-MiniLM-L6-v2-t200o40 (3-512 chars of [a-zA-Z0-9._-])."""
    slug = re.sub(r"[^a-zA-Z0-9._-]+", "-", embed_name).strip("-._")[:60] or "model"
    if slug != embed_name:  # a path or odd id: keep names distinct
        slug += "-" + hashlib.sha1(embed_name.encode()).hexdigest()[:6]
    return f"{settings.collection_prefix}-{slug}-t{settings.chunk_size}o{settings.chunk_overlap}"


def unreachable(settings: Settings, exc: BaseException) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"Cannot reach the Chroma server at {settings.chroma_host}:{settings.chroma_port} ({type(exc).__name__}). "
        f"Start it with 'chroma run --path vectorstore --port {settings.chroma_port}' or unset RAGQA_CHROMA_HOST."
    )


def _transport_failure(exc: BaseException) -> bool:
    import httpx

    return isinstance(exc, (httpx.TransportError, ConnectionError)) or "Could not connect to" in str(exc)


# what Chroma's errors say when a collection's HNSW files cannot be read back (a write killed half-way: a truncated
# index_metadata.pickle, "Error constructing hnsw segment reader ... EOF while parsing")
_DAMAGED = re.compile(r"hnsw segment|deserializ|Error loading hnsw", re.I)
# what Chroma says when asked for the vector of a chunk its records hold but its vector index lacks
_VECTOR_MISSING = re.compile(r"Error getting embedding|Error finding id", re.I)


def damaged(settings: Settings, name: str, exc: BaseException) -> StoreDamagedError:
    where = f"{settings.chroma_host}:{settings.chroma_port}" if settings.chroma_host else str(settings.vectorstore_dir)
    detail = str(exc).strip().splitlines()[-1][-110:] if str(exc).strip() else type(exc).__name__
    return StoreDamagedError(
        f"The vector index of '{name}' at {where} cannot be read (…{detail}); an ingest was probably stopped while "
        "Chroma saved it. Run 'ragqa ingest --verify' to rebuild it from the paper catalog: every paper is kept, its "
        "chunks are embedded again.")


def free_space(folder: Path) -> str:
    """The room left on the disk holding `folder` (or its nearest existing parent), e.g. '16 MiB'."""
    folder = Path(folder)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return f"{shutil.disk_usage(folder).free / 2**20:,.0f} MiB"
    except OSError:
        return "unknown room"


def failed(settings: Settings, exc: BaseException) -> StoreFailedError:
    """A call that failed inside Chroma (its InternalError), neither a lost server nor an unreadable index. A full disk
    is the usual cause and Chroma does not say so ("Error in compaction: Failed to apply logs to the metadata segment"),
    so an embedded store's message says how much room its disk has left. Chroma's log replays what it had accepted,
    and ingest skips what is stored, so running the command again after freeing space goes on where it stopped."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    detail = detail if len(detail) <= 110 else detail[:110].rsplit(" ", 1)[0] + "…"
    if settings.chroma_host:
        return StoreFailedError(
            f"The Chroma server at {settings.chroma_host}:{settings.chroma_port} failed ({detail}); its log says why, "
            "often a full disk. Papers written before it are kept: run the same command again once it is fixed.")
    return StoreFailedError(
        f"The vector store at {settings.vectorstore_dir} failed ({detail}) with {free_space(settings.vectorstore_dir)} "
        "free on its disk; a full disk is the usual cause. Papers written before it are kept: free space and run the "
        "same command again.")


def _internal(exc: BaseException) -> bool:
    from chromadb.errors import InternalError

    return isinstance(exc, InternalError)


class GuardedCollection:
    """A collection whose calls turn a lost server connection into one StoreUnavailableError, a vector index that
    cannot be read into one StoreDamagedError and any other failure inside Chroma into one StoreFailedError, so every
    entry point (CLI, a running serve, evals) says the same thing;
    the next call after the server returns simply works (the HTTP client reconnects)."""

    def __init__(self, collection, settings: Settings):
        self._collection, self._settings = collection, settings

    def __getattr__(self, name):
        attr = getattr(self._collection, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except Exception as exc:
                if self._settings.chroma_host and _transport_failure(exc):
                    raise unreachable(self._settings, exc) from None
                if _VECTOR_MISSING.search(str(exc)):
                    raise VectorsMissingError(
                        f"The vector index of '{self._collection.name}' lacks vectors of chunks it holds (two writers "
                        "wrote it at once). Run 'ragqa ingest --verify': it finds them and embeds them again."
                    ) from None
                if _DAMAGED.search(str(exc)):
                    raise damaged(self._settings, self._collection.name, exc) from None
                if _internal(exc):
                    raise failed(self._settings, exc) from None
                raise
        return call


def open_client(settings: Settings):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_host:
        try:
            client = chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings)
            client.heartbeat()
        except Exception as exc:
            raise unreachable(settings, exc) from None
        return client
    folder = settings.vectorstore_dir
    if folder.exists() and not folder.is_dir():
        raise IndexMissingError(
            f"RAGQA_VECTORSTORE_DIR={folder} is a file, not a folder. Point it at a folder (it is created if missing).")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        try:
            return chromadb.PersistentClient(path=str(folder), settings=chroma_settings)
        except Exception as exc:  # another process set up the same new store at this moment: its tables are there now
            if "already exists" not in str(exc):
                raise
            time.sleep(0.5)
            return chromadb.PersistentClient(path=str(folder), settings=chroma_settings)
    except OSError as exc:
        raise IndexMissingError(
            f"Cannot use {folder} for the vector store ({exc.strerror}). Check its permissions or set "
            "RAGQA_VECTORSTORE_DIR.") from None
    except Exception as exc:  # chromadb reports a damaged store as InternalError("... file is not a database")
        if "readonly database" in str(exc).lower() or "read-only" in str(exc).lower():
            raise StoreReadOnlyError(
                f"The vector store at {folder} cannot be written (read-only: a read-only disk or folder), and "
                "Chroma's embedded store writes even to open it. Make it writable, or copy the folder somewhere "
                "writable and set RAGQA_VECTORSTORE_DIR to the copy.") from None
        if "database" not in str(exc).lower():
            raise
        raise IndexMissingError(
            f"The vector store at {folder} is damaged ({str(exc).splitlines()[0][:120]}). Move it away and run "
            "'ragqa ingest' to rebuild it from your files (the folder is left untouched).") from None


def get_collection(
    client, name: str, metadata: dict | None = None, create: bool = True, settings: Settings | None = None
):
    """The named collection (cosine space); with create=False a missing one is IndexMissingError.
    Given `settings`, a GuardedCollection."""
    def guarded(collection):
        return GuardedCollection(collection, settings) if settings is not None else collection

    if create:
        meta = {"hnsw:space": "cosine", **(metadata or {})}
        return guarded(client.get_or_create_collection(name, metadata=meta))
    try:
        return guarded(client.get_collection(name))
    except Exception as exc:
        if settings is not None and settings.chroma_host and _transport_failure(exc):
            raise unreachable(settings, exc) from None
        raise IndexMissingError(
            f"No index '{name}' in the store. Run 'ragqa ingest' (bundled papers) or 'ragqa ingest FILE'."
        ) from None


def drop_collection(client, name: str, settings: Settings) -> None:
    """Delete a collection and, in an embedded store, its vector index folder: Chroma 1.x deletes the collection's rows
    but leaves `<store>/<segment id>/` on disk (chroma-core/chroma#5259): 950 MB for 844,985 chunks of 256-d vectors."""
    folders = [] if settings.chroma_host else _vector_folders(settings.vectorstore_dir, client.get_collection(name).id)
    client.delete_collection(name)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def _vector_folders(store: Path, collection_id) -> list[Path]:
    """The folders of one collection's vector segments, from Chroma's own `segments` table (read only); none when that
    table cannot be read as expected, so a future Chroma layout costs disk space, never another collection's files."""
    try:
        with closing(sqlite3.connect(f"file:{store / 'chroma.sqlite3'}?mode=ro", uri=True)) as db:
            rows = db.execute(
                "SELECT id FROM segments WHERE collection = ? AND scope = 'VECTOR'", (str(collection_id),)
            ).fetchall()
        names = [str(uuid.UUID(str(row[0]))) for row in rows]
    except (sqlite3.Error, ValueError):
        return []
    return [store / name for name in names if (store / name).is_dir()]

