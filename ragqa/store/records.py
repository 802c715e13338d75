"""Paper records as flat dicts, the form search hits, filters and answers read (`paper_metadata`), and how a reader
holds them: read from the catalog when asked for (PaperRecords), a few thousand kept. Writing records is catalog.py's
and ingesting.py's; chunks are chunks.py's.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping

from ragqa.ingest.paper import Paper, authors_of
from ragqa.store.catalog import Catalog


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


class PaperReading:
    """PaperIndex's reading of records from its catalog (index.py combines it with the other parts)."""

    catalog: Catalog

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


class PaperRecords(Mapping):
    """paper_id -> the paper's record (as PaperIndex.papers() makes it), read from the catalog when a search hit,
    a filter or an answer asks for it, the last `keep` kept: a reader holds no record per indexed paper (at 100k
    papers the records were ~0.5 GB of a reader's memory). One is made per catalog state (Searcher.refresh); a full
    pass (items(), values()) reads the catalog page by page."""

    _PAGE = 900

    def __init__(self, index: PaperReading, keep: int = 5000):
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
        return {pid: {k: v for k, v in m.items() if k not in ("abstract", "text")}
                for pid, m in self.pages(paper_ids)}

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
