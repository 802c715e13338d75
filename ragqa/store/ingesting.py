"""PaperIndex.ingest: a load of papers reconciled, slice by slice, with the papers stored - new, changed, left
incomplete by a killed run, merged into their full version, superseded by a corrected one - and its IngestReport.
Chunking is chunks.py's; embedding and writing chunks, chunk_writes.py's.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from ragqa.config import Settings
from ragqa.ingest.merge import merge_papers
from ragqa.ingest.paper import Paper, surname_key, title_key
from ragqa.store.catalog import Catalog
from ragqa.store.catalog_libraries import DEFAULT_LIBRARY
from ragqa.store.chunks import chunk_metadata
from ragqa.store.records import paper_metadata

if TYPE_CHECKING:  # llama-index is imported lazily: an unchanged re-ingest never needs it
    from llama_index.core.base.embeddings.base import BaseEmbedding


@dataclass
class IngestReport:
    papers: int = 0
    new_papers: int = 0
    updated_papers: int = 0
    chunks: int = 0
    embedded_chunks: int = 0
    repaired_papers: int = 0  # stored incomplete (a killed run), missing chunks embedded now
    replaced_papers: int = 0  # an older version (same record id and title, other text) removed
    # of `papers`: records without an abstract, indexed by their title (Paper.metadata_only)
    metadata_only: int = 0
    # records without an abstract whose paper is indexed with its abstract, merged into it
    merged_records: int = 0
    skipped: list[str] = field(default_factory=list)  # one line per paper not indexed, with the reason
    seconds: float = 0.0


class Ingesting:
    """PaperIndex's ingest (index.py combines it with ChunkWrites, whose writes and removals it calls)."""

    settings: Settings
    catalog: Catalog

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
                unique[paper.paper_id] = (merge_papers(unique[paper.paper_id], paper) if paper.paper_id in unique
                                          else paper)
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

    def _ingest_slice(self, papers: list[Paper], embedder, progress: bool, report: IngestReport,
                      library: str) -> None:
        """One slice of ingest() into `report` (its chunk writes and removals are recorded:
        Catalog.chunks_changing)."""
        limit = self.settings.max_abstract_chars
        kept = []
        for paper in papers:
            if len(paper.abstract) > limit:
                report.skipped.append(
                    f"{', '.join(paper.sources) or paper.paper_id}: {paper.source_id or paper.label!r} has a "
                    f"{len(paper.abstract):,}-character abstract (limit {limit:,}, RAGQA_MAX_ABSTRACT_CHARS); "
                    "not indexed")
            else:
                kept.append(paper)
        papers = _merge_records(self.catalog, kept, report, library)
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
        superseded = _superseded(self.catalog, papers)
        work = [p for p in merged if p.paper_id not in stored or p.paper_id in changed | incomplete]
        report.updated_papers += len(changed | recorded)
        report.repaired_papers += len(incomplete)
        rows_only = recorded - incomplete  # (an incomplete paper's row goes with its chunks)
        self.catalog.upsert([p for p in merged if p.paper_id in rows_only],
                            {pid: stored[pid][1] for pid in rows_only}, library)
        if work:
            self._write(work, set(stored), changed, embedder, progress, report, library)
        self.catalog.join_library([p.paper_id for p in papers], library)  # unchanged papers too
        if superseded:  # replaced in this library; a version another library holds stays there
            held = self.catalog.library_of(superseded)
            only_here = [pid for pid in superseded if set(held.get(pid, ())) <= {library}]
            self.catalog.leave(sorted(set(superseded) - set(only_here)), library)
            self.delete_papers(only_here)
            report.replaced_papers += len(superseded)
        completed = [pid for pid in _completed(self.catalog, papers) if pid not in superseded]
        if completed:
            self.delete_papers(completed)
            report.replaced_papers += len(completed)


def _merge_records(catalog: Catalog, papers: list[Paper], report: IngestReport, library: str) -> list[Paper]:
    """These papers less the records without an abstract whose paper is here or stored with one (the same folded
    title and first author): its metadata goes into that paper, which joins `library`."""
    bare = [p for p in papers if p.metadata_only]
    if not bare:
        return papers
    keys = {_same_paper(p): (p, None) for p in papers if not p.metadata_only}
    stored = {_same_paper(p): (p, n) for p, n in catalog.titled([p.title or "" for p in bare]).values()
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
            catalog.upsert([merged], {match.paper_id: n_chunks}, library)
    return [full[p.paper_id] for p in papers if p.paper_id not in dropped]


def _superseded(catalog: Catalog, papers: list[Paper]) -> list[str]:
    """Stored papers that an incoming record replaces: the same record id and the same title
    (or the same source file), with other text (a corrected abstract)."""
    incoming = {p.source_id: p for p in papers if p.source_id}
    if not incoming:
        return []
    ids = {p.paper_id for p in papers}
    out = []
    for pid, (old, _) in catalog.with_source_ids(list(incoming)).items():
        new = incoming[old.source_id]
        same_title = (old.title or "").strip().lower() == (new.title or "").strip().lower()
        if pid not in ids and (same_title or set(new.sources) & set(old.sources)):
            out.append(pid)
    return out


def _completed(catalog: Catalog, papers: list[Paper]) -> list[str]:
    """Stored records without an abstract that an incoming paper with one completes (the same folded title and
    first author): removed from every library, the full paper joining each of them."""
    full = {_same_paper(p): p for p in papers if not p.metadata_only and p.title}
    if not full:
        return []
    out = []
    for pid, (old, _) in catalog.titled([p.title for p in full.values()]).items():
        new = full.get(_same_paper(old))
        if old.metadata_only and new is not None:
            for name in catalog.library_of([pid]).get(pid, []):
                catalog.join_library([new.paper_id], name)
            out.append(pid)
    return out


def _same_paper(paper: Paper) -> tuple[str, str]:
    """What a record without an abstract shares with its full version: the folded title and first author's
    surname."""
    return title_key(paper.title), surname_key(paper.authors)
