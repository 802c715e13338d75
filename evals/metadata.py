"""Metadata and aggregate questions (evals/datasets/metadata.jsonl) against the current index:
exact counts, the listed set against gold (F1), nDCG@10 of the filtered search, the right reply to
an ambiguous or unknown author, and latency. Gold comes from make_metadata_questions.py."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

from ragqa.errors import QueryError

from .metrics import ir_metrics, percentile


def load_metadata_questions(path: Path) -> list[dict]:
    if not Path(path).is_file():
        raise QueryError(f"No dataset at {path}. Write one with 'python evals/make_metadata_questions.py'.")
    rows = []
    for number, line in enumerate(Path(path).read_text("utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            if (row["expect"] not in ("list", "count", "semantic", "group", "ambiguous", "unknown")
                or not isinstance(row["gold"], list)):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            raise QueryError(f"{path} line {number}: needs id, question, expect "
                             "(list|count|semantic|group|ambiguous|unknown), gold, count.") from None
        rows.append(row)
    return rows


def _f1(got: set[str], gold: set[str]) -> float:
    if not got and not gold:
        return 1.0
    hit = len(got & gold)
    return 0.0 if not hit else 2 * hit / (len(got) + len(gold))


def _counted(answer) -> set[str]:
    """Every paper a list or count answer counted (the list shows at most list_max; the rest are its sources)."""
    return {c.paper_id for c in answer.citations} | set(answer.counted)


def run_metadata(pipeline, rows: list[dict]) -> dict:
    out_rows, seconds = [], []
    qrels, run = {}, {}
    for row in rows:
        start = time.perf_counter()
        answer = pipeline.ask(row["question"])
        seconds.append(time.perf_counter() - start)
        cited = {c.paper_id for c in answer.citations}
        gold = set(row["gold"])
        number = re.match(r"\D{0,12}?(\d[\d,]*)", answer.text)
        stated = int(number.group(1).replace(",", "")) if number and not answer.abstained else None
        result = {"id": row["id"], "kind": row["kind"], "expect": row["expect"], "why": answer.why, "mode": answer.mode,
                  "stated_count": stated, "gold_count": row["count"], "text": answer.text[:300]}
        if row["expect"] in ("list", "count"):
            result["exact_count"] = stated == row["count"]
            if row["count"] <= pipeline.settings.list_max:
                result["f1"] = round(_f1(cited, gold), 4)
            if row["expect"] == "list":
                hits = pipeline.search(row["question"], k=10).hits
                qrels[row["id"]] = {g: 1 for g in gold}
                run[row["id"]] = {h.paper_id: 1.0 / (i + 1) for i, h in enumerate(hits)}
        elif row["expect"] == "semantic":  # a subject, not a label: the counted set against the source's labels
            result["semantic_f1"] = round(_f1(_counted(answer), gold), 4)
            result["stated_vs_gold"] = f"{stated}/{row['count']}"
        elif row["expect"] == "group":  # every group's count, as the source files give it
            got = {r["group"]: r["count"] for r in answer.table or []}
            result["exact_count"] = got == row["groups"]
            result["groups"], result["gold_groups"] = got, row["groups"]
        else:
            result["correct"] = answer.abstained and answer.why == f"{row['expect']} author"
        out_rows.append(result)
    means, _ = ir_metrics(qrels, run, ["ndcg@10", "recall@10"]) if qrels else ({"ndcg@10": None, "recall@10": None}, {})
    counted = [r for r in out_rows if "exact_count" in r]
    f1s = [r["f1"] for r in out_rows if "f1" in r]
    replies = [r for r in out_rows if "correct" in r]
    semantic = [r["semantic_f1"] for r in out_rows if "semantic_f1" in r]
    return {
        "questions": len(rows), "exact_count": f"{sum(r['exact_count'] for r in counted)}/{len(counted)}",
        "list_f1_mean": round(sum(f1s) / len(f1s), 4) if f1s else None, "ndcg@10": means["ndcg@10"],
        "recall@10": means["recall@10"],
        "semantic_f1_mean": round(sum(semantic) / len(semantic), 4) if semantic else None,
        "ambiguous_or_unknown_correct": f"{sum(r['correct'] for r in replies)}/{len(replies)}",
        "latency_p50_s": percentile(seconds, 0.5), "latency_p95_s": percentile(seconds, 0.95),
        "papers_indexed": len(pipeline.searcher.paper_meta()), "rows": out_rows,
    }
