"""The saved BM25 index (lexical.py) kept in step with the collection: found for the catalog's generation, built
from the catalogued papers' embedded chunk text, after a write rebuilt from the chunks the write touched and the saved
tokens of the rest. How BM25 scores and stores tokens is lexical.py's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ragqa.config import Settings
from ragqa.ingest.spill import SpilledPages
from ragqa.store.catalog import Catalog
from ragqa.store.chunks import FETCH_BATCH

if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet

    from ragqa.store.lexical import LexicalIndex, SavedTokens


class LexicalSync:
    """PaperIndex's lexical index upkeep (index.py combines it with the other parts)."""

    settings: Settings
    catalog: Catalog

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
            for start in range(0, len(wanted), FETCH_BATCH):
                ids = wanted[start:start + FETCH_BATCH]
                read = {cid for cid in ids if kept is None or cid.rsplit(":", 1)[0] in touched or cid not in kept}
                texts = {}
                if read:
                    page = self.collection.get(ids=[cid for cid in ids if cid in read],
                                               include=["documents", "metadatas"])
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
