"""Papers -> token-aware chunks (tiktoken) -> embeddings -> Chroma, idempotent and incremental.

Chunk ids are `<paper content hash>:<n>` inside a collection named after the embedding model and
chunking, so re-ingesting unchanged papers embeds nothing. Retrieval lives in retrieve.py.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable

from typing import TYPE_CHECKING

from .config import Settings
from .corpus import Paper, merge_papers
from .errors import IndexMissingError
from .store import collection_name, get_collection, open_client

if TYPE_CHECKING:  # llama-index is imported lazily: an unchanged re-ingest never needs it
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import TextNode

TOKENIZER = "cl100k_base"
_FETCH_BATCH = 2000


@dataclass
class IngestReport:
    papers: int = 0
    new_papers: int = 0
    updated_papers: int = 0
    chunks: int = 0
    embedded_chunks: int = 0
    seconds: float = 0.0


def paper_metadata(paper: Paper) -> dict:
    """Flat Chroma-safe metadata (no lists, no None) carried by every chunk of the paper."""
    meta = {
        "paper_id": paper.paper_id, "label": paper.label, "title": paper.title or "",
        "venue": paper.venue or "", "year": paper.year or 0, "topic": paper.topic or "",
        "authors": "; ".join(paper.authors), "authors_truncated": paper.authors_truncated,
        "source_id": paper.source_id or "", "sources": "; ".join(paper.sources),
        "extra": json.dumps(dict(paper.extra), ensure_ascii=False) if paper.extra else "",
        "abstract": paper.abstract, "text": paper.text,
    }
    return meta


def paper_from_metadata(meta: dict) -> Paper:
    return Paper(
        paper_id=meta["paper_id"], abstract=meta.get("abstract", ""), text=meta.get("text", ""),
        label=meta.get("label", ""), venue=meta.get("venue") or None, year=meta.get("year") or None,
        topic=meta.get("topic") or None,
        authors=tuple(a for a in (meta.get("authors") or "").split("; ") if a),
        authors_truncated=bool(meta.get("authors_truncated")), title=meta.get("title") or None,
        source_id=meta.get("source_id") or None,
        extra=tuple(json.loads(meta["extra"]).items()) if meta.get("extra") else (),
        sources=tuple(s for s in (meta.get("sources") or "").split("; ") if s),
    )


def make_splitter(settings: Settings) -> "SentenceSplitter":
    import tiktoken
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(
        chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap,
        tokenizer=tiktoken.get_encoding(TOKENIZER).encode,
        id_func=None, include_prev_next_rel=False,
    )


def split_papers(papers: list[Paper], settings: Settings) -> list["TextNode"]:
    """Each paper -> one or more chunks at sentence boundaries, with the paper's metadata.
    Only the title (when known) is embedded with the text; all metadata stays out of prompts."""
    from llama_index.core import Document
    splitter = make_splitter(settings)
    nodes: list[TextNode] = []
    for paper in papers:
        meta = paper_metadata(paper)
        doc = Document(
            text=paper.text, id_=paper.paper_id, metadata=meta,
            excluded_embed_metadata_keys=[k for k in meta if k != "title" or not paper.title],
            excluded_llm_metadata_keys=list(meta),
        )
        for n, node in enumerate(splitter.get_nodes_from_documents([doc])):
            node.id_ = f"{paper.paper_id}:{n}"
            node.metadata["chunk"] = n
            nodes.append(node)
    return nodes


class PaperIndex:
    """The Chroma collection for one embedding model + chunking, and the operations on it."""

    def __init__(self, settings: Settings, embed_name: str, client=None, create: bool = False):
        self.settings = settings
        self.embed_name = embed_name
        self.client = client or open_client(settings)
        self.name = collection_name(settings, embed_name)
        meta = {"embed_model": embed_name, "chunk_size": settings.chunk_size,
                "chunk_overlap": settings.chunk_overlap, "tokenizer": TOKENIZER}
        self.collection = get_collection(self.client, self.name, meta, create=create)

    def vector_store(self):
        from llama_index.vector_stores.chroma import ChromaVectorStore

        return ChromaVectorStore(chroma_collection=self.collection)

    def count(self) -> int:
        return self.collection.count()

    def require_nonempty(self) -> None:
        if self.count() == 0:
            raise IndexMissingError(f"The index '{self.name}' is empty. Run 'ragqa ingest' first.")

    def all_metadata(self) -> list[tuple[str, dict]]:
        """(chunk id, metadata) for every chunk, in pages."""
        out, offset = [], 0
        while True:
            page = self.collection.get(include=["metadatas"], limit=_FETCH_BATCH, offset=offset)
            out += list(zip(page["ids"], page["metadatas"]))
            if len(page["ids"]) < _FETCH_BATCH:
                return out
            offset += _FETCH_BATCH

    def papers(self, metadata: list[tuple[str, dict]] | None = None) -> dict[str, dict]:
        """paper_id -> metadata of its first chunk."""
        found: dict[str, dict] = {}
        for _, meta in metadata if metadata is not None else self.all_metadata():
            found.setdefault(meta["paper_id"], meta)
        return found

    def stats(self) -> dict:
        metadata = self.all_metadata()  # one read of the collection
        papers = self.papers(metadata)
        chunks = Counter(m.get("venue") or "(none)" for _, m in metadata)
        per_venue = Counter(m.get("venue") or "(none)" for m in papers.values())
        per_topic = Counter(m.get("topic") for m in papers.values() if m.get("topic"))
        return {
            "collection": self.name, "store": self.settings.chroma_label(),
            "embed_model": self.embed_name, "chunking": f"{self.settings.chunk_size} tokens ({TOKENIZER}), overlap {self.settings.chunk_overlap}",
            "papers": len(papers), "chunks": sum(chunks.values()),
            "venues": {v: {"papers": per_venue[v], "chunks": chunks[v]} for v in sorted(per_venue)},
            "topics": dict(per_topic.most_common()),
        }

    def _existing(self, ids: list[str]) -> dict[str, dict]:
        found: dict[str, dict] = {}
        for start in range(0, len(ids), _FETCH_BATCH):
            page = self.collection.get(ids=ids[start:start + _FETCH_BATCH], include=["metadatas"])
            found.update(zip(page["ids"], page["metadatas"]))
        return found

    def ingest(self, papers: list[Paper], embedder: "BaseEmbedding | Callable[[], BaseEmbedding]",
               progress: bool = True) -> IngestReport:
        """Upsert papers: embed only chunks not yet stored; merge metadata of papers already stored
        (e.g. authors from another listing) without re-embedding. Never deletes anything.
        `embedder` may be a factory, so an unchanged corpus never loads the model."""
        import time

        from tqdm import tqdm

        start = time.perf_counter()
        report = IngestReport(papers=len(papers))
        first_ids = [f"{p.paper_id}:0" for p in papers]
        stored = self._existing(first_ids)
        merged: list[Paper] = []
        changed: set[str] = set()
        for paper, first in zip(papers, first_ids):
            if first in stored:
                old = paper_from_metadata(stored[first])
                new = merge_papers(old, paper)
                if paper_metadata(new) != paper_metadata(old):
                    changed.add(paper.paper_id)
                merged.append(replace(new, text=old.text))  # keep the stored chunks' text
            else:
                report.new_papers += 1
                merged.append(paper)
        work = [p for p, first in zip(merged, first_ids) if first not in stored or p.paper_id in changed]
        if not work:  # unchanged corpus: nothing to split, embed or import
            report.chunks = self.count()
            report.seconds = time.perf_counter() - start
            return report
        from llama_index.core.schema import MetadataMode

        nodes = split_papers(work, self.settings)
        have = self._existing([n.id_ for n in nodes]) if stored else {}
        todo = [n for n in nodes if n.id_ not in have]
        update = [n for n in nodes if n.id_ in have and n.metadata["paper_id"] in changed]
        report.updated_papers = len(changed)
        store = self.vector_store()
        bar = tqdm(total=len(todo), unit="chunk", desc="embedding", file=sys.stderr, disable=not progress or not todo)
        batch = max(16, self.settings.embed_batch_size * 4)
        if todo and not hasattr(embedder, "get_text_embedding_batch"):
            embedder = embedder()
        for i in range(0, len(todo), batch):
            part = todo[i:i + batch]
            vectors = embedder.get_text_embedding_batch([n.get_content(metadata_mode=MetadataMode.EMBED) for n in part])
            for node, vector in zip(part, vectors):
                node.embedding = vector
            store.add(part)
            bar.update(len(part))
        bar.close()
        if update:  # metadata-only changes: reuse stored vectors
            vectors = self.collection.get(ids=[n.id_ for n in update], include=["embeddings"])
            by_id = dict(zip(vectors["ids"], vectors["embeddings"]))
            for node in update:
                node.embedding = list(map(float, by_id[node.id_]))
            self.collection.delete(ids=[n.id_ for n in update])  # ChromaVectorStore.add does not upsert
            store.add(update)
        report.embedded_chunks = len(todo)
        report.chunks = self.count()
        report.seconds = time.perf_counter() - start
        return report
