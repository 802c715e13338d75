"""Papers -> token-aware chunks (SentenceSplitter counting tiktoken tokens) with ids `<paper content hash>:<n>`, so
re-ingesting unchanged papers embeds nothing; each carries the paper id and the few fields Chroma filters on or embeds
(the title). Embedding and writing chunks is chunk_writes.py's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ragqa.config import Settings
from ragqa.ingest.paper import Paper
from ragqa.store.records import paper_metadata

if TYPE_CHECKING:  # llama-index is imported lazily: an unchanged re-ingest never needs it
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import TextNode

TOKENIZER = "cl100k_base"
FETCH_BATCH = 2000  # chunks read from Chroma per call
CHUNK_FIELDS = ("paper_id", "label", "title", "venue", "year", "topic", "source_id")


def chunk_metadata(paper: Paper) -> dict:
    """What every chunk carries in Chroma: the paper id and the fields Chroma filters on or embeds
    (the title). The abstract, text and authors live once per paper in the catalog."""
    meta = paper_metadata(paper)
    return {k: meta[k] for k in CHUNK_FIELDS} | {"title": _chunk_title(meta["title"])}


# of a title embedded with each chunk: every ICLR/ICML 2024 title fits (the longest: 46)
_TITLE_TOKENS = 64


def _chunk_title(title: str) -> str:
    """The title as chunks carry and embed it: its first 64 tokens (the splitter refuses metadata longer than a
    chunk, which aborted a whole file for one 700-character title); the catalog keeps it whole."""
    if len(title) <= _TITLE_TOKENS:  # fewer characters than the budget's tokens: no need to count
        return title
    import tiktoken

    encoding = tiktoken.get_encoding(TOKENIZER)
    tokens = encoding.encode(title)
    return title if len(tokens) <= _TITLE_TOKENS else encoding.decode(tokens[:_TITLE_TOKENS])


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
