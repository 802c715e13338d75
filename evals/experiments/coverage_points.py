"""The coverage tiers' points, set by split-conformal on questions the answerability model was never fitted on.

An answer is `answered` when its best paper's P reaches the answered point (or it names a paper), `related` between
the answer point and it, `not_covered` below the answer point. The held-out 30% of a calibration run is split again
by paper: half A sets the points, half B and the transfer corpus report them.

- answered point: the smallest P at which at most `--near-miss` of half A's near-misses (questions no indexed paper
  was written for) are `answered`, with the split-conformal correction (rank ceil((n + 1)(1 - alpha))), so a new
  near-miss exchangeable with them lands in `answered` with probability at most alpha.
- answer point (the `related` floor): the shipped one; the conformal point for `--answerable` (at most that share of
  answerable questions below it) is reported beside it.

    python -m evals.experiments.coverage_points <calibration report folder> [--write]
    python -m evals.experiments.coverage_points --small <folders> --small-papers 185 --large-papers 1410 [--write]

    python -m evals.experiments.coverage_points --at <folder>:<papers>[:<rows set>] ...  # the points at other sizes

`--small`: calibration runs (`ragqa eval calibrate --evaluate <shipped> --fraction 0.04 --seed N`) over small
libraries (the bundled papers and 4% of a corpus): the answered point is set the same way on half of their pooled
questions (split by paper) and reported on the other half; --write stores it beside the shipped one as
`answered_by_size` (Calibration.for_collection interpolates in log size between them). A refit (`ragqa eval
calibrate` without --evaluate) writes the file without it: run this again after one.

The folder is one `ragqa eval calibrate` wrote (rows.jsonl, rows-<transfer>); --write stores the answered point in the
shipped calibration file.
"""
from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

from evals.calibrate import _cached_rows, _candidates, _half, _model_x, _names_a_paper
from ragqa.answer.answerability import Calibration, coverage_of, judge

SHIPPED = Path(__file__).resolve().parents[2] / "ragqa" / "calibration" / "all-MiniLM-L6-v2.json"


def scored(calibration: Calibration, rows: list[dict]) -> list[dict]:
    """Per question: answerable or not, its best P, whether it names a paper, and the papers an explain answer
    would cite (the best, then up to two more at or above the answer point), as the product decides."""
    out = []
    for r in rows:
        if r["gate"]:  # the unknown-name gate refuses before any P
            out.append({"answerable": r["gold"] is not None, "best": 0.0, "named": False, "cites_gold": False,
                        "form": r["form"], "gated": True})
            continue
        j = judge(calibration, _candidates(r))
        cited = set(j.explain(3))
        gold = {pid for pid, y in zip(r["ids"], r["y"]) if y}
        out.append({"answerable": r["gold"] is not None, "best": j.best, "named": _names_a_paper(r),
                    "cites_gold": bool(cited & gold), "form": r["form"], "gated": False})
    return out


def conformal_upper(scores: list[float], alpha: float) -> float:
    """The point t such that a new score exchangeable with `scores` is >= t with probability <= alpha: just above
    the ceil((n + 1)(1 - alpha))-th smallest score."""
    s = np.sort(np.asarray(scores, dtype=float))
    rank = math.ceil((len(s) + 1) * (1 - alpha))
    return float(np.nextafter(s[rank - 1], 1.0)) if rank <= len(s) else 1.0


def conformal_lower(scores: list[float], alpha: float) -> float:
    """The point t such that a new score exchangeable with `scores` is < t with probability <= alpha: the
    floor((n + 1) alpha)-th smallest score (0 when there are too few)."""
    s = np.sort(np.asarray(scores, dtype=float))
    rank = math.floor((len(s) + 1) * alpha)
    return float(s[rank - 1]) if rank >= 1 else 0.0


def tiers(calibration: Calibration, items: list[dict]) -> dict:
    """Counts per tier for answerable and near-miss questions, and gold cited among answerable ones answered."""
    def tier(q):
        return "not_covered" if q["gated"] else coverage_of(calibration, q["best"], q["named"])
    ans = [q for q in items if q["answerable"]]
    near = [q for q in items if not q["answerable"]]
    a, n = Counter(map(tier, ans)), Counter(map(tier, near))
    kept = [q for q in ans if tier(q) != "not_covered"]
    gold = sum(q["cites_gold"] for q in kept)
    return {"answerable": len(ans), "answerable_by_tier": dict(a), "near_miss": len(near),
            "near_miss_by_tier": dict(n),
            "answerable_not_covered": f"{a['not_covered']}/{len(ans)} ({a['not_covered'] / max(1, len(ans)):.1%})",
            "near_miss_answered": f"{n['answered']}/{len(near)} ({n['answered'] / max(1, len(near)):.1%})",
            "gold_cited_when_answered_or_related":
                f"{gold}/{len(kept)} ({gold / max(1, len(kept)):.1%})"}


def answered_point(calibration: Calibration, items: list[dict], near_miss: float) -> float:
    """The smallest P at which at most `near_miss` of the near-misses among `items` (scored) land in `answered`
    (split-conformal), the named ones (answered whatever their P) counted in the share."""
    named_near = sum(q["named"] for q in items if not q["answerable"])
    near = [q["best"] for q in items if not q["answerable"] and not q["named"] and not q["gated"]]
    alpha = max(0.0, near_miss - named_near / max(1, len(near) + named_near))
    return max(calibration.answer_threshold, conformal_upper(near, alpha))


def small_libraries(args, data: dict, calibration: Calibration) -> None:
    """The answered point on small libraries (--small), set on half of their questions, reported on the other half
    beside the shipped point; --write adds it to the file's answered_by_size."""
    items = []
    for folder in args.small:
        rows = _cached_rows(folder)["main"]
        _model_x(rows)
        items += [dict(q, half_a=_half(r["paper"], 0.5, 99)) for r, q in zip(rows, scored(calibration, rows))]
    half_a, half_b = [q for q in items if q["half_a"]], [q for q in items if not q["half_a"]]
    point = round(answered_point(calibration, half_a, args.near_miss), 4)
    report = {"small_libraries": [str(f) for f in args.small], "papers": args.small_papers,
              "answered_point": point, "shipped_answered_point": calibration.answered_threshold,
              "how": f"half A of the small libraries' pooled questions ({len(half_a)}, split by paper): near-misses "
                     f"in answered <= {args.near_miss:.0%} (split-conformal)",
              "half_A (sets the point)": tiers(replace(calibration, answered_threshold=point), half_a),
              "half_B, this point": tiers(replace(calibration, answered_threshold=point), half_b),
              "half_B, the shipped point": tiers(calibration, half_b)}
    print(json.dumps(report, indent=1))
    if args.write:
        data["answered_by_size"] = [[args.small_papers, point], [args.large_papers, calibration.answered_threshold]]
        data["answered_by_size_source"] = (
            f"python -m evals.experiments.coverage_points --small <{len(args.small)} runs> --small-papers "
            f"{args.small_papers} --large-papers {args.large_papers} --near-miss {args.near_miss}")
        args.calibration.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path, nargs="?")
    ap.add_argument("--small", type=Path, nargs="*", default=[], help="calibration runs over small libraries")
    ap.add_argument("--small-papers", type=int, default=0, help="their collections' size (papers)")
    ap.add_argument("--large-papers", type=int, default=0, help="the collection size the shipped point was set on")
    ap.add_argument("--at", nargs="*", default=[],
                    help="<run folder>:<its collection's papers>[:<rows set: main, check-seed_questions.jsonl, …>]")
    ap.add_argument("--calibration", type=Path, default=SHIPPED)
    ap.add_argument("--near-miss", type=float, default=0.10, help="share of near-misses allowed in `answered`")
    ap.add_argument("--answerable", type=float, default=0.05, help="share of answerable questions allowed below")
    ap.add_argument("--seed", type=int, default=0, help="the calibration run's --seed")
    ap.add_argument("--write", action="store_true", help="store the answered point in --calibration")
    args = ap.parse_args()
    data = json.loads(args.calibration.read_text(encoding="utf-8"))
    calibration = Calibration.from_json(data)
    if args.small:
        return small_libraries(args, data, calibration)
    if args.at:
        return at_sizes(args, calibration)
    return held_out_split(args, data, calibration)


def at_sizes(args, calibration: Calibration) -> None:
    """The size-set answered point on libraries of other sizes (--at), none used to set it, beside the shipped one."""
    out = {}
    for spec in args.at:
        folder, papers, *name = spec.split(":")
        rows = _cached_rows(Path(folder))[name[0] if name else "main"]
        _model_x(rows)
        sized, items = calibration.for_collection(int(papers)), scored(calibration, rows)
        out[spec] = {"answered_point": sized.answered_threshold, **tiers(sized, items),
                     "with the shipped point": tiers(calibration, items)}
    print(json.dumps(out, indent=1))


def held_out_split(args, data: dict, calibration: Calibration) -> None:
    """The answered point (and the conformal answer point) set on half A of a calibration run's held-out split,
    reported on half B and on the run's other row sets; --write stores the answered point."""
    cached = _cached_rows(args.folder)
    for rows in cached.values():
        _model_x(rows)
    held = [r for r in cached.pop("main") if _half(r["paper"], 0.3, args.seed + 1)]  # the run's held-out 30%
    half_a = [r for r in held if _half(r["paper"], 0.5, args.seed + 2)]
    half_b = [r for r in held if not _half(r["paper"], 0.5, args.seed + 2)]
    a, b = scored(calibration, half_a), scored(calibration, half_b)
    # a named near-miss is answered whatever its P: the point is set on the others, their share counted in alpha
    named_near = sum(q["named"] for q in a if not q["answerable"])
    point = answered_point(calibration, a, args.near_miss)
    related_floor = conformal_lower([q["best"] for q in a if q["answerable"] and not q["named"]], args.answerable)
    tiered = replace(calibration, answered_threshold=round(point, 4))
    report = {"calibration": str(args.calibration.name), "answer_point": calibration.answer_threshold,
              "answered_point": tiered.answered_threshold,
              "how": f"half A of the held-out split ({len(half_a)} questions): near-misses in answered <= "
                     f"{args.near_miss:.0%} (split-conformal, {named_near} named near-misses counted in it); "
                     f"conformal answer point for <= {args.answerable:.0%} answerable below: {related_floor:.4f} "
                     f"(shipped {calibration.answer_threshold})",
              "half_A (sets the points)": tiers(tiered, a),
              "half_B (reported)": tiers(tiered, b)}
    for name, rows in cached.items():
        report[name] = tiers(tiered, scored(calibration, rows))
    per_form = {}
    for q in b:
        per_form.setdefault(q["form"], []).append(q)
    report["half_B by form"] = {f: {k: v for k, v in tiers(tiered, qs).items() if k.endswith("by_tier")}
                                for f, qs in sorted(per_form.items())}
    print(json.dumps(report, indent=1, ensure_ascii=False))
    if args.write:
        data["answered_threshold"] = tiered.answered_threshold
        data["answered_source"] = (f"python -m evals.experiments.coverage_points <report> --near-miss {args.near_miss} "
                                   f"(half A of the held-out split, split-conformal)")
        args.calibration.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
