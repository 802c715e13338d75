"""The lexical (BM25) side of hybrid retrieval: a bm25s index over every chunk's embedded text (title +
chunk, English stop words, Snowball stems, as llama-index's BM25Retriever builds it), saved next to the
collection by ingest and memory-mapped by readers, so no reader reads every chunk at start.

Scores and ids only; fetching the chunks and fusing with dense hits stays in retrieve.py.
"""
from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np

_LANGUAGE = "en"


def _bm25s():
    """bm25s, imported without numba when nothing has imported numba yet: the index scores with the numpy
    backend, and bm25s's optional numba import alone costs ~0.6 s of every cold start."""
    import sys

    if "bm25s" in sys.modules or "numba" in sys.modules:
        import bm25s

        return bm25s
    sys.modules["numba"] = None  # makes bm25s's `from numba import njit` fail, as if numba were not installed
    try:
        import bm25s
    finally:
        del sys.modules["numba"]  # a later `import numba` (ranx, in evals) works as usual
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
    """Every document's token ids as bm25s reads them (its length, then a list per document, three passes), held
    page by page in int32 arrays: 4 bytes a token instead of a Python int and a list slot (~36), which at 1M papers
    (~2M chunks) is the difference between ~1 and ~10 GB while bm25s indexes."""

    def __init__(self):
        self._pages: list[tuple[np.ndarray, np.ndarray]] = []  # (token ids of the page's documents, each one's end)
        self._count = 0

    def add(self, docs: list[list[int]]) -> None:
        ends = np.cumsum([len(d) for d in docs], dtype=np.int64)
        self._pages.append((np.fromiter((t for d in docs for t in d), dtype=np.int32, count=int(ends[-1]) if len(ends) else 0), ends))
        self._count += len(docs)

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        for tokens, ends in self._pages:
            start = 0
            for end in ends.tolist():
                yield tokens[start:end].tolist()
                start = end


class LexicalIndex:
    """BM25 over chunks; `chunk_ids[i]` and `paper_ids[paper_of[i]]` name document i."""

    def __init__(self, bm25, chunk_ids: list[str], paper_ids: list[str], paper_of: np.ndarray, generation: int):
        self.bm25, self.chunk_ids, self.paper_ids, self.paper_of = bm25, chunk_ids, paper_ids, paper_of
        self.generation = generation
        self._stemmer = stemmer()
        self._admitted_docs: tuple[object, np.ndarray] | None = None  # (the admitted set, its chunks' positions): a filter asked again

    @classmethod
    def build(cls, pages, generation: int) -> "LexicalIndex | None":
        """BM25 over (chunk ids, texts) pages, each tokenized as it comes and its texts let go (at 1M papers every
        chunk's text at once was ~2.5 GB): the tokens bm25s.tokenize gives, numbered by one growing vocabulary."""
        bm25s = _bm25s()
        from bm25s.tokenization import Tokenized, Tokenizer

        tokenizer = Tokenizer(stopwords=_LANGUAGE, stemmer=stemmer())
        chunk_ids: list[str] = []
        token_ids = _Packed()
        for ids, texts in pages:
            chunk_ids += ids
            token_ids.add(tokenizer.tokenize(texts, update_vocab=True, return_as="ids", show_progress=False, allow_empty=False))
        if not chunk_ids:
            return None
        bm25 = bm25s.BM25()
        bm25.index(Tokenized(ids=token_ids, vocab=tokenizer.get_vocab_dict()), show_progress=False)
        papers = [cid.rsplit(":", 1)[0] for cid in chunk_ids]
        paper_ids = list(dict.fromkeys(papers))
        position = {pid: i for i, pid in enumerate(paper_ids)}
        return cls(bm25, list(chunk_ids), paper_ids, np.array([position[p] for p in papers], dtype=np.int64), generation)

    def save(self, folder: Path) -> None:
        """Write to a sibling folder, then swap it in, so a reader never sees half an index."""
        folder = Path(folder)
        tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
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
        ids = self.bm25.get_tokens_ids(convert_tokenized_to_string_list(tokens)[0]) if any(len(t) for t in tokens.ids) else []
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
