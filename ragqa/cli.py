"""`ragqa` subcommands: parse arguments, call the pipeline, print. Errors become one line.

In --json modes only JSON lines go to stdout; progress and logs go to stderr.
"""
from __future__ import annotations

import argparse
import errno
import gc
import os
import signal
import sqlite3
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from ragqa import cli_args
from ragqa.cli_args import (  # noqa: F401  (json_line, _filters: also imported from here)
    _add_filters,
    _check_export,
    _err,
    _filters,
    _read_batch,
    _settings,
    export_cited,
    json_line,
)
from ragqa.errors import RagqaError, StoreDamagedError


def disk_full(exc: BaseException) -> bool:
    """A write refused for want of room: the OS's ENOSPC, or SQLite's SQLITE_FULL ("database or disk is full")."""
    return getattr(exc, "errno", None) == errno.ENOSPC or "disk is full" in str(exc)


def settings_error(exc: ValidationError) -> str:
    """One line naming each environment variable the Settings could not read, what it held and what is wanted."""
    wrong = [f"RAGQA_{'_'.join(map(str, e['loc'])).upper()}={e.get('input')!r} ({e['msg'][:1].lower()}{e['msg'][1:]})"
             for e in exc.errors()]
    return f"{'; '.join(wrong)}. Fix or unset {'it' if len(wrong) == 1 else 'them'}."


# -- ingest / stats ------------------------------------------------------------------------------
@contextmanager
def _stop_between_writes():
    """While it is open, SIGTERM (docker stop, systemd, a session's end) and SIGINT stop an ingest as Ctrl-C does: the
    handler runs between Python steps, never inside Chroma's save of its vector index (a native call it waits for),
    which a kill can leave half-written (StoreDamagedError). Set here, as a shell's background job inherits SIGINT
    ignored; the caller's handlers come back after. Yields the signals received: a KeyboardInterrupt raised inside a
    library's callback can come out as the library's own error (pydantic-core wraps one raised in a serializer)."""
    received: list[int] = []

    def stop(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield received
        return
    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield received
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def cmd_ingest(args) -> int:
    pipeline = cli_args.pipeline_for(args)
    if args.status:
        return cmd_stats(args)
    received: list[int] = []
    try:
        with _stop_between_writes() as received:
            return _ingest(pipeline, args)
    except Exception:
        if not received:
            raise
        # else a stop signal's KeyboardInterrupt, wrapped by the library it was raised in
    except KeyboardInterrupt:
        pass
    _err("ingest stopped: the papers written so far are kept; "
         "run the same command to go on (written papers are skipped)")
    return 130


def _ingest(pipeline, args) -> int:
    if args.verify:
        return _verify(pipeline)
    paths = [Path(p) for p in args.paths] or [pipeline.settings.data_dir]
    started = time.perf_counter()
    report, errors = pipeline.load(paths, progress=not args.quiet)
    for error in errors:
        _err(f"skipped file: {error}")
    for skip in report.skipped:
        _err(f"skipped record {skip.source}: {skip.reason}")
    for warning in report.warnings:
        _err(f"kept record {warning.source}: {warning.reason}")
    print(f"read {report.entries} entries from {', '.join(map(str, paths))}: {len(report.papers)} papers "
          f"({report.duplicates_merged} duplicates merged, {len(report.skipped)} records skipped, "
          f"{len(errors)} files unreadable)")
    if not report.papers:
        _err("nothing to index: no readable papers in the input")
        return 1
    result = pipeline.ingest(report, progress=not args.quiet, library=args.library)
    for line in result.skipped:
        _err(f"skipped paper {line}")
    bare = (f" ({result.metadata_only} without an abstract: searchable by title, authors, venue and year)"
            if result.metadata_only else "")
    merged = (f", {result.merged_records} records without an abstract merged into their paper"
              if result.merged_records else "")
    print(f"indexed {result.papers} papers{bare} into {pipeline.index().name}: {result.new_papers} new, "
          f"{result.updated_papers} updated, {result.repaired_papers} repaired, "
          f"{result.replaced_papers} older versions replaced{merged}, "
          f"{result.chunks} chunks, {result.embedded_chunks} embedded in {time.perf_counter() - started:.1f} s")
    return 0 if not errors else 2


def _verify(pipeline) -> int:
    """Report and repair what a killed run left: papers whose chunks fall short of their catalogued
    count (re-embedded from the catalog) and chunks of a half-removed paper (removed)."""
    with pipeline.writing():  # a repair writes: no other writer may change the store under it
        return _repair(pipeline, pipeline.index(create=False))


def _repair(pipeline, index) -> int:
    try:
        missing, orphans = index.completeness()
    except StoreDamagedError:  # Chroma killed while saving its vector index: the catalog still has every paper
        print(f"{index.name}: the vector index cannot be read; "
              f"rebuilding it from the paper catalog ({index.catalog.count()} papers)")
        index.reset_vectors()
        missing, orphans = index.incomplete(), []
    unindexed = index.unindexed()
    if unindexed:
        papers = len({cid.rsplit(":", 1)[0] for cid in unindexed})
        print(f"{index.name}: {len(unindexed)} chunks of {papers} papers are missing from the vector index; "
              "embedding them again")
        index.embed_again(unindexed, pipeline.ingest_embedder)
        left = index.unindexed()
        print(f"repaired {len(unindexed) - len(left)} chunks; {len(left)} still missing from the vector index")
        if left:
            return 1
    if not missing and not orphans:
        if not unindexed:
            print(f"{index.name}: every paper is complete ({index.catalog.count()} papers, {index.count()} chunks, "
                  "each with its vector)")
        return 0
    if orphans:
        removed = index.delete_papers(orphans)
        index.refresh_lexical()
        print(f"{index.name}: removed {removed} chunks of {len(orphans)} papers without a catalog record "
              "(a removal was interrupted)")
    if not missing:
        return 0
    print(f"{index.name}: {len(missing)} incomplete papers ({sum(missing.values())} chunks missing): "
          f"{', '.join(sorted(missing)[:10])}")
    from ragqa.ingest.paper import LoadReport

    result = pipeline.ingest(LoadReport(papers=index.stored_slices(sorted(missing))), progress=False)
    left = index.incomplete()
    print(f"repaired {result.repaired_papers} papers ({result.embedded_chunks} chunks embedded); "
          f"{len(left)} still incomplete")
    return 0 if not left else 1


def cmd_library(args) -> int:
    pipeline = cli_args.pipeline_for(args)
    if args.action == "remove":
        if not args.name:
            raise RagqaError("Name the library to remove: ragqa library remove NAME (see 'ragqa library list').")
        papers, chunks = pipeline.remove_library(args.name)
        print(f"removed library {args.name!r}: {papers} papers that no other library holds ({chunks} chunks)")
        return 0
    libraries = pipeline.index(create=False).catalog.libraries()
    if args.json:
        print(json_line(libraries))
    for name, count in libraries.items():
        if not args.json:
            print(f"{name:<24} {count:>7} papers")
    return 0


def cmd_stats(args) -> int:
    stats = cli_args.pipeline_for(args).index(create=False).stats()
    if args.json:
        print(json_line(stats))
        return 0
    print(f"{stats['collection']} ({stats['store']})\n"
          f"embedding model: {stats['embed_model']}; chunking: {stats['chunking']}")
    bare = f" ({stats['metadata_only']} without an abstract)" if stats.get("metadata_only") else ""
    print(f"{stats['papers']} papers{bare}, {stats['chunks']} chunks")
    for venue, counts in stats["venues"].items():
        print(f"  {venue:<16} {counts['papers']:>6} papers {counts['chunks']:>7} chunks")
    print("libraries: " + ", ".join(f"{name} ({n})" for name, n in stats["libraries"].items()))
    if stats["flagged"]:
        print(f"{len(stats['flagged'])} papers have sentences addressed to the model or reader "
              "(never quoted or prompted): "
              + "; ".join(stats["flagged"][:5]) + (" …" if len(stats["flagged"]) > 5 else ""))
    return 0


# -- search --------------------------------------------------------------------------------------
def _print_hits(result) -> None:
    for note in result.notes:
        _err(f"({note})")
    if not result.hits:
        print("no matching papers")
    for rank, hit in enumerate(result.hits, 1):
        m = hit.meta
        where = " ".join(x for x in [m.get("venue") or "", f"· {m['topic']}" if m.get("topic") else ""] if x)
        print(f"{rank:>2}. {m.get('title') or m.get('label')}  [{where}]  score {hit.score:.4f}"
              + (f" cos {hit.relevance:.2f}" if hit.relevance is not None else ""))
        authors = (m.get("authors") or "").replace("; ", ", ")
        if authors:
            print(f"    {authors}{' et al.' if m.get('authors_truncated') else ''}")
        print(f"    {hit.text[:220]}{'…' if len(hit.text) > 220 else ''}")


def cmd_search(args) -> int:
    one = args.question is not None and not args.batch
    if one:  # one question, a short process: no collector passes over what the imports leave for the process
        gc.disable()
    try:
        return _search(args)
    finally:
        if one and _COMMAND:  # the process ends next, and wrote nothing: its last collection at exit (0.10-0.13 s)
            gc.freeze()  # would scan every object to free memory the exit frees anyway
        gc.enable()


def _search(args) -> int:
    pipeline = cli_args.pipeline_for(args)
    _check_export(args)
    if args.batch:
        ids: list[str] = []
        for row in _read_batch(args.batch):
            result = pipeline.search(row["question"], _filters(args), args.k, history=row.get("history"))
            ids += [h.paper_id for h in result.hits]
            print(json_line({"id": row["id"], "results": [h.as_json() for h in result.hits]}), flush=True)
        export_cited(pipeline, ids, args)
        return 0
    if args.question is None:
        return _search_loop(pipeline, args)
    result = pipeline.search(args.question, _filters(args), args.k)
    if args.json:
        print(json_line({"question": result.question, "query": result.query, "filters": result.filters.active(),
                         "results": [h.as_json() for h in result.hits]}))
    else:
        _print_hits(result)
    export_cited(pipeline, [h.paper_id for h in result.hits], args)
    return 0


def _search_loop(pipeline, args) -> int:
    print("ragqa search: type a question (empty line or Ctrl-D to quit)")
    while True:
        try:
            question = input("? ").strip()
        except EOFError:
            return 0
        if not question:
            return 0
        try:
            _print_hits(pipeline.search(question, _filters(args), args.k))
        except RagqaError as exc:
            _err(f"error: {exc}")


# -- wiring --------------------------------------------------------------------------------------
CORE = ("ingest", "library", "stats", "search", "ask", "chat", "models")  # the commands ragqa defines itself


def add_plugin_commands(sub) -> None:
    """Commands other packages register through the `ragqa.commands` entry-point group (pyproject.toml): the UI's
    `serve` and the eval harness's `eval`, so ragqa never imports either. A hook that fails to load is left out."""
    from importlib.metadata import entry_points

    for point in entry_points(group="ragqa.commands"):
        try:
            register = point.load()
        except ImportError:
            continue
        register(sub)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; the plugin commands are looked up only when the command is not one of ragqa's own (listing the
    entry points costs ~30 ms of a cold search)."""
    parser = argparse.ArgumentParser(prog="ragqa", description="Cited answers from ML papers, offline.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="index listings (default: the bundled data/)")
    p.add_argument("paths", nargs="*",
                   help=".txt listings, .jsonl/.json (ours, arXiv snapshot, OpenReview), .csv, .bib, .ris files, "
                   "or folders")
    p.add_argument("--status", action="store_true", help="show what is indexed instead")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--verify", action="store_true", help="find papers a killed run left incomplete and repair them")
    p.add_argument("--library", help='add the papers to this library (default "default"); search it with --library')
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("library", help="list libraries, or remove one (and the papers only it holds)")
    p.add_argument("action", choices=["list", "remove"])
    p.add_argument("name", nargs="?")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_library)

    p = sub.add_parser("stats", help="papers and chunks per venue, models used")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("search", help="ranked papers for a question (no LLM unless translating)")
    p.add_argument("question", nargs="?", help="omit for an interactive loop")
    _add_filters(p)
    p.set_defaults(func=cmd_search)

    from ragqa import cli_answer

    cli_answer.add_commands(sub, _add_filters)
    words = sys.argv[1:] if argv is None else argv
    if not words or words[0] not in CORE:
        add_plugin_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RagqaError as exc:
        _err(f"error: {exc}")
        return 1
    except ValidationError as exc:  # a RAGQA_* variable the Settings cannot read
        if exc.title != "Settings":
            raise
        _err(f"error: {settings_error(exc)}")
        return 1
    except (OSError, sqlite3.DatabaseError) as exc:  # a full disk under the catalog, a spill or an index file, or a
        # catalog page damaged where opening it did not read (Catalog checks the pages its migrations read)
        from ragqa.store.catalog_db import corrupt, corrupt_message

        if not (corrupt(exc) or disk_full(exc)):
            raise
        from ragqa.config import Settings
        from ragqa.models.weights import embed_name
        from ragqa.store.chroma import collection_name, free_space

        settings = Settings()
        if corrupt(exc):
            _err("error: "
                 f"{corrupt_message(settings.catalog_path(collection_name(settings, embed_name(settings))), exc)}")
            return 1
        where = getattr(exc, "filename", None) or settings.vectorstore_dir
        _err(f"error: No space left on the disk holding {where} ({free_space(Path(where))} free). Papers written "
             "before it are kept: free space and run the same command again.")
        return 1
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        return 0


_COMMAND = False  # main() runs as the ragqa command (run), not called in-process


def run() -> None:
    """The ragqa command (the console script): main, then exit with its code."""
    global _COMMAND
    _COMMAND = True
    # the cyclic collector's default first threshold (a pass per 700 new container objects) made 421 passes over what
    # llama-index's and chromadb's imports leave for the life of the process, 0.25 s of a cold search; at 10,000 it made
    # 29 (0.10 s), at 50,000 5 (0.06 s), at 100,000 2 (0.06-0.08 s): 50,000, where it stops paying off. Garbage cycles
    # wait for at most that many new objects, a few MB. Set for the command's own process only, not a caller's
    gc.set_threshold(50_000, *gc.get_threshold()[1:])
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`ragqa search --json | head`): what it read is all it wanted
        # Python's advice: point stdout at devnull, so the flush at exit does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


if __name__ == "__main__":
    run()
