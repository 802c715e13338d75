"""Write an evaluation report: Markdown table, JSON, PNG plots, stamped with settings and git revision."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KS = [1, 3, 5, 10]


def git_revision() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                               text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except Exception:
        return "unknown"


def new_report_dir(base: Path | None = None, name: str = "") -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = (base or ROOT / "evals" / "reports") / (f"{stamp}-{name}" if name else stamp)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _table(rows: list[list], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_compare_report(folder: Path, title: str, results: dict[str, dict], stamp: dict,
                         kind: str = "dataset") -> Path:
    """results: config name -> run_dataset() output (kind='dataset') or BEIR mode metrics (kind='beir')."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    md = [f"# {title}", "", "Stamp: " + ", ".join(f"{k}={v}" for k, v in stamp.items()), ""]
    if kind == "dataset":
        header = ["config", *[f"R@{k}" for k in KS], "MRR@10", "nDCG@10", "p50 s", "unanswerable below threshold",
                  "answerable below threshold"]
        rows = []
        for name, r in results.items():
            o, a = r["overall"], r["abstention_signal"]
            rows.append([name, *[f"{o[f'recall@{k}']:.3f}" for k in KS], f"{o['mrr@10']:.3f}", f"{o['ndcg@10']:.3f}",
                         r["latency"]["p50_s"], a["unanswerable_below"], a["answerable_below"]])
        md += [_table(rows, header), ""]
        types = sorted({t for r in results.values() for t in r["by_type"]})
        md += ["## Recall@10 by question type", "",
               _table([[n, *[f"{r['by_type'].get(t, {}).get('recall@10', float('nan')):.3f}" for t in types]]
                       for n, r in results.items()],
                      ["config", *[f"{t} (n={next(iter(results.values()))['by_type'].get(t, {}).get('n', 0)})"
                                   for t in types]]), ""]
        langs = sorted({l for r in results.values() for l in r["by_lang"]})
        md += ["## nDCG@10 by language", "",
               _table([[n, *[f"{r['by_lang'].get(l, {}).get('ndcg@10', float('nan')):.3f}" for l in langs]]
                       for n, r in results.items()],
                      ["config", *langs]), ""]
        fig, ax = plt.subplots(figsize=(6, 4))
        for name, r in results.items():
            ax.plot(KS, [r["overall"][f"recall@{k}"] for k in KS], marker="o", label=name)
        ax.set_xlabel("k"), ax.set_ylabel("Recall@k"), ax.set_title(title), ax.set_ylim(0, 1)
        ax.grid(alpha=0.3), ax.legend(fontsize=8)
        fig.tight_layout(), fig.savefig(folder / "recall_at_k.png", dpi=110), plt.close(fig)
        fig, ax = plt.subplots(figsize=(7, 4))
        width = 0.8 / max(1, len(results))
        for i, (name, r) in enumerate(results.items()):
            ax.bar([j + i * width for j in range(len(types))],
                   [r["by_type"].get(t, {}).get("recall@10", 0) for t in types], width, label=name)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(types))], types, rotation=20)
        ax.set_ylabel("Recall@10"), ax.set_ylim(0, 1), ax.legend(fontsize=8), ax.set_title("Recall@10 by question type")
        fig.tight_layout(), fig.savefig(folder / "by_type.png", dpi=110), plt.close(fig)
        md += ["![recall@k](recall_at_k.png)", "", "![by type](by_type.png)", ""]
    else:
        header = ["config", "nDCG@10", "Recall@100", "Recall@10", "MRR@10", "p50 s"]
        rows = [[n, f"{r['ndcg@10']:.3f}", f"{r['recall@100']:.3f}", f"{r['recall@10']:.3f}", f"{r['mrr@10']:.3f}",
                 r["p50_s"]] for n, r in results.items()]
        md += [_table(rows, header), ""]
        fig, ax = plt.subplots(figsize=(6, 4))
        names = list(results)
        ax.bar(names, [results[n]["ndcg@10"] for n in names], color="#4c72b0")
        ax.set_ylabel("nDCG@10"), ax.set_ylim(0, 1), ax.set_title(title)
        ax.tick_params(axis="x", rotation=20)
        fig.tight_layout(), fig.savefig(folder / "ndcg.png", dpi=110), plt.close(fig)
        md += ["![nDCG@10](ndcg.png)", ""]
    (folder / "report.md").write_text("\n".join(md), encoding="utf-8")
    slim = {n: {k: v for k, v in r.items() if k != "per_query"} for n, r in results.items()}
    (folder / "report.json").write_text(json.dumps({"title": title, "stamp": stamp, "results": slim}, indent=1,
                                                   ensure_ascii=False), encoding="utf-8")
    if kind == "dataset":
        (folder / "per_query.json").write_text(json.dumps({n: r.get("per_query", {}) for n, r in results.items()},
                                                          indent=1, ensure_ascii=False), encoding="utf-8")
    return folder / "report.md"
