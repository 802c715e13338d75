"""Question (+filters, +history) -> ranked papers: dense (Chroma) + BM25, fused per paper.

Filters come from arguments or from the question itself ("ICML 2024 papers on ..."). Chinese
questions are translated by a caller-supplied function first. Answer generation lives elsewhere.
"""
from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field, fields
from typing import Callable

from llama_index.core import QueryBundle
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, TextNode

from ragqa.config import Settings
from ragqa.query import snapshot
from ragqa.query.plan import QueryPlan
from ragqa.query.request import Filters
from ragqa.retrieval.collection import CollectionViews
from ragqa.retrieval.filtering import FilterViews
from ragqa.retrieval.hits import Hit
from ragqa.retrieval.name_gate import NameLookups
from ragqa.retrieval.reading import read_question
from ragqa.store.index import PaperIndex


@dataclass
class SearchResult(QueryPlan):
    """A QueryPlan and the papers retrieved for it."""

    hits: list[Hit] = field(default_factory=list)

    @property
    def top_relevance(self) -> float:
        return max((h.relevance for h in self.hits if h.relevance is not None), default=0.0)


class HybridRetriever(BaseRetriever):
    """llama-index retriever: one NodeWithScore per paper (its best chunk), RRF-fused score."""

    def __init__(self, searcher: "Searcher", filters: Filters, k: int, own_words: str = ""):
        super().__init__()
        self._searcher, self._filters, self._k, self._own_words = searcher, filters, k, own_words

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._searcher.fuse(query_bundle.query_str, self._filters, self._k, self._own_words)




class Searcher(CollectionViews, FilterViews, NameLookups):
    """Holds the index, the embedder and a BM25 view of the same chunks (rebuilt on change)."""

    def __init__(self, settings: Settings, index: PaperIndex, embedder: BaseEmbedding):
        self.settings, self.index, self.embedder = settings, index, embedder
        self._bm25 = None
        self._bm25_count: tuple[int, ...] = (-1, -1, -1)
        self._meta: dict[str, dict] = {}
        self._names: dict[str, list[str]] = {}
        self._facets: dict[str, object] = {}  # views of the collection (venues, author index, ...) until it changes
        # the writer's saved views for this collection, read as asked for
        self._saved: snapshot.SavedViews | None = None
        self._sentences = None
        # filters -> the papers they admit, until the collection changes
        self._admitted_sets: dict[str, frozenset[str]] = {}
        self._admitted_lock = threading.Lock()  # the UI's threads share one Searcher

    # -- cached views of the collection -------------------------------------------------
    # -- retrieval ------------------------------------------------------------------------
    def _dense(self, query: str, filters: Filters, allowed: set[str] | None) -> list[NodeWithScore]:
        """The chunks nearest the question, read from Chroma in two steps: ids and distances, then the text and
        metadata of the chunks kept (llama-index's retriever reads both for every chunk fetched: ~0.2 ms a chunk,
        where the nearest ids alone cost ~8 ms for 1,000 at 100k papers). Scored exp(-distance), as llama-index's
        ChromaVectorStore scores them (the answerability calibration was fitted on these)."""
        embedding = self.embedder.get_query_embedding(query)
        ranked = self._post_filtered(embedding, allowed) if allowed is not None else None
        if ranked is None:
            ranked = self._nearest(embedding, self.settings.candidates, self._where(filters, allowed))
        nodes = self._chunks([cid for cid, _ in ranked])
        return [NodeWithScore(node=nodes[cid], score=math.exp(-distance)) for cid, distance in ranked if cid in nodes]

    def _nearest(self, embedding: list[float], n: int, where: dict | None = None) -> list[tuple[str, float]]:
        """(chunk id, distance) of the n nearest chunks (fewer when the collection or the filter has fewer)."""
        got = self.index.collection.query(query_embeddings=[embedding], n_results=max(1, n), where=where,
                                          include=["distances"])
        return list(zip(got["ids"][0], got["distances"][0]))

    def _where(self, filters: Filters, allowed: set[str] | None) -> dict | None:
        """Chroma's `where` for the filters: venue and year by the chunks' own keys, the rest by admitted paper."""
        conditions = []
        if filters.venue:
            values = self.venue_values(filters.venue)
            conditions.append({"venue": values[0]} if len(values) == 1 else {"venue": {"$in": values}})
        if filters.year is not None:
            conditions.append({"year": filters.year})
        if (filters.author or filters.topic or filters.status or filters.library) and allowed is not None:
            conditions.append({"paper_id": {"$in": sorted(allowed) or ["-"]}})
        return None if not conditions else conditions[0] if len(conditions) == 1 else {"$and": conditions}

    def _post_filtered(self, embedding: list[float], allowed: set[str]) -> list[tuple[str, float]] | None:
        """The filtered nearest chunks as the unfiltered ranking's first chunks of admitted papers: exact whenever
        enough of them are among the chunks fetched (or every chunk was), and cheaper than Chroma's `where`, which
        reads every admitted chunk's metadata first (~190 ms for a venue at 100k papers). The fetch grows as the
        filter narrows (`candidates` / admitted share, doubled); past `Settings.dense_post_filter_max` chunks, or
        when too few admitted chunks came back, None: the caller filters in Chroma."""
        want = self.settings.candidates
        share = len(allowed) / max(1, len(self._meta))
        fetch = int(2 * want / share) + 1 if share else self.settings.dense_post_filter_max + 1
        if fetch > self.settings.dense_post_filter_max:
            return None
        ranked = self._nearest(embedding, fetch)
        kept = [(cid, d) for cid, d in ranked if cid.rsplit(":", 1)[0] in allowed]  # chunk ids are "<paper_id>:<n>"
        if len(kept) >= want or len(ranked) < fetch:
            return kept[:want]
        return None

    def _chunks(self, ids: list[str]) -> dict:
        """chunk id -> its llama-index TextNode, read from Chroma by id."""
        from llama_index.core.vector_stores.utils import metadata_dict_to_node

        if not ids:
            return {}
        got = self.index.collection.get(ids=ids, include=["documents", "metadatas"])
        return {cid: metadata_dict_to_node(meta, text=doc)
                for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"])}

    def _sparse(self, query: str, allowed: set[str] | None) -> list[NodeWithScore]:
        """BM25 chunks (only catalogued papers, within `allowed`), fetched from Chroma by id."""
        if self._bm25 is None or not re.search(r"[A-Za-z0-9]", query):
            return []
        papers = None  # no mask unless filtered or the lexical index holds papers the catalog no longer has
        orphans = len(self._meta) < len(self._bm25.paper_ids)
        if allowed is not None:
            papers = allowed & set(self._meta) if orphans else allowed  # filters admit only catalogued papers
        elif orphans:
            papers = set(self._meta)
        ranked = self._bm25.search(query, self.settings.candidates, papers)
        if not ranked:
            return []
        nodes = self._chunks([cid for cid, _ in ranked])
        return [NodeWithScore(node=nodes[cid], score=score) for cid, score in ranked if cid in nodes]

    def fuse(self, query: str, filters: Filters, k: int, own_words: str = "") -> list[NodeWithScore]:
        """Reciprocal-rank fusion at paper level; each paper keeps its best-ranked chunk. A paper named in the query,
        or in `own_words` (the user's question before a translation or rewrite, which may drop a name's star), comes
        first."""
        self.refresh()
        allowed = self.admitted(filters)
        mode = self.settings.retrieval_mode
        dense = self._dense(query, filters, allowed) if mode in ("hybrid", "dense") else []
        sparse = self._sparse(query, allowed) if mode in ("hybrid", "bm25") else []
        scores: dict[str, float] = {}
        best: dict[str, tuple[int, NodeWithScore]] = {}
        cosine: dict[str, float] = {}
        for weight, ranked, is_dense in ((self.settings.dense_weight, dense, True),
                                         (self.settings.bm25_weight, sparse, False)):
            seen: set[str] = set()
            known = self._meta.many([h.node.metadata["paper_id"] for h in ranked])
            ranked = [h for h in ranked if h.node.metadata["paper_id"] in known]  # written since refresh, or orphaned
            for rank, hit in enumerate(ranked):
                pid = hit.node.metadata["paper_id"]
                if is_dense:
                    cosine[pid] = max(cosine.get(pid, -1.0), hit.score or 0.0)
                if pid in seen:
                    continue
                seen.add(pid)
                scores[pid] = scores.get(pid, 0.0) + weight / (self.settings.rrf_k + rank + 1)
                if pid not in best or rank < best[pid][0]:
                    best[pid] = (rank, hit)
        for pid in dict.fromkeys(self._named_in(query, allowed)
                                 + (self._named_in(own_words, allowed) if own_words else [])):
            if pid not in best:
                node = self.index.collection.get(ids=[f"{pid}:0"], include=["documents", "metadatas"])
                best[pid] = (0, NodeWithScore(node=TextNode(id_=f"{pid}:0", text=node["documents"][0],
                                                            metadata=node["metadatas"][0]), score=0.0))
            scores[pid] = scores.get(pid, 0.0) + 1.0
            cosine[pid] = 1.0
        written = _plain(f"{query} {own_words}")
        for pid, (_, hit) in best.items():  # a title the question writes out names its paper as a method name does,
            # when it is that paper's own phrase (at most settings.query.own_name_papers carry it, like a name an
            # abstract introduces)
            title = _written_title(written, hit.node.metadata.get("title") or "") if cosine.get(pid) != 1.0 else None
            own = self.settings.query.own_name_papers
            if title and self.names.mentioned_by(title, own + 1) <= own:
                scores[pid] = scores.get(pid, 0.0) + 1.0
                cosine[pid] = 1.0
        ranked_ids = sorted(scores, key=lambda p: (-scores[p], p))[:k]
        out = []
        for pid in ranked_ids:
            node = best[pid][1].node
            node.metadata["_relevance"] = cosine.get(pid)
            out.append(NodeWithScore(node=node, score=scores[pid]))
        return out


def _plain(text: str) -> str:
    return " " + " ".join(re.findall(r"[^\W_]+", text.lower())) + " "


def _written_title(plain_question: str, title: str) -> str | None:
    """The paper's title, or the part before its colon, of at least three words and 20 letters, when the question
    holds it ("Vision Transformers Need Registers 这篇论文…"); the Searcher takes it as the paper's name when few
    papers carry the phrase (not "Vitamin D deficiency", which many abstracts say)."""
    for part in dict.fromkeys([title, title.split(":", 1)[0]]):
        plain = _plain(part)
        if len(plain.split()) >= 3 and len(plain) >= 22 and plain in plain_question:
            return part
    return None


def search(
    searcher: Searcher, question: str, filters: Filters | None = None, k: int | None = None,
    history: list[str] | None = None, rewrite: Callable[[str, list[str]], str] | None = None,
    translate: Callable[[str], str] | None = None, auto_filters: bool = True,
) -> SearchResult:
    """The search entry point used by the CLI, the answerer, the UI and the evals: the question read once
    (reading.read_question), then the papers retrieved for what it asks."""
    plan = read_question(searcher, question, filters, history, rewrite, translate, auto_filters)
    return SearchResult(**{f.name: getattr(plan, f.name) for f in fields(QueryPlan)}, hits=retrieve(searcher, plan, k))


def retrieve(searcher: Searcher, plan: QueryPlan, k: int | None = None) -> list[Hit]:
    """The papers for a plan: hybrid retrieval within its filters, named papers first."""
    retriever = HybridRetriever(searcher, plan.filters, k or searcher.settings.top_k, own_words=plan.own_words)
    records = searcher.paper_meta()
    return [
        Hit(paper_id=n.node.metadata["paper_id"], score=n.score or 0.0,
            relevance=n.node.metadata.pop("_relevance", None),
            text=n.node.get_content(), meta={**records[n.node.metadata["paper_id"]], **n.node.metadata})
        for n in retriever.retrieve(plan.query)
    ]
