"""What `ragqa ingest --verify` checks and mends: catalogued papers whose chunks fall short, chunks without a catalog
row, chunks whose vector Chroma's index lacks (embedded again), an unreadable collection (emptied, then re-embedded
from the catalog). Deciding what to re-ingest is the caller's; the writing is ingesting.py's.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ragqa.config import Settings
from ragqa.errors import VectorsMissingError
from ragqa.ingest.paper import Paper
from ragqa.store.catalog import Catalog
from ragqa.store.chroma import drop_collection, get_collection
from ragqa.store.chunks import FETCH_BATCH

if TYPE_CHECKING:  # llama-index is imported lazily: an unchanged re-ingest never needs it
    from llama_index.core.base.embeddings.base import BaseEmbedding


class CatalogPapers(Sequence):
    """Catalogued papers by id, read when a slice of them is asked for (PaperIndex.ingest takes papers in
    slices)."""

    def __init__(self, catalog, paper_ids: list[str]):
        self._catalog, self._ids = catalog, list(paper_ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __getitem__(self, item):
        ids = self._ids[item] if isinstance(item, slice) else [self._ids[item]]
        rows = self._catalog.get(ids)
        papers = [rows[pid][0] for pid in ids if pid in rows]
        return papers if isinstance(item, slice) else papers[0]


class IndexRepair:
    """PaperIndex's checks and repairs (index.py combines it with the other parts)."""

    settings: Settings
    catalog: Catalog

    def reset_vectors(self) -> None:
        """Drop the collection (its vector index could not be read: StoreDamagedError) and create it empty; the
        catalog is kept, so `ragqa ingest --verify` embeds every catalogued paper's chunks again from it."""
        with self.writing():
            self.catalog.chunks_changing(None)
            drop_collection(self.client, self.name, self.settings)
            self.collection = get_collection(self.client, self.name, self._collection_meta, create=True,
                                             settings=self.settings)

    def _chunks_per_paper(self) -> Counter:
        have: Counter = Counter()
        for _, meta in self.all_metadata():
            have[meta["paper_id"]] += 1
        return have

    def completeness(self) -> tuple[dict[str, int], list[str]]:
        """(paper_id -> chunks missing for catalogued papers whose stored chunks fall short of their count, papers
        with chunks but no catalog row: a removal killed half-way, absent to readers), from one read of every chunk's
        paper."""
        have, rows = self._chunks_per_paper(), self.catalog.chunk_counts()
        return ({pid: n - have[pid] for pid, n in rows.items() if have[pid] < n},
                sorted(pid for pid in have if pid not in rows))

    def unindexed(self) -> list[str]:
        """Catalogued papers' chunk ids whose record Chroma holds but whose vector its vector index lacks (two writers
        at once wrote the index over each other's: such chunks are never found by a search, and a delete of one
        fails). Read as pages of vectors; a page Chroma cannot read (VectorsMissingError) is halved until the missing
        ids are found (3,940 chunks with 305 missing: 1.2 s)."""
        def missing(ids: list[str]) -> list[str]:
            try:
                self.collection.get(ids=ids, include=["embeddings"])
                return []
            except VectorsMissingError:
                if len(ids) == 1:
                    return ids
                half = len(ids) // 2
                return missing(ids[:half]) + missing(ids[half:])

        wanted = self._chunk_ids()
        return [cid for start in range(0, len(wanted), FETCH_BATCH)
                for cid in missing(wanted[start:start + FETCH_BATCH])]

    def embed_again(self, chunk_ids: list[str], embedder: "BaseEmbedding") -> int:
        """Embed these stored chunks again from their stored text and write their vectors (an upsert: Chroma adds a
        vector its index lacks; a delete would fail on it). Their text is unchanged, so the lexical index is too."""
        from llama_index.core.schema import MetadataMode
        from llama_index.core.vector_stores.utils import metadata_dict_to_node

        written = 0
        with self.writing():
            for start in range(0, len(chunk_ids), self._write_batch()):
                got = self.collection.get(ids=chunk_ids[start:start + self._write_batch()],
                                          include=["documents", "metadatas"])
                texts = [metadata_dict_to_node(meta, text=doc).get_content(metadata_mode=MetadataMode.EMBED)
                         for doc, meta in zip(got["documents"], got["metadatas"])]
                vectors = embedder.get_text_embedding_batch(texts)
                self.collection.upsert(ids=got["ids"], embeddings=vectors, metadatas=got["metadatas"],
                                       documents=got["documents"])
                written += len(got["ids"])
        return written

    def incomplete(self) -> dict[str, int]:
        return self.completeness()[0]

    def orphans(self) -> list[str]:
        return self.completeness()[1]

    def stored_papers(self, paper_ids: list[str]) -> list[Paper]:
        """The catalogued Paper records, e.g. to repair them."""
        return [paper for paper, _ in self.catalog.get(paper_ids).values()]

    def stored_slices(self, paper_ids: list[str]) -> "CatalogPapers":
        """The same records read from the catalog a slice at a time as ingest takes them (`--verify` after a rebuild
        repairs every paper: 436,563 records held at once peaked at 6.7 GB)."""
        return CatalogPapers(self.catalog, paper_ids)
