"""IR metrics through ranx (no hand-written formulas) and small latency helpers."""
from __future__ import annotations

import math

METRICS = ["recall@1", "recall@3", "recall@5", "recall@10", "mrr@10", "ndcg@10"]


def ir_metrics(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
               metrics=METRICS) -> tuple[dict, dict]:
    """-> (mean per metric, per-query values per metric). Queries with no gold are not scored."""
    from ranx import Qrels, Run, evaluate

    qrels = {q: g for q, g in qrels.items() if g}
    if not qrels:
        return {m: float("nan") for m in metrics}, {}
    # ranx needs every judged query in the run; an empty result counts as a miss
    run = {q: (run.get(q) or {"__none__": 0.0}) for q in qrels}
    per_query = evaluate(Qrels(qrels), Run(run), metrics, return_mean=False, make_comparable=True)
    ids = list(Qrels(qrels).keys())
    per = {m: dict(zip(ids, map(float, per_query[m]))) for m in metrics}
    means = {m: round(sum(v.values()) / len(v), 4) for m, v in per.items()}
    return means, per


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))], 3)
