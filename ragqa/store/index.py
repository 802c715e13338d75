"""Papers -> token-aware chunks (tiktoken) -> embeddings -> Chroma, idempotent and incremental.

Chunk ids are `<paper content hash>:<n>` inside a collection named after the embedding model and
chunking, so re-ingesting unchanged papers embeds nothing. Retrieval lives in retrieve.py.
"""
from __future__ import annotations

import json
import sys
import threading
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from ragqa.config import Settings
from ragqa.errors import IndexMissingError, QueryError, VectorsMissingError
from ragqa.ingest.corpus import Paper, authors_of, merge_papers, surname_key, title_key, without_abstract
from ragqa.ingest.spill import SpilledPages
from ragqa.store.catalog import DEFAULT_LIBRARY, Catalog
from ragqa.store.chroma import collection_name, drop_collection, get_collection, open_client
from ragqa.store.writelock import store_lock

if TYPE_CHECKING:  # llama-index is imported lazily: an unchanged re-ingest never needs it
    from collections.abc import Set as AbstractSet

    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import TextNode

    from ragqa.store.lexical import LexicalIndex, SavedTokens

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
    metadata_only: int = 0  # of `papers`: records without an abstract, indexed by their title (Paper.metadata_only)
    merged_records: int = 0  # records without an abstract whose paper is indexed with its abstract, merged into it
    skipped: list[str] = field(default_factory=list)  # one line per paper not indexed, with the reason
    seconds: float = 0.0


def paper_metadata(paper: Paper) -> dict:
    """The paper's full record as one flat dict (search hits carry it as `Hit.meta`)."""
    return {
        "paper_id": paper.paper_id, "label": paper.label, "title": paper.title or "",
        "venue": paper.venue or "", "year": paper.year or 0, "topic": paper.topic or "",
        "authors": "; ".join(paper.authors), "authors_truncated": paper.authors_truncated,
        "source_id": paper.source_id or "", "sources": "; ".join(paper.sources),
        "extra": json.dumps(dict(paper.extra), ensure_ascii=False) if paper.extra else "",
        "status": dict(paper.extra).get("status", ""), "abstract": paper.abstract, "text": paper.text,
    }


CHUNK_FIELDS = ("paper_id", "label", "title", "venue", "year", "topic", "source_id")


def chunk_metadata(paper: Paper) -> dict:
    """What every chunk carries in Chroma: the paper id and the fields Chroma filters on or embeds
    (the title). The abstract, text and authors live once per paper in the catalog."""
    meta = paper_metadata(paper)
    return {k: meta[k] for k in CHUNK_FIELDS} | {"title": _chunk_title(meta["title"])}


_TITLE_TOKENS = 64  # of a title embedded with each chunk: every ICLR/ICML 2024 title fits (the longest: 46)


def _chunk_title(title: str) -> str:
    """The title as chunks carry and embed it: its first 64 tokens (the splitter refuses metadata longer than a chunk,
    which aborted a whole file for one 700-character title); the catalog keeps it whole."""
    if len(title) <= _TITLE_TOKENS:  # fewer characters than the budget's tokens: no need to count
        return title
    import tiktoken

    encoding = tiktoken.get_encoding(TOKENIZER)
    tokens = encoding.encode(title)
    return title if len(tokens) <= _TITLE_TOKENS else encoding.decode(tokens[:_TITLE_TOKENS])


def paper_from_metadata(meta: dict) -> Paper:
    """A Paper from a full record dict (the catalog's, or a chunk written before the catalog)."""
    return Paper(
        paper_id=meta["paper_id"], abstract=meta.get("abstract", ""), text=meta.get("text", ""),
        label=meta.get("label", ""), venue=meta.get("venue") or None, year=meta.get("year") or None,
        topic=meta.get("topic") or None,
        authors=tuple(authors_of(meta)),
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
    """Each paper -> one or more chunks at sentence boundaries, with the chunk metadata.
    Only the title (when known) is embedded with the text; all metadata stays out of prompts."""
    from llama_index.core import Document

    splitter = make_splitter(settings)
    nodes: list[TextNode] = []
    for paper in papers:
        meta = chunk_metadata(paper)
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


class PaperRecords(Mapping):
    """paper_id -> the paper's record (as PaperIndex.papers() makes it), read from the catalog when a search hit,
    a filter or an answer asks for it, the last `keep` kept: a reader holds no record per indexed paper (at 100k
    papers the records were ~0.5 GB of a reader's memory). One is made per catalog state (Searcher.refresh); a full
    pass (items(), values()) reads the catalog page by page."""

    _PAGE = 900

    def __init__(self, index: "PaperIndex", keep: int = 5000):
        self._index, self._keep = index, keep
        self._count = index.catalog.count()
        self._cache: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()  # the UI answers on worker threads

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        return self._index.catalog.ids()

    def __getitem__(self, paper_id: str) -> dict:
        got = self.many([paper_id])
        if paper_id not in got:
            raise KeyError(paper_id)
        return got[paper_id]

    def __contains__(self, paper_id) -> bool:
        return paper_id in self._cache or bool(self.many([paper_id]))

    def many(self, paper_ids) -> dict[str, dict]:
        """The records of those of `paper_ids` that are catalogued, in one read for the ones not kept."""
        wanted = list(dict.fromkeys(paper_ids))
        with self._lock:
            found = {pid: self._cache[pid] for pid in wanted if pid in self._cache}
        missing = [pid for pid in wanted if pid not in found]
        if missing:
            fetched = self._index.papers(missing)
            found.update(fetched)
            with self._lock:
                self._cache.update(fetched)
                while len(self._cache) > self._keep:
                    self._cache.popitem(last=False)
        return {pid: found[pid] for pid in wanted if pid in found}

    def items(self) -> "_Pass":
        return _Pass(self, lambda pair: pair)

    def values(self) -> "_Pass":
        return _Pass(self, lambda pair: pair[1])

    def slim(self, paper_ids: list[str] | None = None) -> dict[str, dict]:
        """Every record (or these papers') without its abstract and text, in one pass (what the saved views are built
        and extended from)."""
        return {pid: {k: v for k, v in m.items() if k not in ("abstract", "text")} for pid, m in self.pages(paper_ids)}

    def pages(self, paper_ids: list[str] | None = None):
        """(paper_id, record) of every paper (or these), read a page at a time and not kept."""
        ids = list(self) if paper_ids is None else paper_ids
        for start in range(0, len(ids), self._PAGE):
            yield from self._index.papers(ids[start:start + self._PAGE]).items()


class _Pass:
    """A full pass over PaperRecords (items or values), re-iterable as a dict's views are."""

    def __init__(self, records: PaperRecords, pick):
        self._records, self._pick = records, pick

    def __iter__(self):
        return (self._pick(pair) for pair in self._records.pages())

    def __len__(self) -> int:
        return len(self._records)


class CatalogPapers(Sequence):
    """Catalogued papers by id, read when a slice of them is asked for (PaperIndex.ingest takes papers in slices)."""

    def __init__(self, catalog, paper_ids: list[str]):
        self._catalog, self._ids = catalog, list(paper_ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __getitem__(self, item):
        ids = self._ids[item] if isinstance(item, slice) else [self._ids[item]]
        rows = self._catalog.get(ids)
        papers = [rows[pid][0] for pid in ids if pid in rows]
        return papers if isinstance(item, slice) else papers[0]


class PaperIndex:
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
        self.collection = get_collection(self.client, self.name, self._collection_meta, create=create, settings=settings)
        self.catalog = Catalog(settings.catalog_path(self.name))
        if self.catalog.empty() and self.count():
            self._catalog_from_chunks()
            if not create and self.catalog.empty():
                raise IndexMissingError(
                    f"No paper catalog at {self.catalog.path} for the {self.count()} chunks in '{self.name}'. Point "
                    "RAGQA_CATALOG_DIR at the folder that holds it, or run 'ragqa ingest' with the same files (nothing is re-embedded).")

    def writing(self):
        """The store's write lock (writelock.py) for a block of writes: every write below takes it, so a second
        writer in any process is refused (StoreBusyError) before it changes anything."""
        return store_lock(self.settings)

    def reset_vectors(self) -> None:
        """Drop the collection (its vector index could not be read: StoreDamagedError) and create it empty; the
        catalog is kept, so `ragqa ingest --verify` embeds every catalogued paper's chunks again from it."""
        with self.writing():
            self.catalog.chunks_changing(None)
            drop_collection(self.client, self.name, self.settings)
            self.collection = get_collection(self.client, self.name, self._collection_meta, create=True,
                                             settings=self.settings)

    def _catalog_from_chunks(self) -> None:
        """A store written before the catalog: its chunks carry the full record; copy it once."""
        firsts = {m["paper_id"]: m for _, m in self.all_metadata() if m.get("abstract")}
        self.catalog.upsert([paper_from_metadata(m) for m in firsts.values()],
                            {pid: int(m.get("n_chunks") or 1) for pid, m in firsts.items()})

    @property
    def lexical_path(self):
        return self.catalog.path.with_name(self.catalog.path.name.removesuffix(".catalog.sqlite") + ".bm25")

    def lexical(self) -> "LexicalIndex | None":
        """The saved BM25 index if it matches the collection, else None (see refresh_lexical)."""
        from ragqa.store.lexical import LexicalIndex

        return LexicalIndex.load(self.lexical_path, self.catalog.generation())

    def build_lexical(self, kept: "SavedTokens | None" = None, touched: "AbstractSet[str]" = frozenset(),
                      stage: bool = False, release: bool = False) -> "LexicalIndex | None":
        """BM25 over the embedded text of every catalogued paper's chunks. A chunk of a paper not in `touched` takes
        its tokens from `kept` (the saved index's) when it is there; every other chunk is read from Chroma (writers and
        fallbacks only; chunks without a catalog row, which readers never show, are left out). `stage`: the tokens
        are kept with the index `save` writes (LexicalIndex.build). `release` (a writer): the chunks are read first,
        to a temporary file, and Chroma lets go of its vector index (release_vectors) before the build, so the
        build's memory is not added to the index's."""
        from llama_index.core.schema import MetadataMode
        from llama_index.core.vector_stores.utils import metadata_dict_to_node

        from ragqa.store.lexical import LexicalIndex

        def pages():  # by id: pages by offset rescan the table up to each page; the id list goes with the generator
            wanted = self._chunk_ids()
            for start in range(0, len(wanted), _FETCH_BATCH):
                ids = wanted[start:start + _FETCH_BATCH]
                read = {cid for cid in ids if kept is None or cid.rsplit(":", 1)[0] in touched or cid not in kept}
                texts = {}
                if read:
                    page = self.collection.get(ids=[cid for cid in ids if cid in read], include=["documents", "metadatas"])
                    texts = {cid: metadata_dict_to_node(meta, text=doc).get_content(metadata_mode=MetadataMode.EMBED)
                             for cid, doc, meta in zip(page["ids"], page["documents"], page["metadatas"])}
                ids = [cid for cid in ids if cid in texts or cid not in read]  # one read but not in Chroma is left out
                yield ids, [texts.get(cid) for cid in ids]  # None: `kept` has its tokens

        generation = self.catalog.generation()
        source = pages()
        if release and self._holds_vectors:
            source = SpilledPages(source, self.settings.vectorstore_dir)  # everything read from Chroma, then it lets go
            self.release_vectors()
        return LexicalIndex.build(source, generation, kept, LexicalIndex.staging(self.lexical_path) if stage else None)

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

    def refresh_lexical(self) -> None:
        """After a write: a saved BM25 index for the collection's generation (also when one is missing or stale).
        When the saved one was built for the generation the changes began from (Catalog.chunk_changes, kept across a
        kill), the chunks of papers no write touched since keep its tokens; the rest, or all, are read from Chroma."""
        from ragqa.store.lexical import SavedTokens

        with self.writing():
            changes = self.catalog.chunk_changes()
            if changes is None and self.lexical_path.is_dir() and self.lexical() is not None:
                return
            base, touched = changes or (None, set())
            index = self.build_lexical(SavedTokens.open(self.lexical_path, base), touched, stage=True, release=True)
            # cleared before the save: a kill in between leaves the old index stale (a full rebuild next), never the
            # new one current with changes still to come unrecorded
            self.catalog.chunk_changes_saved()
            if index is not None:
                index.save(self.lexical_path)

    def vector_store(self):
        from llama_index.vector_stores.chroma import ChromaVectorStore

        return ChromaVectorStore(chroma_collection=self.collection)

    def count(self) -> int:
        return self.collection.count()

    def load_vectors(self) -> None:
        """Have Chroma load the vector index into memory, as its first query does (5.5 s at 1.9M chunks). That query
        releases the GIL, so run in a thread it overlaps a reader's other start-up work (llama-index's imports, the saved
        views). It asks with a unit vector of the collection's dimension, so it needs no embedder and can start as soon
        as the collection is open. A failure is left for the real query to report."""
        try:
            dim = self.collection.get_model().dimension
            if dim:
                self.collection.query(query_embeddings=[[1.0] + [0.0] * (dim - 1)], n_results=1, include=[])
        except Exception:  # noqa: BLE001  (the question's own query reports it, as one line)
            pass

    def require_nonempty(self) -> None:
        """No catalogued paper: nothing to search. Asked of the catalog, not Chroma, whose count took 5.3 s at 1.9M chunks."""
        if self.catalog.empty():
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

    def papers(self, paper_ids: list[str] | None = None) -> dict[str, dict]:
        """paper_id -> the paper's record (as `paper_metadata`) with its chunk count and libraries, from the catalog
        (every paper's, or these papers')."""
        libraries, flagged = self.catalog.library_of(paper_ids), self.catalog.flagged(paper_ids)
        rows = self.catalog.all() if paper_ids is None else self.catalog.get(paper_ids)
        return {pid: {**paper_metadata(paper), "n_chunks": n, "libraries": "; ".join(libraries.get(pid, ())),
                      "flags": flagged.get(pid, "")}
                for pid, (paper, n) in rows.items()}

    def records(self) -> "PaperRecords":
        """The records as a reader holds them: read from the catalog when asked for (PaperRecords)."""
        return PaperRecords(self)

    def remove_library(self, library: str) -> tuple[int, int]:
        """Remove a library: its papers that no other library holds leave the index.
        -> (papers removed, chunks removed)."""
        known = self.catalog.libraries()
        if library not in known:
            raise QueryError(f"No library {library!r}. Libraries: {', '.join(f'{k} ({v})' for k, v in known.items()) or 'none'}.")
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
            "embed_model": self.embed_name, "chunking": f"{self.settings.chunk_size} tokens ({TOKENIZER}), overlap {self.settings.chunk_overlap}",
            "papers": len(papers), "chunks": self.count(),
            "venues": {v: {"papers": per_venue[v], "chunks": chunks[v]} for v in sorted(per_venue)},
            "topics": dict(per_topic.most_common()), "libraries": self.catalog.libraries(),
            "flagged": sorted(m.get("title") or m["label"] for m in papers.values() if m.get("flags")),
            "metadata_only": sum(1 for m in papers.values() if without_abstract(m)),
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
        for start in range(0, len(ids), _FETCH_BATCH):
            found.update(self.collection.get(ids=ids[start:start + _FETCH_BATCH], include=[])["ids"])
        return found

    def _chunks_per_paper(self) -> Counter:
        have: Counter = Counter()
        for _, meta in self.all_metadata():
            have[meta["paper_id"]] += 1
        return have

    def completeness(self) -> tuple[dict[str, int], list[str]]:
        """(paper_id -> chunks missing for catalogued papers whose stored chunks fall short of their count, papers with
        chunks but no catalog row: a removal killed half-way, absent to readers), from one read of every chunk's paper."""
        have, rows = self._chunks_per_paper(), self.catalog.chunk_counts()
        return {pid: n - have[pid] for pid, n in rows.items() if have[pid] < n}, sorted(pid for pid in have if pid not in rows)

    def _chunk_ids(self) -> list[str]:
        """Every catalogued paper's chunk ids, `<paper id>:<n>` for n below its chunk count."""
        return [f"{pid}:{n}" for pid, count in self.catalog.chunk_counts().items() for n in range(count)]

    def unindexed(self) -> list[str]:
        """Catalogued papers' chunk ids whose record Chroma holds but whose vector its vector index lacks (two writers at
        once wrote the index over each other's: such chunks are never found by a search, and a delete of one fails).
        Read as pages of vectors; a page Chroma cannot read (VectorsMissingError) is halved until the missing ids are
        found (3,940 chunks with 305 missing: 1.2 s)."""
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
        return [cid for start in range(0, len(wanted), _FETCH_BATCH) for cid in missing(wanted[start:start + _FETCH_BATCH])]

    def embed_again(self, chunk_ids: list[str], embedder: "BaseEmbedding") -> int:
        """Embed these stored chunks again from their stored text and write their vectors (an upsert: Chroma adds a
        vector its index lacks; a delete would fail on it). Their text is unchanged, so the lexical index is too."""
        from llama_index.core.schema import MetadataMode
        from llama_index.core.vector_stores.utils import metadata_dict_to_node

        written = 0
        with self.writing():
            for start in range(0, len(chunk_ids), self._write_batch()):
                got = self.collection.get(ids=chunk_ids[start:start + self._write_batch()], include=["documents", "metadatas"])
                texts = [metadata_dict_to_node(meta, text=doc).get_content(metadata_mode=MetadataMode.EMBED)
                         for doc, meta in zip(got["documents"], got["metadatas"])]
                vectors = embedder.get_text_embedding_batch(texts)
                self.collection.upsert(ids=got["ids"], embeddings=vectors, metadatas=got["metadatas"], documents=got["documents"])
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

    def _merge_records(self, papers: list[Paper], report: IngestReport, library: str) -> list[Paper]:
        """These papers less the records without an abstract whose paper is here or stored with one (the same folded
        title and first author): its metadata goes into that paper, which joins `library`."""
        bare = [p for p in papers if p.metadata_only]
        if not bare:
            return papers
        keys = {_same_paper(p): (p, None) for p in papers if not p.metadata_only}
        stored = {_same_paper(p): (p, n) for p, n in self.catalog.titled([p.title or "" for p in bare]).values()
                  if not p.metadata_only}
        full, dropped = {p.paper_id: p for p in papers}, set()
        for record in bare:
            match, n_chunks = keys.get(_same_paper(record)) or stored.get(_same_paper(record)) or (None, None)
            if match is None:
                continue
            dropped.add(record.paper_id)
            report.merged_records += 1
            merged = merge_papers(match, record)  # the full paper's id, text and label; the record's fields it lacks
            if match.paper_id in full:
                full[match.paper_id] = merged
            else:  # stored: its row takes the record's fields, its chunks stay
                self.catalog.upsert([merged], {match.paper_id: n_chunks}, library)
        return [full[p.paper_id] for p in papers if p.paper_id not in dropped]

    def _superseded(self, papers: list[Paper]) -> list[str]:
        """Stored papers that an incoming record replaces: the same record id and the same title
        (or the same source file), with other text (a corrected abstract)."""
        incoming = {p.source_id: p for p in papers if p.source_id}
        if not incoming:
            return []
        ids = {p.paper_id for p in papers}
        out = []
        for pid, (old, _) in self.catalog.with_source_ids(list(incoming)).items():
            new = incoming[old.source_id]
            same_title = (old.title or "").strip().lower() == (new.title or "").strip().lower()
            if pid not in ids and (same_title or set(new.sources) & set(old.sources)):
                out.append(pid)
        return out

    def _completed(self, papers: list[Paper]) -> list[str]:
        """Stored records without an abstract that an incoming paper with one completes (the same folded title and
        first author): removed from every library, the full paper joining each of them."""
        full = {_same_paper(p): p for p in papers if not p.metadata_only and p.title}
        if not full:
            return []
        out = []
        for pid, (old, _) in self.catalog.titled([p.title for p in full.values()]).items():
            new = full.get(_same_paper(old))
            if old.metadata_only and new is not None:
                for name in self.catalog.library_of([pid]).get(pid, []):
                    self.catalog.join_library([new.paper_id], name)
                out.append(pid)
        return out

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

    def ingest(self, papers: "Sequence[Paper]", embedder: "BaseEmbedding | Callable[[], BaseEmbedding]",
               progress: bool = True, library: str = DEFAULT_LIBRARY) -> IngestReport:
        """Upsert papers: embed only chunks not yet stored; merge metadata of papers already stored
        (e.g. authors from another listing) without re-embedding; re-embed the missing chunks of a
        paper a killed run left incomplete (checked by its catalogued chunk count).
        Papers go in slices (Settings.ingest_slice_papers), so a million of them, read back from disk
        (spill.py), never sit in memory as chunks at once. Per write, the papers' catalog rows go first,
        then their chunks (upserts under the store's maximum, a paper never split across two): a kill
        leaves a paper complete, or with a row whose chunks fall short, which the next ingest or
        `--verify` repairs. Nothing is deleted before its replacement is written. A record whose id and
        title match a stored paper with other text replaces it in `library` (after the new version is written); the
        old version is removed only when no other library holds it.
        `embedder` may be a factory, so an unchanged corpus never loads the model."""
        import time

        from tqdm import tqdm

        start = time.perf_counter()
        if isinstance(papers, list):  # the same paper twice in one call: merged, as load_paths does
            unique: dict[str, Paper] = {}
            for paper in papers:
                unique[paper.paper_id] = merge_papers(unique[paper.paper_id], paper) if paper.paper_id in unique else paper
            papers = list(unique.values())
        model: list = [embedder]

        def embedder_once():
            if not hasattr(model[0], "get_text_embedding_batch"):
                model[0] = model[0]()
            return model[0]

        size = self.settings.ingest_slice_papers
        report = IngestReport()
        with self.writing():
            bar = tqdm(total=len(papers), unit="paper", desc="papers", file=sys.stderr,
                       disable=not progress or len(papers) <= size)  # one slice: the embedding bar says it all
            for first in range(0, len(papers), size):
                part = papers[first:first + size]
                self._ingest_slice(part, embedder_once, progress, report, library)
                bar.update(len(part))
            bar.close()
            self.refresh_lexical()
        report.chunks = self.count()
        report.seconds = time.perf_counter() - start
        return report

    def _ingest_slice(self, papers: list[Paper], embedder, progress: bool, report: IngestReport, library: str) -> None:
        """One slice of ingest() into `report` (its chunk writes and removals are recorded: Catalog.chunks_changing)."""
        limit = self.settings.max_abstract_chars
        kept = []
        for paper in papers:
            if len(paper.abstract) > limit:
                report.skipped.append(f"{', '.join(paper.sources) or paper.paper_id}: {paper.source_id or paper.label!r} has a "
                                      f"{len(paper.abstract):,}-character abstract (limit {limit:,}, RAGQA_MAX_ABSTRACT_CHARS); not indexed")
            else:
                kept.append(paper)
        papers = self._merge_records(kept, report, library)
        report.papers += len(papers)
        report.metadata_only += sum(p.metadata_only for p in papers)
        stored = self.catalog.get([p.paper_id for p in papers])
        expected = [f"{pid}:{n}" for pid, (_, count) in stored.items() for n in range(count)]
        present = self._present(expected)
        firsts = self._existing([f"{pid}:0" for pid in stored])
        merged: list[Paper] = []
        changed, recorded, incomplete = set(), set(), set()
        for paper in papers:
            if paper.paper_id not in stored:
                report.new_papers += 1
                merged.append(paper)
                continue
            old, count = stored[paper.paper_id]
            new = replace(merge_papers(old, paper), text=old.text)  # keep the stored chunks' text
            first = firsts.get(f"{paper.paper_id}:0") or {}
            stale_chunk = bool(first) and (any(first.get(k) != v for k, v in chunk_metadata(new).items())
                                           or "text" in first)  # "text": a chunk written before the catalog
            if paper_metadata(new) != paper_metadata(old) or stale_chunk:
                # its chunks are rewritten when what they carry changed (or cannot be checked: no first chunk); a
                # change the catalog alone holds (another listing's file name, authors) rewrites its row only
                (changed if stale_chunk or not first else recorded).add(paper.paper_id)
            if any(f"{paper.paper_id}:{n}" not in present for n in range(count)):
                incomplete.add(paper.paper_id)
            merged.append(new)
        superseded = self._superseded(papers)
        work = [p for p in merged if p.paper_id not in stored or p.paper_id in changed | incomplete]
        report.updated_papers += len(changed | recorded)
        report.repaired_papers += len(incomplete)
        rows_only = recorded - incomplete  # (an incomplete paper's row goes with its chunks)
        self.catalog.upsert([p for p in merged if p.paper_id in rows_only], {pid: stored[pid][1] for pid in rows_only}, library)
        if work:
            self._write(work, set(stored), changed, embedder, progress, report, library)
        self.catalog.join_library([p.paper_id for p in papers], library)  # unchanged papers too
        if superseded:  # replaced in this library; a version another library holds stays there
            held = self.catalog.library_of(superseded)
            only_here = [pid for pid in superseded if set(held.get(pid, ())) <= {library}]
            self.catalog.leave(sorted(set(superseded) - set(only_here)), library)
            self.delete_papers(only_here)
            report.replaced_papers += len(superseded)
        completed = [pid for pid in self._completed(papers) if pid not in superseded]
        if completed:
            self.delete_papers(completed)
            report.replaced_papers += len(completed)

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
        bar = tqdm(total=len(todo), unit="chunk", desc="embedding", file=sys.stderr, disable=not progress or not todo)
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


def _same_paper(paper: Paper) -> tuple[str, str]:
    """What a record without an abstract shares with its full version: the folded title and first author's surname."""
    return title_key(paper.title), surname_key(paper.authors)


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
