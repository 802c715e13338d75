"""Evaluation datasets: our JSONL format and BEIR folders -> typed records, with line-exact errors."""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from ragqa.errors import QueryError

TYPES = {"single", "multi", "filtered", "chinese", "followup", "unanswerable", "generated"}
KINDS = {"", "off-topic", "named", "near-miss"}  # why an unanswerable question is unanswerable


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    question: str
    gold: tuple[str, ...]
    type: str = "single"
    lang: str = "en"
    history: tuple[str, ...] = ()
    filters: dict = field(default_factory=dict)
    # unanswerable: off-topic (not ML), named (a paper by name that is not indexed), near-miss (ML topic not covered)
    kind: str = ""


def load_dataset(path: Path) -> list[EvalQuestion]:
    """{"id", "question", "gold": [paper ids], "type", "lang", "history"?, "filters"?, "kind"?} per line."""
    path = Path(path)
    if not path.is_file():
        raise QueryError(f"No dataset at {path}. Give a JSONL file, e.g. evals/datasets/seed_questions.jsonl.")
    out, seen = [], set()
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QueryError(f"{where}: invalid JSON ({exc.msg}). Fix or delete the line.") from None
        if not isinstance(row, dict):
            raise QueryError(f"{where}: expected a JSON object.")
        missing = [k for k in ("id", "question", "gold") if k not in row]
        if missing:
            raise QueryError(f"{where}: missing {', '.join(missing)}. Each line needs id, question, gold.")
        if not isinstance(row["gold"], list) or not all(isinstance(g, str) for g in row["gold"]):
            raise QueryError(f"{where}: 'gold' must be a list of paper id strings (empty for unanswerable).")
        if not str(row["question"]).strip():
            raise QueryError(f"{where}: empty question.")
        qtype = row.get("type", "single")
        if qtype not in TYPES:
            raise QueryError(f"{where}: unknown type {qtype!r}; use one of {', '.join(sorted(TYPES))}.")
        if str(row["id"]) in seen:
            raise QueryError(f"{where}: duplicate id {row['id']!r}.")
        seen.add(str(row["id"]))
        history = row.get("history") or []
        if not isinstance(history, list):
            raise QueryError(f"{where}: 'history' must be a list of earlier user questions.")
        filters = row.get("filters") or {}
        unknown = set(filters) - {"venue", "year", "author", "topic"}
        if unknown:
            raise QueryError(f"{where}: unknown filter(s) {sorted(unknown)}; use venue, year, author, topic.")
        kind = str(row.get("kind", ""))
        if kind not in KINDS:
            raise QueryError(f"{where}: unknown kind {kind!r}; use one of {', '.join(sorted(KINDS - {''}))}.")
        out.append(EvalQuestion(str(row["id"]), str(row["question"]), tuple(row["gold"]), qtype,
                                str(row.get("lang", "en")), tuple(map(str, history)), dict(filters), kind))
    if not out:
        raise QueryError(f"{path}: no questions in the file.")
    return out


@dataclass
class BeirSet:
    corpus: list[dict]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def load_beir(folder: Path, split: str) -> BeirSet:
    """BEIR layout: corpus.jsonl (_id, title, text), queries.jsonl (_id, text), qrels/<split>.tsv."""
    folder = Path(folder)
    qrels_path = folder / "qrels" / f"{split}.tsv"
    for needed in (folder / "corpus.jsonl", folder / "queries.jsonl", qrels_path):
        if not needed.is_file():
            raise QueryError(f"BEIR folder {folder}: {needed.name} is missing (split {split!r}). Expected "
                             f"corpus.jsonl, queries.jsonl, qrels/{split}.tsv.")
    corpus = [json.loads(l) for l in (folder / "corpus.jsonl").read_text("utf-8").splitlines() if l.strip()]
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if int(row["score"]) > 0:
                qrels.setdefault(str(row["query-id"]), {})[str(row["corpus-id"])] = int(row["score"])
    queries = {}
    for line in (folder / "queries.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if str(row["_id"]) in qrels:
                queries[str(row["_id"])] = row["text"]
    return BeirSet(corpus, queries, {q: r for q, r in qrels.items() if q in queries})
