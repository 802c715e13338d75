"""Two writers into one store at once (#46 5a): each run starts two `ragqa ingest` processes (or an ingest beside a
`ragqa library remove`) on an empty store at the same moment, reruns a refused one, and compares the store by content
with one the same commands wrote one after the other, in either order (a paper both inputs hold keeps the text of the
file that stored it first): catalog rows and libraries, Chroma's chunk ids and texts, and the vector of every chunk (a
chunk Chroma holds without its vector is what the race used to leave).

    python -m evals.experiments.concurrent_writers --runs 20 --papers 1000 --work /tmp/race \
        --out evals/reports/concurrent-writers-20261206.json

Hashing embedder (deterministic vectors), RAGQA_WRITE_BATCH_SIZE=64 as in the probe that found the race.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "corpora" / "iclr2024.jsonl"
CODE = [ROOT]  # the checkout whose ragqa the commands run (--code: an older one, to see the race it had)


def environment(store: Path) -> dict:
    return {**os.environ, "RAGQA_VECTORSTORE_DIR": str(store), "RAGQA_EMBED_MODEL": "hash",
            "RAGQA_WRITE_BATCH_SIZE": "64", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(CODE[0])}


def ragqa(store: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ragqa.cli", *args], env=environment(store), cwd=CODE[0],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen, seconds: float = 600) -> tuple[int, str]:
    out, err = proc.communicate(timeout=seconds)
    return proc.returncode, err.strip()


def write_inputs(folder: Path, papers: int) -> tuple[Path, Path]:
    """Two slices of the ICLR 2024 corpus that share a quarter of their papers."""
    rows = CORPUS.read_text(encoding="utf-8").splitlines()[:2 * papers]
    folder.mkdir(parents=True, exist_ok=True)
    a, b = folder / "a.jsonl", folder / "b.jsonl"
    a.write_text("\n".join(rows[:papers]), encoding="utf-8")
    b.write_text("\n".join(rows[papers * 3 // 4:papers * 7 // 4]), encoding="utf-8")
    return a, b


def content(store: Path) -> dict:
    """The store by content: catalog rows (paper -> chunks, libraries), chunk ids -> text, and each chunk's vector
    (None where the vector index lacks it); the collection read through ragqa, so its errors are ragqa's."""
    from ragqa.config import Settings
    from ragqa.errors import VectorsMissingError
    from ragqa.pipeline import Pipeline

    index = Pipeline(Settings(vectorstore_dir=store, embed_model="hash")).index(create=False)
    rows = {pid: n for pid, n in index.catalog.chunk_counts().items()}
    libraries = {pid: sorted(names) for pid, names in index.catalog.library_of().items()}
    chunks, vectors = {}, {}
    ids = [cid for cid, _ in index.all_metadata()]
    for start in range(0, len(ids), 500):
        page = ids[start:start + 500]
        got = index.collection.get(ids=page, include=["documents"])
        chunks.update(zip(got["ids"], got["documents"]))
        for cid in page:
            try:
                vec = index.collection.get(ids=[cid], include=["embeddings"])["embeddings"][0]
                vectors[cid] = [round(float(x), 5) for x in vec]
            except VectorsMissingError:
                vectors[cid] = None
    index.client.close()
    return {"rows": rows, "libraries": libraries, "chunks": chunks, "vectors": vectors}


def differences(got: dict, want: dict) -> list[str]:
    out = []
    for key in ("rows", "libraries", "chunks", "vectors"):
        if got[key] != want[key]:
            a, b = got[key], want[key]
            wrong = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
            out.append(f"{key}: {len(wrong)} differ (e.g. {sorted(wrong)[:2]})")
    return out


def sequential(work: Path, a: Path, b: Path, scenario: str, reverse: bool) -> dict:
    store = work / f"reference-{scenario}"
    shutil.rmtree(store, ignore_errors=True)
    for args in commands(a, b, scenario, setup=True) + commands(a, b, scenario)[::-1 if reverse else 1]:
        code, err = finish(ragqa(store, *args))
        if code != 0:
            raise SystemExit(f"reference run failed: {args}: {err}")
    return content(store)


def commands(a: Path, b: Path, scenario: str, setup: bool = False) -> list[list[str]]:
    """The commands of a scenario: 'ingests' two libraries at once; 'remove' ingests one library while removing
    another (set up first) that shares half of its papers."""
    if scenario == "ingests":
        return [] if setup else [["ingest", "--quiet", "--library", "a", str(a)],
                                 ["ingest", "--quiet", "--library", "b", str(b)]]
    if setup:
        return [["ingest", "--quiet", "--library", "b", str(b)]]
    return [["ingest", "--quiet", "--library", "a", str(a)], ["library", "remove", "b"]]


def one_run(work: Path, a: Path, b: Path, scenario: str, references: list[dict]) -> dict:
    store = work / "store"
    shutil.rmtree(store, ignore_errors=True)
    for args in commands(a, b, scenario, setup=True):
        finish(ragqa(store, *args))
    started = time.perf_counter()
    todo = commands(a, b, scenario)
    procs = [ragqa(store, *args) for args in todo]
    results = [finish(p) for p in procs]
    refused = [i for i, (code, err) in enumerate(results) if code != 0]
    errors = [err for code, err in results if code != 0]
    one_line = all(err.count("\n") == 0 and "Another writer holds the store" in err for err in errors)
    for i in refused:  # what a user does on the refusal: run it again
        code, err = finish(ragqa(store, *todo[i]))
        if code != 0:
            errors.append(f"rerun failed: {err}")
            one_line = False
    verify = finish(ragqa(store, "ingest", "--verify"))
    got = content(store)
    diff = min((differences(got, reference) for reference in references), key=len)
    return {"scenario": scenario, "refused": len(refused), "one_line_refusals": one_line, "errors": errors,
            "verify_exit": verify[0], "differences": diff, "seconds": round(time.perf_counter() - started, 1),
            "equal": not diff and one_line and verify[0] == 0}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose ragqa runs the commands")
    parser.add_argument("--scenarios", nargs="+", default=["ingests", "remove"])
    args = parser.parse_args(argv)
    CODE[0] = args.code.resolve()
    a, b = write_inputs(args.work, args.papers)
    report = {"runs": [], "papers": args.papers, "code": str(CODE[0])}
    for scenario in args.scenarios:
        references = [sequential(args.work, a, b, scenario, reverse) for reverse in (False, True)]
        for n in range(args.runs):
            result = one_run(args.work, a, b, scenario, references)
            report["runs"].append(result)
            print(json.dumps(result), flush=True)
    report["equal"] = sum(r["equal"] for r in report["runs"])
    print(f"{report['equal']} of {len(report['runs'])} runs ended with the store a sequential run writes")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0 if report["equal"] == len(report["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
