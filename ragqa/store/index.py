"""Papers -> chunks -> embeddings -> Chroma, idempotent and incremental: PaperIndex opens the collection (named after
the embedding model and chunking) and its catalog as one, and holds what spans both (reads, stats, library removal).
Its parts: ingesting.py, chunk_writes.py, repair.py, lexical_sync.py, records.py. Retrieval is ragqa/retrieval/'s.
"""
from __future__ import annotations

from collections import Counter

from ragqa.config import Settings
from ragqa.errors import IndexMissingError, QueryError
from ragqa.ingest.paper import without_abstract
from ragqa.store.catalog import Catalog
from ragqa.store.chroma import collection_name, get_collection, open_client
from ragqa.store.chunk_writes import ChunkWrites
from ragqa.store.chunks import FETCH_BATCH, TOKENIZER
from ragqa.store.ingesting import Ingesting
from ragqa.store.lexical_sync import LexicalSync
from ragqa.store.records import PaperReading, paper_from_metadata
from ragqa.store.repair import IndexRepair
from ragqa.store.writelock import store_lock


class PaperIndex(Ingesting, ChunkWrites, IndexRepair, LexicalSync, PaperReading):
    """The Chroma collection for one embedding model + chunking, its paper catalog, and the
    operations on both."""

    def __init__(self, settings: Settings, embed_name: str, client=None, create: bool = False):
        self.settings = settings
        self.embed_name = embed_name
        self._own_client = client is None
        self.client = client or open_client(settings)
        self.name = collection_name(settings, embed_name)
        self._collection_meta = {"embed_model": embed_name, "chunk_size": settings.chunk_size,
                                 "chunk_overlap": settings.chunk_overlap, "tokenizer": TOKENIZER}
        self.collection = get_collection(self.client, self.name, self._collection_meta, create=create,
                                         settings=settings)
        self.catalog = Catalog(settings.catalog_path(self.name))
        if self.catalog.empty() and self.count():
            self._catalog_from_chunks()
            if not create and self.catalog.empty():
                raise IndexMissingError(
                    f"No paper catalog at {self.catalog.path} for the {self.count()} chunks in '{self.name}'. Point "
                    "RAGQA_CATALOG_DIR at the folder that holds it, or run 'ragqa ingest' with the same files "
                    "(nothing is re-embedded).")

    def writing(self):
        """The store's write lock (writelock.py) for a block of writes: every write below takes it, so a second
        writer in any process is refused (StoreBusyError) before it changes anything."""
        return store_lock(self.settings)

    def _catalog_from_chunks(self) -> None:
        """A store written before the catalog: its chunks carry the full record; copy it once."""
        firsts = {m["paper_id"]: m for _, m in self.all_metadata() if m.get("abstract")}
        self.catalog.upsert([paper_from_metadata(m) for m in firsts.values()],
                            {pid: int(m.get("n_chunks") or 1) for pid, m in firsts.items()})

    @property
    def _holds_vectors(self) -> bool:
        """This process holds the collection's vector index once it is read (embedded store) and may close the client
        (its own)."""
        return not self.settings.chroma_host and self._own_client

    def release_vectors(self) -> None:
        """An embedded store: close the client, which frees the collection's vector index that any read or write
        loads into this process (3.3 GB at 1M papers of 256-d vectors), and open it again; Chroma loads the index on
        the next read, not before. A client given to the constructor, or one another client in this process shares
        (Chroma stops a store's system when its last client closes), keeps it loaded."""
        if not self._holds_vectors:
            return
        self.client.close()
        self.client = open_client(self.settings)
        self.collection = get_collection(self.client, self.name, create=False, settings=self.settings)

    def vector_store(self):
        from llama_index.vector_stores.chroma import ChromaVectorStore

        return ChromaVectorStore(chroma_collection=self.collection)

    def count(self) -> int:
        return self.collection.count()

    def load_vectors(self) -> None:
        """Have Chroma load the vector index into memory, as its first query does (5.5 s at 1.9M chunks). That query
        releases the GIL, so run in a thread it overlaps a reader's other start-up work (llama-index's imports, the
        saved views). It asks with a unit vector of the collection's dimension, so it needs no embedder and can start
        as soon as the collection is open. A failure is left for the real query to report."""
        try:
            dim = self.collection.get_model().dimension
            if dim:
                self.collection.query(query_embeddings=[[1.0] + [0.0] * (dim - 1)], n_results=1, include=[])
        except Exception:  # noqa: BLE001  (the question's own query reports it, as one line)
            pass

    def require_nonempty(self) -> None:
        """No catalogued paper: nothing to search. Asked of the catalog, not Chroma, whose count took 5.3 s at 1.9M
        chunks."""
        if self.catalog.empty():
            raise IndexMissingError(f"The index '{self.name}' is empty. Run 'ragqa ingest' first.")

    def all_metadata(self) -> list[tuple[str, dict]]:
        """(chunk id, metadata) for every chunk, in pages."""
        out, offset = [], 0
        while True:
            page = self.collection.get(include=["metadatas"], limit=FETCH_BATCH, offset=offset)
            out += list(zip(page["ids"], page["metadatas"]))
            if len(page["ids"]) < FETCH_BATCH:
                return out
            offset += FETCH_BATCH

    def _chunk_ids(self) -> list[str]:
        """Every catalogued paper's chunk ids, `<paper id>:<n>` for n below its chunk count."""
        return [f"{pid}:{n}" for pid, count in self.catalog.chunk_counts().items() for n in range(count)]

    def remove_library(self, library: str) -> tuple[int, int]:
        """Remove a library: its papers that no other library holds leave the index.
        -> (papers removed, chunks removed)."""
        known = self.catalog.libraries()
        if library not in known:
            raise QueryError(f"No library {library!r}. "
                             f"Libraries: {', '.join(f'{k} ({v})' for k, v in known.items()) or 'none'}.")
        with self.writing():
            gone = self.catalog.leave_library(library)
            removed = self.delete_papers(gone)
            self.refresh_lexical()
        return len(gone), removed

    def stats(self) -> dict:
        papers = self.papers()
        per_venue = Counter(m.get("venue") or "(none)" for m in papers.values())
        chunks = Counter()
        for m in papers.values():
            chunks[m.get("venue") or "(none)"] += m["n_chunks"]
        per_topic = Counter(m.get("topic") for m in papers.values() if m.get("topic"))
        return {
            "collection": self.name, "store": self.settings.chroma_label(), "catalog": str(self.catalog.path),
            "embed_model": self.embed_name,
            "chunking": f"{self.settings.chunk_size} tokens ({TOKENIZER}), overlap {self.settings.chunk_overlap}",
            "papers": len(papers), "chunks": self.count(),
            "venues": {v: {"papers": per_venue[v], "chunks": chunks[v]} for v in sorted(per_venue)},
            "topics": dict(per_topic.most_common()), "libraries": self.catalog.libraries(),
            "flagged": sorted(m.get("title") or m["label"] for m in papers.values() if m.get("flags")),
            "metadata_only": sum(1 for m in papers.values() if without_abstract(m)),
        }
