"""Check (not a stage): what a writer's lexical save costs at a collection size no session can ingest whole (a 1M
store takes ~4 h on two cores, nearly all of it Chroma's HNSW inserts), measured on the lexical index alone, with
the same chunks a 1M ingest makes and the same `LexicalIndex` calls `PaperIndex.refresh_lexical` makes.

    # first save: every chunk tokenized
    python -m evals.experiments.lexical_scale build --papers 1000000 --work /tmp/lex1m
    # a write adding papers
    python -m evals.experiments.lexical_scale add --papers 1000000 --new 20 --work /tmp/lex1m

`build` writes `evals.bench_scale`'s corpus (when missing), splits it as ingest does (`split_papers`, embedded text)
and builds and saves the index with its tokens (`build(stage=...)`, `save`). `add` opens the saved tokens, takes every
saved chunk's tokens from them and tokenizes only the chunks of `--new` papers not in the corpus, then builds and
saves: the save after an ingest that adds papers. Each prints the step's wall time and the process's peak RSS (run
each in its own process; `/usr/bin/time -v` agrees). Chroma is not opened: a real writer adds what Chroma holds in the
same process (3.30 GB at 1M once the collection's vector segment is loaded, measured 2026-12-04; README's 1M section).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

_SLICE = 20_000  # papers split at a time, as ingest's slices


def _chunk_pages(corpus: Path, settings):
    """(chunk ids, embedded texts) per slice of papers, read from the corpus as ingest reads it."""
    from llama_index.core.schema import MetadataMode

    from ragqa.ingest.corpus import read_papers
    from ragqa.ingest.paper import LoadReport
    from ragqa.store.chunks import split_papers

    papers = []
    for paper in read_papers(corpus, None, LoadReport()):
        papers.append(paper)
        if len(papers) == _SLICE:
            yield _texts(split_papers(papers, settings), MetadataMode)
            papers = []
    if papers:
        yield _texts(split_papers(papers, settings), MetadataMode)


def _texts(nodes, mode):
    return [node.id_ for node in nodes], [node.get_content(metadata_mode=mode.EMBED) for node in nodes]


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def build(papers: int, work: Path) -> dict:
    from evals.bench_scale import write_corpus
    from ragqa.config import Settings
    from ragqa.store.lexical import LexicalIndex

    work.mkdir(parents=True, exist_ok=True)
    corpus = work / f"corpus-{papers}.jsonl"
    if not corpus.is_file():
        write_corpus(corpus, papers)
    folder = work / "bm25"
    start = time.perf_counter()
    index = LexicalIndex.build(_chunk_pages(corpus, Settings()), 1, stage=LexicalIndex.staging(folder))
    index.save(folder)
    return {"step": "build", "chunks": len(index.chunk_ids), "scores": int(len(index.bm25.scores["data"])),
            "wall_s": round(time.perf_counter() - start, 1), "peak_rss_mb": _peak_mb()}


def add(papers: int, new: int, work: Path) -> dict:
    from evals.bench_scale import write_corpus
    from ragqa.config import Settings
    from ragqa.store.lexical import LexicalIndex, SavedTokens

    folder = work / "bm25"
    added = work / f"added-{papers}-{new}.jsonl"
    if not added.is_file():  # the same generator, longer: its first `papers` rows are the corpus's, the rest are new
        longer = work / "longer.jsonl"
        write_corpus(longer, papers + new)
        with longer.open(encoding="utf-8") as rows:
            added.write_text("".join(row for n, row in enumerate(rows) if n >= papers), "utf-8")
        longer.unlink()
    fresh = list(_chunk_pages(added, Settings()))
    start = time.perf_counter()  # from here as refresh_lexical after a write: the new chunks' texts are in hand
    ids = json.loads((folder / "ids.json").read_text("utf-8")) if (folder / "ids.json").is_file() else {}
    kept = SavedTokens.open(folder, ids.get("generation"))
    if kept is None:
        raise SystemExit(f"no saved tokens in {folder}: run `build` first")
    # refresh_lexical's `wanted`, which it makes from the catalog
    saved, generation = ids["chunk_ids"], ids["generation"]
    del ids

    def pages():
        for at in range(0, len(saved), 2000):  # index._FETCH_BATCH: refresh_lexical's pages, none read from Chroma
            yield saved[at:at + 2000], [None] * len(saved[at:at + 2000])
        yield from fresh

    index = LexicalIndex.build(pages(), generation + 1, kept, stage=LexicalIndex.staging(folder))
    index.save(folder)
    return {"step": "add", "new_papers": new, "chunks": len(index.chunk_ids),
            "scores": int(len(index.bm25.scores["data"])), "wall_s": round(time.perf_counter() - start, 1),
            "peak_rss_mb": _peak_mb()}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m evals.experiments.lexical_scale")
    parser.add_argument("step", choices=["build", "add"])
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=20)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args(argv)
    return build(args.papers, args.work) if args.step == "build" else add(args.papers, args.new, args.work)


if __name__ == "__main__":
    print(json.dumps(main()))
