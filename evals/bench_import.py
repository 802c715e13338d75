"""Benchmark: library import throughput (load_paths) on a 2,000-entry .bib and a 2,000-line arXiv slice
built from the ICLR/ICML 2024 corpora, and BibTeX export throughput.

    .venv/bin/python -m evals.bench_import [--n 2000] [--keep DIR]

Parsing only: no embedding, no index. Figures are wall-clock on this machine.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "data" / "corpora"


def _arxiv_line(i: int, row: dict) -> str:
    """The corpus row in the Kaggle snapshot's shape (synthetic id and date, hard-wrapped text)."""
    return json.dumps({
        "id": f"2401.{i:05d}", "authors": ", ".join(row["authors"]),
        "title": "\n  ".join(textwrap.wrap(row["title"], 60)),
        "abstract": "  " + "\n".join(textwrap.wrap(row["abstract"], 78)) + "\n", "categories": "cs.LG stat.ML",
        "versions": [{"version": "v1", "created": "Mon, 1 Jan 2024 10:00:00 GMT"}], "update_date": "2024-06-04",
        "authors_parsed": [[a.split()[-1], " ".join(a.split()[:-1]), ""] for a in row["authors"]],
    })


def _timed(label: str, work, n: int) -> float:
    start = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - start
    print(f"| {label} | {n} | {seconds:.2f} | {n / seconds:,.0f} |")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="entries per file (default 2000)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="write the files to this folder (to ingest them) instead of a temp one")
    args = parser.parse_args(argv)
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}", file=sys.stderr)
        return 1
    from ragqa.ingest.corpus import load_file, load_paths
    from ragqa.ingest.export import export_papers

    rows = [json.loads(line) for name in ("iclr2024.jsonl", "icml2024.jsonl")
            for line in (CORPORA / name).open(encoding="utf-8")]
    rows = rows[: args.n]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        source = folder / "corpus.jsonl"
        source.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
        papers = load_file(source).papers
        print("| step | entries | seconds | entries/s |\n|---|---|---|---|")
        bib = _timed("export BibTeX", lambda: export_papers(papers, "bibtex"), len(papers))
        (folder / "library.bib").write_text(bib, encoding="utf-8")
        (folder / "arxiv.jsonl").write_text("\n".join(_arxiv_line(i, r) for i, r in enumerate(rows)), encoding="utf-8")
        for name in ("corpus.jsonl", "library.bib", "arxiv.jsonl"):
            report, errors = _timed(f"load_paths {name}", lambda: load_paths([folder / name]), len(rows))
            if errors or report.skipped or len(report.papers) != len(papers):
                print(f"  {name}: {len(report.papers)} papers, {len(report.skipped)} skipped, errors {errors}",
                      file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
