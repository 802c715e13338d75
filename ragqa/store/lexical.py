"""The lexical (BM25) side of hybrid retrieval: a bm25s index over every chunk's embedded text (title +
chunk, English stop words, Snowball stems, as llama-index's BM25Retriever builds it), saved next to the
collection by ingest and memory-mapped by readers, so no reader reads every chunk at start.

Scores and ids only; fetching the chunks and fusing with dense hits stays in retrieve.py.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np

_LANGUAGE = "en"


def _bm25s():
    """bm25s, imported without its optional numba and scipy.sparse when nothing has imported them yet: the index
    scores and builds with numpy (bm25s reads scipy only for csc_backend="scipy"), and those two imports alone cost
    ~0.6 s and ~0.1 s of every cold start."""
    import sys

    if "bm25s" in sys.modules:
        import bm25s

        return bm25s
    blocked = [name for name in ("numba", "scipy.sparse") if name not in sys.modules]
    for name in blocked:
        # makes bm25s's `from numba import njit` / `import scipy.sparse` fail, as if not installed
        sys.modules[name] = None
    try:
        import bm25s
    finally:
        for name in blocked:
            del sys.modules[name]  # a later import (ranx, scikit-learn, in evals) works as usual
    return bm25s


_STEMMERS = threading.local()


def stemmer():
    """PyStemmer's English stemmer, one per thread (a Stemmer object must not be used by two threads at once; the UI
    answers on several): BM25 and the citation support check stem alike."""
    found = getattr(_STEMMERS, "english", None)
    if found is None:
        import Stemmer

        found = _STEMMERS.english = Stemmer.Stemmer("english")
    return found


class _Packed:
    """Every document's token ids, held page by page in int32 arrays: 4 bytes a token instead of a Python int and a
    list slot (~36), which at 1M papers (~2M chunks) is the difference between ~1 and ~10 GB. The paged build reads the
    pages; bm25s's own reads a list per document."""

    def __init__(self):
        self._pages: list[tuple[np.ndarray, np.ndarray]] = []  # (token ids of the page's documents, each one's end)
        self._count = 0

    def add(self, docs: list) -> None:
        """One page: each document's token ids (a list, or an array of a saved index's)."""
        ends = np.cumsum([len(d) for d in docs], dtype=np.int64)
        tokens = np.concatenate([np.asarray(d, dtype=np.int32) for d in docs]) if docs else np.zeros(0, np.int32)
        self._pages.append((tokens, ends))
        self._count += len(docs)

    def save(self, folder: Path) -> None:
        """tokens.npy (every document's token ids, in order) and ends.npy (each document's end in it), page by page."""
        total = sum(len(tokens) for tokens, _ in self._pages)
        tokens_out = np.lib.format.open_memmap(folder / "tokens.npy", mode="w+", dtype=np.int32, shape=(total,))
        ends_out = np.lib.format.open_memmap(folder / "ends.npy", mode="w+", dtype=np.int64, shape=(self._count,))
        at = done = 0
        for tokens, ends in self._pages:
            tokens_out[at:at + len(tokens)] = tokens
            ends_out[done:done + len(ends)] = ends + at
            at, done = at + len(tokens), done + len(ends)
        tokens_out.flush()
        ends_out.flush()
        del tokens_out, ends_out

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        for tokens, ends in self._pages:
            start = 0
            for end in ends.tolist():
                yield tokens[start:end].tolist()
                start = end

    def pages(self):
        """(token ids, each document's end) page by page, as added."""
        return iter(self._pages)

    def lengths(self) -> np.ndarray:
        """Every document's token count, in order."""
        return (
            np.concatenate([np.diff(ends, prepend=0) for _, ends in self._pages])
            if self._pages
            else np.zeros(0, np.int64)
        )


@functools.cache
def _paged_bm25():
    """bm25s.BM25 whose build_index_from_ids (the override point bm25s documents) builds the score matrix page by page
    from a _Packed corpus, writing each (token, document) score straight into its column: bm25s's own build holds three
    copies of every score with its row and column, plus a sort key and order (~9.5 GB at 1.9M chunks). Same scores,
    in the same order: every arithmetic step is bm25s's, on arrays instead of one document at a time."""
    bm25s = _bm25s()
    from bm25s.scoring import _build_idf_array, _select_idf_scorer, _select_tfc_scorer

    class PagedBM25(bm25s.BM25):
        def build_index_from_ids(self, unique_token_ids, corpus_token_ids, show_progress=True, leave_progress=False):
            if not isinstance(corpus_token_ids, _Packed) or self.method not in ("robertson", "lucene", "atire"):
                return super().build_index_from_ids(unique_token_ids, corpus_token_ids, show_progress, leave_progress)
            self.nonoccurrence_array = None  # as bm25s sets it for these methods; its scoring reads it
            lengths = corpus_token_ids.lengths()
            n_docs, n_vocab = len(lengths), len(unique_token_ids)
            avg_doc_len = lengths.mean()
            # pass 1: how many documents hold each token (the column sizes), from each page's distinct
            # (document, token); pass 2 computes the pairs again rather than keep them: kept, they would be every
            # score's row and column
            df = np.zeros(n_vocab, dtype=np.int64)
            for _, tokens, _ in _distinct(corpus_token_ids, n_vocab):
                column, count = np.unique(tokens, return_counts=True)
                df[column] += count
            idf = _build_idf_array(
                dict(enumerate(df.tolist())), n_docs, _select_idf_scorer(self.idf_method), self.dtype
            )
            indptr = np.zeros(n_vocab + 1, dtype=np.int64)
            np.cumsum(df, out=indptr[1:])
            data = np.empty(int(indptr[-1]), dtype=self.dtype)
            indices = np.empty(int(indptr[-1]), dtype=self.int_dtype)
            heads = indptr[:-1].copy()  # where each column's next score goes; documents come in order
            tfc_of = _select_tfc_scorer(self.method)
            # pass 2: each page's scores, sorted by token (documents stay in order within a token), into their columns
            for docs, tokens, tf in _distinct(corpus_token_ids, n_vocab):
                tfc = tfc_of(tf_array=tf.astype(self.dtype), l_d=lengths[docs], l_avg=avg_doc_len, k1=self.k1, b=self.b,
                             delta=self.delta)
                scores = idf[tokens] * tfc
                order = np.argsort(tokens, kind="stable")
                tokens, docs, scores = tokens[order], docs[order], scores[order]
                firsts = np.searchsorted(tokens, tokens, side="left")
                positions = heads[tokens] + (np.arange(len(tokens)) - firsts)
                data[positions] = scores
                indices[positions] = docs
                column, count = np.unique(tokens, return_counts=True)
                heads[column] += count
            return {"data": data, "indices": indices, "indptr": indptr, "num_docs": n_docs}

    return PagedBM25


def _distinct(packed: _Packed, n_vocab: int):
    """Per page: each document's distinct tokens and their counts, as (global document index, token, count) arrays
    sorted by document, then token."""
    first = 0
    for tokens, ends in packed.pages():
        n = len(ends)
        local = np.repeat(np.arange(n, dtype=np.int64), np.diff(ends, prepend=0))
        keys, tf = np.unique(local * n_vocab + tokens, return_counts=True)
        yield first + keys // n_vocab, (keys % n_vocab).astype(np.int64), tf
        first += n


def _staged(folder: Path) -> None:
    """An empty staging folder (a killed writer's leftovers removed)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)


class SavedTokens:
    """The token ids a saved index was built from and its tokenizer's vocabulary (build(stage=...) writes them beside
    it): a writer takes the chunks it did not touch from here instead of reading them back from Chroma and tokenizing
    them again (at 1M papers that reading was most of a 22-minute rebuild)."""

    def __init__(self, folder: Path, chunk_ids: list[str]):
        self.folder = Path(folder)
        self.tokens = np.load(self.folder / "tokens.npy", mmap_mode="r")
        self.ends = np.load(self.folder / "ends.npy", mmap_mode="r")
        if len(self.ends) != len(chunk_ids):
            raise ValueError("the saved tokens do not match the saved chunk ids")
        self._position = {cid: i for i, cid in enumerate(chunk_ids)}

    @classmethod
    def open(cls, folder: Path, generation: int | None) -> "SavedTokens | None":
        """The saved index's tokens if it was built for this generation and saved them, else None."""
        folder = Path(folder)
        try:
            ids = json.loads((folder / "ids.json").read_text("utf-8"))
            if generation is None or ids["generation"] != generation or not (folder / "vocab.tokenizer.json").is_file():
                return None
            return cls(folder, ids["chunk_ids"])
        except (OSError, ValueError, KeyError):
            return None

    def close(self) -> None:
        """Let go of the id table and the mapped files; `get` finds nothing after."""
        self._position, self.tokens, self.ends = {}, np.zeros(0, np.int32), np.zeros(0, np.int64)

    def __contains__(self, chunk_id: str) -> bool:
        return chunk_id in self._position

    def get(self, chunk_id: str) -> np.ndarray | None:
        i = self._position.get(chunk_id)
        if i is None:
            return None
        return self.tokens[int(self.ends[i - 1]) if i else 0:int(self.ends[i])]


class LexicalIndex:
    """BM25 over chunks; `chunk_ids[i]` and `paper_ids[paper_of[i]]` name document i."""

    def __init__(self, bm25, chunk_ids: list[str], paper_ids: list[str], paper_of: np.ndarray, generation: int):
        self.bm25, self.chunk_ids, self.paper_ids, self.paper_of = bm25, chunk_ids, paper_ids, paper_of
        self.generation = generation
        self.staged: Path | None = None  # where build put this index's tokens (see build's `stage`)
        self._stemmer = stemmer()
        # (the admitted set, its chunks' positions): a filter asked again
        self._admitted_docs: tuple[object, np.ndarray] | None = None

    @classmethod
    def build(
        cls, pages, generation: int, kept: "SavedTokens | None" = None, stage: Path | None = None
    ) -> "LexicalIndex | None":
        """BM25 over (chunk ids, texts) pages, each tokenized as it comes and its texts let go (at 1M papers every
        chunk's text at once was ~2.5 GB): the tokens bm25s.tokenize gives, numbered by one growing vocabulary.
        A text given as None takes the chunk's tokens from `kept` (a saved index's, its vocabulary continued; a chunk
        in neither is left out). `stage`: the folder `save` fills next; the tokens and the tokenizer's vocabulary go
        there now, so the next write can take its unchanged chunks from them."""
        bm25s = _bm25s()
        from bm25s.tokenization import Tokenized, Tokenizer

        tokenizer = Tokenizer(stopwords=_LANGUAGE, stemmer=stemmer())
        if kept is not None:
            tokenizer.load_vocab(str(kept.folder))
        chunk_ids: list[str] = []
        token_ids = _Packed()
        for ids, texts in pages:
            given = [t for t in texts if t is not None]
            fresh = iter(tokenizer.tokenize(given, update_vocab=True, return_as="ids", show_progress=False,
                                            allow_empty=False) if given else [])
            docs = []
            for cid, text in zip(ids, texts):
                tokens = next(fresh) if text is not None else kept.get(cid) if kept is not None else None
                if tokens is not None:
                    chunk_ids.append(cid)
                    docs.append(tokens)
            token_ids.add(docs)
        if kept is not None:
            kept.close()  # its id table (~0.3 GB at 1M papers) is not held through the build below
        if not chunk_ids:
            return None
        if stage is not None:
            _staged(stage)
            token_ids.save(stage)
            tokenizer.save_vocab(str(stage))
        bm25 = _paged_bm25()()
        bm25.index(Tokenized(ids=token_ids, vocab=tokenizer.get_vocab_dict()), show_progress=False)
        # the tokens are in the scores now (~0.7 GB at 1M papers while the ids below are made)
        del token_ids, tokenizer, kept
        papers = [cid.rsplit(":", 1)[0] for cid in chunk_ids]
        paper_ids = list(dict.fromkeys(papers))
        position = {pid: i for i, pid in enumerate(paper_ids)}
        index = cls(
            bm25, list(chunk_ids), paper_ids, np.array([position[p] for p in papers], dtype=np.int64), generation
        )
        index.staged = stage
        return index

    @staticmethod
    def staging(folder: Path) -> Path:
        """The sibling folder `save` writes before it swaps it in."""
        folder = Path(folder)
        return folder.with_name(folder.name + f".tmp{os.getpid()}")

    def save(self, folder: Path) -> None:
        """Write to a sibling folder (`staging`), then swap it in, so a reader never sees half an index."""
        folder = Path(folder)
        tmp = self.staging(folder)
        if self.staged != tmp:  # else build(stage=tmp) put this index's tokens there
            _staged(tmp)
        self.bm25.save(str(tmp), show_progress=False)
        np.save(tmp / "paper_of.npy", self.paper_of)
        (tmp / "ids.json").write_text(json.dumps({"generation": self.generation, "chunk_ids": self.chunk_ids,
                                                  "paper_ids": self.paper_ids}), "utf-8")
        old = folder.with_name(folder.name + f".old{os.getpid()}")
        if folder.exists():
            os.replace(folder, old)
        os.replace(tmp, folder)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path, generation: int) -> "LexicalIndex | None":
        """The saved index if it was built for this generation of the collection, else None."""
        bm25s = _bm25s()

        folder = Path(folder)
        try:
            ids = json.loads((folder / "ids.json").read_text("utf-8"))
            if ids["generation"] != generation:
                return None
            bm25 = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
            paper_of = np.load(folder / "paper_of.npy", mmap_mode="r")
        except (OSError, ValueError, KeyError):
            return None
        return cls(bm25, ids["chunk_ids"], ids["paper_ids"], paper_of, generation)

    def search(self, query: str, k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """(chunk id, BM25 score > 0) best first, at most k, only chunks of `allowed` papers if given.
        bm25s scores every chunk (one pass over the query terms' postings); the best are picked here among the chunks
        that scored, not by bm25s.retrieve: its argpartition over every chunk's score took ~300 ms at 1.9M chunks when
        most scores are equal (rare query terms, or a filter's zeros), against ~40 ms otherwise."""
        bm25s = _bm25s()
        from bm25s.tokenization import convert_tokenized_to_string_list

        tokens = bm25s.tokenize(query, stemmer=self._stemmer, show_progress=False)
        ids = (
            self.bm25.get_tokens_ids(convert_tokenized_to_string_list(tokens)[0])
            if any(len(t) for t in tokens.ids)
            else []
        )
        if not ids:
            return []
        scores = self.bm25.get_scores_from_ids(ids)
        if allowed is None:
            docs = np.flatnonzero(scores > 0)
        else:
            admitted = self._docs_of(allowed)
            docs = admitted[scores[admitted] > 0]
        if len(docs) > k:
            docs = docs[np.argpartition(-scores[docs], k - 1)[:k]]
        docs = docs[np.lexsort((-docs, -scores[docs]))]  # ties: the later chunk first, as bm25s.retrieve orders them
        return [(self.chunk_ids[int(d)], float(scores[d])) for d in docs]

    def _docs_of(self, allowed) -> np.ndarray:
        """Positions of the chunks of `allowed` papers. The last answer is kept with the set it was made for and reused
        when the same set object comes again (Searcher.admitted hands out one frozenset per filter): at 1M papers the
        pass over every paper id takes ~120 ms."""
        kept = self._admitted_docs
        if kept is not None and kept[0] is allowed:
            return kept[1]
        papers = np.zeros(len(self.paper_ids), dtype=bool)
        papers[[i for i, pid in enumerate(self.paper_ids) if pid in allowed]] = True
        docs = np.flatnonzero(papers[self.paper_of])
        self._admitted_docs = (allowed, docs)
        return docs
