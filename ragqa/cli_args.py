"""What every ragqa command shares: Settings and the Pipeline built from its arguments, the filter options and the
Filters they make, a batch file of questions, one JSON line of output, and writing the cited papers to a file.
No command lives here (cli.py, cli_answer.py)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ragqa.errors import RagqaError


def json_line(obj) -> str:
    """One JSON line; U+2028/U+2029 from source text are escaped, so line-splitting readers see one line."""
    return (json.dumps(obj, ensure_ascii=False)
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085"))


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def _settings(args):
    from ragqa.config import Settings

    overrides = {}
    if getattr(args, "fast", False):
        overrides["llm_model"] = Settings().fast_llm_model
    if getattr(args, "mode", None):
        overrides["retrieval_mode"] = args.mode
    return Settings(**overrides)


def pipeline_for(args):
    """The Pipeline a command's arguments ask for (tests replace it with one on prepared settings)."""
    from ragqa.pipeline import Pipeline

    return Pipeline(_settings(args))


def _filters(args):
    from ragqa.query.request import Filters

    return Filters(venue=args.venue, year=args.year, author=args.author, topic=args.topic, status=args.status,
                   library=args.library)


def _read_batch(path: str) -> list[dict]:
    """{"id"?, "question": text, "history"?: [text, ...]} per line; anything else is a one-line QueryError."""
    from ragqa.errors import QueryError

    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(path).read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            raise QueryError(f"{path}: no such batch file. "
                             f"Give a JSONL file of {{\"id\", \"question\"}} lines, or - for stdin.") from None
        except IsADirectoryError:
            raise QueryError(f"{path} is a folder. Give a JSONL file of {{\"id\", \"question\"}} lines.") from None
        except UnicodeDecodeError as exc:
            raise QueryError(f"{path}: not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}). "
                             "Re-save it as UTF-8.") from None
    rows = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise QueryError(f"{path} line {number}: invalid JSON ({getattr(exc, 'msg', None) or type(exc).__name__}). "
                             f"One object per line: {{\"id\", \"question\"}}.") from None
        if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not row["question"].strip():
            raise QueryError(f"{path} line {number}: 'question' must be non-empty text. "
                             f"Each line needs {{\"id\", \"question\", \"history\"?}}.")
        history = row.get("history")
        if history is not None and (not isinstance(history, list) or not all(isinstance(h, str) for h in history)):
            raise QueryError(f"{path} line {number}: 'history' must be a list of earlier questions (text).")
        row.setdefault("id", str(number))
        rows.append(row)
    return rows


def export_cited(pipeline, paper_ids: list[str], args) -> None:
    """--export / --bibtex: the papers, in order, as a citation file; the path is checked before any work."""
    from ragqa.ingest.export import export_papers, format_for_path

    path = args.bibtex or args.export
    if path is None:
        return
    fmt = "bibtex" if args.bibtex else format_for_path(path)
    ids = list(dict.fromkeys(paper_ids))
    found = {p.paper_id: p for p in pipeline.index().stored_papers(ids)}
    try:
        path.write_text(export_papers([found[i] for i in ids if i in found], fmt), encoding="utf-8")
    except OSError as exc:
        raise RagqaError(f"Cannot write {path} ({exc.strerror}). Choose another path.") from None
    _err(f"(wrote {len(found)} papers to {path} as {fmt})")


def _check_export(args) -> None:
    from ragqa.ingest.export import format_for_path

    path = args.bibtex or args.export
    if path is not None:
        if not args.bibtex:
            format_for_path(path)
        if not path.parent.is_dir():
            raise RagqaError(f"No folder {path.parent} for {path.name}. Create it or choose another path.")


def _k(value: str) -> int:
    """--k is validated at the edge: a whole number from 1 to 200."""
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number; use 1-200") from None
    if not 1 <= k <= 200:
        raise argparse.ArgumentTypeError(f"{k} is out of range; use 1-200")
    return k


def _add_filters(p) -> None:
    p.add_argument("--k", type=_k, default=None, help="number of papers, 1-200 (search default 10; ask: 20 judged)")
    p.add_argument("--venue", help='e.g. "ICLR 2024"; "ICLR 2024 or ICLR 2025": either; "ICLR": every year')
    p.add_argument("--year", type=int)
    p.add_argument("--author", help="full name or surname (else a part of a name), case-insensitive")
    p.add_argument("--topic", help="a topic label (or a \"·\" part of one) named whole, else any label holding it; "
                                    "case-insensitive")
    p.add_argument("--mode", choices=["hybrid", "dense", "bm25"], help="retrieval mode (default hybrid)")
    p.add_argument("--status", help="oral / spotlight / poster, where the corpus records it; "
                                        "\"oral or spotlight\": either")
    p.add_argument("--library", help="search one library (ragqa ingest --library NAME); default: all")
    p.add_argument("--json", action="store_true", help="JSON lines on stdout")
    p.add_argument("--batch", metavar="FILE", help='JSONL of {"id", "question", "history"?}; "-" = stdin')
    p.add_argument("--export", metavar="FILE", type=Path,
                   help="write the cited papers (search: the results) to FILE: "
                   ".bib BibTeX, .json CSL-JSON, .md Markdown")
    p.add_argument("--bibtex", metavar="FILE", type=Path, help="the same as --export, always BibTeX")
