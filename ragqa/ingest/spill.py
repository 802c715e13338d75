"""The papers of a load held on disk, not in memory, between reading and indexing: each record is read and
cleaned once, pickled to a temporary file, and handed out again one at a time, merged with its duplicates and
de-hyphenated against the whole load's word counts (what merge.merge_all does for a list).

Memory holds an offset per paper, the word counts and the per-file source ids, never the papers: a
1M-abstract file is read in a few hundred MB. Reading and parsing are corpus.py's; this only keeps."""
from __future__ import annotations

import pickle
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Callable

from ragqa.text.clean import count_words, dehyphenate


class SpilledPapers(Sequence):
    """Unique papers (paper.Paper) in first-seen order, read back from a temporary file (deleted when this is); the
    records of one paper are combined with `merge` (merge.merge_papers)."""

    def __init__(self, merge: Callable, folder=None):
        self._merge = merge
        # in `folder` (the store's, from Pipeline.load) rather than /tmp, which is often a RAM-backed tmpfs
        self._file = tempfile.TemporaryFile(prefix="ragqa-load-", dir=folder)
        self._where: dict[str, int | list[int]] = {}  # paper id -> offset of its record, or of each record of it
        self._vocabulary: Counter = Counter()
        self._staged: dict[str, list[int]] = {}
        self._staged_words: Counter = Counter()
        self._start = 0
        self._order: list[str] | None = None

    # -- writing, one file at a time: a file that fails half-way leaves nothing behind ----------------
    def begin(self) -> None:
        self._file.seek(0, 2)
        self._start = self._file.tell()
        self._staged, self._staged_words = {}, Counter()

    def add(self, paper) -> None:
        offset = self._file.tell()
        pickle.dump(paper, self._file, protocol=pickle.HIGHEST_PROTOCOL)
        if paper.paper_id not in self._where and paper.paper_id not in self._staged:
            count_words(self._staged_words, paper.text)  # counted once per paper, from its first record (merge_all)
        self._staged.setdefault(paper.paper_id, []).append(offset)

    def commit(self) -> None:
        for pid, offsets in self._staged.items():
            seen = self._where.get(pid)
            if seen is None:
                self._where[pid] = offsets[0] if len(offsets) == 1 else offsets
            else:
                self._where[pid] = ([seen] if isinstance(seen, int) else seen) + offsets
        self._vocabulary.update(self._staged_words)
        self.begin()
        self._order = None

    def rollback(self) -> None:
        self._file.truncate(self._start)
        self.begin()

    # -- reading ----------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._where)

    def __iter__(self):
        for where in self._where.values():
            yield self._paper(where)

    def __getitem__(self, i):
        if self._order is None:
            self._order = list(self._where)
        if isinstance(i, slice):
            return [self._paper(self._where[pid]) for pid in self._order[i]]
        return self._paper(self._where[self._order[i]])

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, (list, SpilledPapers)) else NotImplemented

    def _paper(self, where: int | list[int]):
        records = [self._read(offset) for offset in ([where] if isinstance(where, int) else where)]
        paper = records[0]
        for other in records[1:]:
            paper = self._merge(paper, other)
        return replace(paper, text=dehyphenate(paper.text, self._vocabulary))

    def _read(self, offset: int):
        self._file.seek(offset)
        return pickle.load(self._file)


class SpilledPages:
    """Pages of (chunk ids, texts) written to a temporary file as they come and handed out again in order, once: a
    writer reads from Chroma what its lexical build needs, then lets go of Chroma's vector index before the build
    (PaperIndex.refresh_lexical), without holding every text (~2.5 GB at 1M papers) in memory."""

    def __init__(self, pages, folder=None):
        self._file = tempfile.TemporaryFile(prefix="ragqa-pages-", dir=folder)
        self._count = 0
        for page in pages:
            pickle.dump(page, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._count += 1

    def __iter__(self):
        self._file.seek(0)
        for _ in range(self._count):
            yield pickle.load(self._file)
        self._file.close()
