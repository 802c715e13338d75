"""Chunks into Chroma: new chunks embedded (shortest first, in batches), changed ones rewritten with their stored
vectors, written as upserts in batches that keep a paper's chunks together, each batch's catalog rows first; and
papers removed. What to write is ingesting.py's; how papers become chunks, chunks.py's.
"""
from __future__ import annotations

import sys
from collections import Counter
from typing import TYPE_CHECKING

from ragqa.config import Settings
from ragqa.ingest.paper import Paper
from ragqa.store.catalog import Catalog
from ragqa.store.chunks import FETCH_BATCH, split_papers
from ragqa.store.ingesting import IngestReport

if TYPE_CHECKING:  # llama-index is imported lazily: an unchanged re-ingest never needs it
    from llama_index.core.schema import TextNode


class ChunkWrites:
    """PaperIndex's chunk writes and removals (index.py combines it with the other parts)."""

    settings: Settings
    catalog: Catalog

    def delete_papers(self, paper_ids: list[str]) -> int:
        """Remove these papers: the catalog row first (readers stop seeing the paper), then every
        chunk (a kill in between leaves orphans, which `orphans()` finds); -> chunks removed."""
        if not paper_ids:
            return 0
        with self.writing():
            self.catalog.chunks_changing(paper_ids)
            self.catalog.delete(paper_ids)
            removed, size = 0, self._write_batch()
            for pid in paper_ids:
                chunk_ids = self.collection.get(where={"paper_id": pid}, include=[])["ids"]
                for start in range(0, len(chunk_ids), size):
                    self.collection.delete(ids=chunk_ids[start:start + size])
                removed += len(chunk_ids)
        return removed

    def _write(self, work: list[Paper], stored_ids: set[str], changed: set[str], embedder, progress: bool,
               report: IngestReport, library: str) -> None:
        from llama_index.core.schema import MetadataMode
        from tqdm import tqdm

        nodes = split_papers(work, self.settings)
        by_id = {p.paper_id: p for p in work}
        counts = Counter(n.metadata["paper_id"] for n in nodes)
        have = self._present([n.id_ for n in nodes])
        todo = [n for n in nodes if n.id_ not in have]
        rewrite = changed | (set(by_id) - stored_ids)  # no row yet: chunks from a store before the catalog
        update = [n for n in nodes if n.id_ in have and n.metadata["paper_id"] in rewrite]
        if todo:
            embedder = embedder()
        bar = tqdm(total=len(todo), unit="chunk", desc="embedding", file=sys.stderr,
                   disable=not progress or not todo)
        written: set[str] = set()
        for batch in _paper_batches(todo + update, self._write_batch()):
            batch_papers = list(dict.fromkeys(n.metadata["paper_id"] for n in batch))
            self.catalog.upsert([by_id[pid] for pid in batch_papers], counts, library)  # the row first: see ingest()
            written.update(batch_papers)
            new = [n for n in batch if n.id_ not in have]
            if new:
                # shortest first: a batch of texts costs its longest one padded, so similar lengths batch together
                texts = {n.id_: n.get_content(metadata_mode=MetadataMode.EMBED) for n in new}
                new.sort(key=lambda n: len(texts[n.id_]))
                step = max(16, self.settings.embed_batch_size * 4)
                for i in range(0, len(new), step):
                    part = new[i:i + step]
                    vectors = embedder.get_text_embedding_batch([texts[n.id_] for n in part])
                    for node, vector in zip(part, vectors):
                        node.embedding = vector
                    bar.update(len(part))
            old = [n for n in batch if n.id_ in have]
            stale: dict[str, dict] = {}
            if old:  # metadata-only changes: reuse stored vectors
                got = self.collection.get(ids=[n.id_ for n in old], include=["embeddings", "metadatas"])
                stored_vectors = dict(zip(got["ids"], got["embeddings"]))
                stale = dict(zip(got["ids"], got["metadatas"]))
                for node in old:
                    node.embedding = list(map(float, stored_vectors[node.id_]))
            self._upsert(batch, stale)
        bar.close()
        # catalogue changes that touch no chunk (authors merged from another listing)
        self.catalog.upsert([p for pid, p in by_id.items() if pid not in written], counts, library)
        report.embedded_chunks += len(todo)

    def _existing(self, ids: list[str]) -> dict[str, dict]:
        found: dict[str, dict] = {}
        for start in range(0, len(ids), FETCH_BATCH):
            page = self.collection.get(ids=ids[start:start + FETCH_BATCH], include=["metadatas"])
            found.update(zip(page["ids"], page["metadatas"]))
        return found

    def _write_batch(self) -> int:
        """Chunks per write: Settings' size, capped by what the store accepts in one call."""
        try:
            limit = int(self.client.get_max_batch_size())
        except Exception:  # an old server without the endpoint: Chroma's smallest default
            limit = 5461
        return max(1, min(self.settings.write_batch_size, limit))

    def _upsert(self, nodes: list["TextNode"], stale: dict[str, dict] | None = None) -> None:
        """Write nodes (with embeddings) as llama-index's ChromaVectorStore lays them out, but as an
        upsert: the old version of a chunk stays until its replacement is written. Chroma merges
        metadata on upsert, so keys of the stored version (`stale`) that the new one lacks are unset."""
        from llama_index.core.schema import MetadataMode
        from llama_index.core.vector_stores.utils import node_to_metadata_dict

        if not nodes:
            return
        self.catalog.chunks_changing(list(dict.fromkeys(n.metadata["paper_id"] for n in nodes)))
        metadatas = []
        for node in nodes:
            meta = node_to_metadata_dict(node, remove_text=True, flat_metadata=True)
            metadatas.append({**{k: None for k in (stale or {}).get(node.id_, {}) if k not in meta}, **meta})
        self.collection.upsert(
            ids=[n.id_ for n in nodes], embeddings=[n.embedding for n in nodes], metadatas=metadatas,
            documents=[n.get_content(metadata_mode=MetadataMode.NONE) or "" for n in nodes],
        )

    def _present(self, ids: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), FETCH_BATCH):
            found.update(self.collection.get(ids=ids[start:start + FETCH_BATCH], include=[])["ids"])
        return found


def _paper_batches(nodes: list["TextNode"], size: int):
    """Consecutive groups of at most `size` nodes that keep each paper's chunks together
    (a paper with more chunks than `size` is its own group, written in one call per `size`)."""
    by_paper: dict[str, list] = {}
    for node in nodes:
        by_paper.setdefault(node.metadata["paper_id"], []).append(node)
    batch: list = []
    for group in by_paper.values():
        if batch and len(batch) + len(group) > size:
            yield batch
            batch = []
        if len(group) > size:
            for i in range(0, len(group), size):
                yield group[i:i + size]
            continue
        batch += group
    if batch:
        yield batch
