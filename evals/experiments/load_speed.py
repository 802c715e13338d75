"""Check (not a stage): how long reading and cleaning real records takes, and a digest of what comes out, so two
versions of the code can be compared for speed and for identical output. Cleans every abstract of ICLR 2024, ICML 2024
and BEIR SciFact (`clean.clean_text`), then reads ICLR + ICML 2024 with `corpus.load_paths` (parsing, cleaning, merging,
the spill file).

    PYTHONPATH=<a checkout> python evals/experiments/load_speed.py   # that checkout's ragqa (run as a file: an
                                                                     # older checkout has no such module)

Result on 2026-12-05 (2-core Intel Xeon, Emerald Rapids; a worktree of deb8b89 against 53491c2, interleaved, two runs
each, alongside a test run): clean_text over 10,053 abstracts 1.35-1.37 s → 0.60-0.63 s; load_paths of 4,870 papers
3.0 s → 1.9-2.1 s; both digests identical (5397908b2c2a, 9b9eb6100cdd).
"""
from __future__ import annotations

import hashlib
import json
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
CORPORA = [DATA / "corpora" / "iclr2024.jsonl", DATA / "corpora" / "icml2024.jsonl"]


def main() -> None:
    from ragqa.ingest.corpus import load_paths
    from ragqa.text import clean

    abstracts = [json.loads(line).get("abstract", "") for path in CORPORA + [DATA / "scifact" / "corpus.jsonl"]
                 for line in path.open(encoding="utf-8")]
    clean._latex_converter()  # the converter's own import and set-up are not what is timed
    start = time.perf_counter()
    cleaned = [clean.clean_text(a) for a in abstracts]
    clean_s = time.perf_counter() - start
    start = time.perf_counter()
    papers = list(load_paths(CORPORA, spill_dir=Path(tempfile.mkdtemp()))[0].papers)
    load_s = time.perf_counter() - start
    digest = lambda value: hashlib.sha1(repr(value).encode()).hexdigest()[:12]  # noqa: E731
    print(json.dumps({"abstracts": len(abstracts), "clean_s": round(clean_s, 2), "clean_digest": digest(cleaned),
                      "papers": len(papers), "load_s": round(load_s, 2),
                      "load_digest": digest([(p.paper_id, p.text, p.label, p.abstract, p.title) for p in papers])}))


if __name__ == "__main__":
    main()
