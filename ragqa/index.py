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
    repaired_papers: int = 0  # stored incomplete (a killed run), missing chunks embedded now
    replaced_papers: int = 0  # an older version (same record id and title, other text) removed
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
        chunks = splitter.get_nodes_from_documents([doc])
        for n, node in enumerate(chunks):
            node.id_ = f"{paper.paper_id}:{n}"
            node.metadata["chunk"] = n
            node.metadata["n_chunks"] = len(chunks)  # completeness is checked by count, not by chunk 0
            node.excluded_embed_metadata_keys = [*node.excluded_embed_metadata_keys, "n_chunks"]
            node.excluded_llm_metadata_keys = [*node.excluded_llm_metadata_keys, "n_chunks"]
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

    def _write_batch(self) -> int:
        """Chunks per write: Settings' size, capped by what the store accepts in one call."""
        try:
            limit = int(self.client.get_max_batch_size())
        except Exception:  # an old server without the endpoint: Chroma's smallest default
            limit = 5461
        return max(1, min(self.settings.write_batch_size, limit))

    def _upsert(self, nodes: list["TextNode"]) -> None:
        """Write nodes (with embeddings) as llama-index's ChromaVectorStore lays them out, but as an
        upsert: the old version of a chunk stays until its replacement is written."""
        from llama_index.core.schema import MetadataMode
        from llama_index.core.vector_stores.utils import node_to_metadata_dict

        if not nodes:
            return
        self.collection.upsert(
            ids=[n.id_ for n in nodes], embeddings=[n.embedding for n in nodes],
            metadatas=[node_to_metadata_dict(n, remove_text=True, flat_metadata=True) for n in nodes],
            documents=[n.get_content(metadata_mode=MetadataMode.NONE) or "" for n in nodes],
        )

    def _present(self, ids: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), _FETCH_BATCH):
            found.update(self.collection.get(ids=ids[start:start + _FETCH_BATCH], include=[])["ids"])
        return found

    def incomplete(self) -> dict[str, int]:
        """paper_id -> chunks missing, for papers whose stored chunks fall short of their count."""
        have: Counter = Counter()
        expected: dict[str, int] = {}
        for chunk_id, meta in self.all_metadata():
            pid = meta["paper_id"]
            have[pid] += 1
            expected[pid] = max(expected.get(pid, 0), int(meta.get("n_chunks") or 0), int(meta.get("chunk", 0)) + 1)
        return {pid: n - have[pid] for pid, n in expected.items() if have[pid] < n}

    def stored_papers(self, paper_ids: list[str]) -> list[Paper]:
        """The stored Paper records (from any chunk that survived), e.g. to repair them."""
        found: dict[str, Paper] = {}
        for pid in paper_ids:
            page = self.collection.get(where={"paper_id": pid}, include=["metadatas"], limit=1)
            if page["ids"]:
                found[pid] = paper_from_metadata(page["metadatas"][0])
        return list(found.values())

    def _superseded(self, papers: list[Paper]) -> list[str]:
        """Stored papers that an incoming record replaces: the same record id and the same title
        (or the same source file), with other text (a corrected abstract)."""
        incoming = {p.source_id: p for p in papers if p.source_id}
        if not incoming:
            return []
        ids = {p.paper_id for p in papers}
        old: dict[str, dict] = {}
        keys = list(incoming)
        for start in range(0, len(keys), 500):
            page = self.collection.get(where={"source_id": {"$in": keys[start:start + 500]}}, include=["metadatas"])
            for meta in page["metadatas"]:
                old.setdefault(meta["paper_id"], meta)
        out = []
        for pid, meta in old.items():
            new = incoming[meta["source_id"]]
            same_title = (meta.get("title") or "").strip().lower() == (new.title or "").strip().lower()
            same_file = bool(set(new.sources) & set((meta.get("sources") or "").split("; ")))
            if pid not in ids and (same_title or same_file):
                out.append(pid)
        return out

    def delete_papers(self, paper_ids: list[str]) -> int:
        """Remove every chunk of these papers; -> chunks removed."""
        removed, size = 0, self._write_batch()
        for pid in paper_ids:
            chunk_ids = self.collection.get(where={"paper_id": pid}, include=[])["ids"]
            for start in range(0, len(chunk_ids), size):
                self.collection.delete(ids=chunk_ids[start:start + size])
            removed += len(chunk_ids)
        return removed

    def ingest(self, papers: list[Paper], embedder: "BaseEmbedding | Callable[[], BaseEmbedding]",
               progress: bool = True) -> IngestReport:
        """Upsert papers: embed only chunks not yet stored; merge metadata of papers already stored
        (e.g. authors from another listing) without re-embedding; re-embed the missing chunks of a
        paper a killed run left incomplete (checked by its chunk count, not its first chunk).
        Writes are upserts in batches under the store's maximum, a paper never split across two,
        so nothing is deleted before its replacement is written. A record whose id and title match
        a stored paper with other text replaces it (after the new version is written).
        `embedder` may be a factory, so an unchanged corpus never loads the model."""
        import time

        start = time.perf_counter()
        unique: dict[str, Paper] = {}
        for paper in papers:  # the same paper twice in one call: merged, as load_paths does
            unique[paper.paper_id] = merge_papers(unique[paper.paper_id], paper) if paper.paper_id in unique else paper
        papers = list(unique.values())
        report = IngestReport(papers=len(papers))
        first_ids = [f"{p.paper_id}:0" for p in papers]
        stored = self._existing(first_ids)
        expected = [f"{p.paper_id}:{n}" for p in papers if f"{p.paper_id}:0" in stored
                    for n in range(int(stored[f"{p.paper_id}:0"].get("n_chunks") or 1))]
        present = self._present(expected)
        merged: list[Paper] = []
        changed, incomplete = set(), set()
        for paper, first in zip(papers, first_ids):
            if first in stored:
                meta = stored[first]
                old = paper_from_metadata(meta)
                new = merge_papers(old, paper)
                count = int(meta.get("n_chunks") or 0)
                if paper_metadata(new) != paper_metadata(old) or not count:  # not count: stored before chunk counts
                    changed.add(paper.paper_id)
                if count and any(f"{paper.paper_id}:{n}" not in present for n in range(count)):
                    incomplete.add(paper.paper_id)
                merged.append(replace(new, text=old.text))  # keep the stored chunks' text
            else:
                report.new_papers += 1
                merged.append(paper)
        superseded = self._superseded(papers)
        work = [p for p, first in zip(merged, first_ids) if first not in stored or p.paper_id in changed | incomplete]
        report.updated_papers = len(changed)
        report.repaired_papers = len(incomplete)
        if work:
            self._write(work, stored, changed, embedder, progress, report)
        if superseded:
            self.delete_papers(superseded)
            report.replaced_papers = len(superseded)
        report.chunks = self.count()
        report.seconds = time.perf_counter() - start
        return report

    def _write(self, work: list[Paper], stored: dict, changed: set[str], embedder, progress: bool, report: IngestReport) -> None:
        from llama_index.core.schema import MetadataMode
        from tqdm import tqdm

        nodes = split_papers(work, self.settings)
        have = self._present([n.id_ for n in nodes]) if stored else set()
        todo = [n for n in nodes if n.id_ not in have]
        update = [n for n in nodes if n.id_ in have and n.metadata["paper_id"] in changed]
        if todo and not hasattr(embedder, "get_text_embedding_batch"):
            embedder = embedder()
        bar = tqdm(total=len(todo), unit="chunk", desc="embedding", file=sys.stderr, disable=not progress or not todo)
        for batch in _paper_batches(todo + update, self._write_batch()):
            new = [n for n in batch if n.id_ not in have]
            if new:
                step = max(16, self.settings.embed_batch_size * 4)
                for i in range(0, len(new), step):
                    part = new[i:i + step]
                    vectors = embedder.get_text_embedding_batch([n.get_content(metadata_mode=MetadataMode.EMBED) for n in part])
                    for node, vector in zip(part, vectors):
                        node.embedding = vector
                    bar.update(len(part))
            old = [n for n in batch if n.id_ in have]
            if old:  # metadata-only changes: reuse stored vectors
                vectors = self.collection.get(ids=[n.id_ for n in old], include=["embeddings"])
                by_id = dict(zip(vectors["ids"], vectors["embeddings"]))
                for node in old:
                    node.embedding = list(map(float, by_id[node.id_]))
            self._upsert(batch)
        bar.close()
        report.embedded_chunks = len(todo)


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
