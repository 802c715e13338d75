"""Experiment (not a stage): does the LLM's query likelihood tell an answerable question from an on-topic
near-miss better than the calibrated P? For the best paper by P, the question's mean token log-probability
written after that paper's title and abstract, minus the same written after no paper (pointwise mutual
information, as in UPR: Sachan et al. 2022, "Improving Passage Retrieval with Zero-Shot Question Generation").

    python -m evals.experiments.query_likelihood <calibration report folder> <gguf> <out.jsonl> \
        [per-cell n] [held|calib|iclr] [P floor]

    python -m evals.experiments.query_likelihood --analyse <out.jsonl>

Rows: the saved rows of a calibration run (held-out split by default, or `iclr` for the transfer rows),
n answerable + n near-miss per form, not gated, whose best P reaches the floor (the point of 1% false abstention on
the calibration part's human-written questions, 0.0022: where a second stage would run), in random order.

Result on 2026-12-04 (2-core AMD EPYC Zen 4; Qwen2.5-Coder-0.5B Q4_K_M through llama.cpp; 220 words of title + abstract;
evals/reports/query-likelihood-heldout-20261204.jsonl, 237 held-out rows, a random sample of the 997 at or above the
floor, stopped there): 3.0 s per question (p50). ROC AUC over those rows: P 0.952, PMI alone 0.882; a logistic model
over (logit P, PMI), 5-fold CV: 0.958 (P alone, same CV: 0.950); on SciFact's claims no gain (0.845 -> 0.842), on
written questions 0.985 -> 1.000, on spans 0.968 -> 0.980. Where the decision is made, it does not help: keeping every
answerable sampled row, P alone refuses 61/108 near-misses and P + PMI 57/108 (claims and written questions: 15/34 and
12/34). ~3 s more before the first token for no gain at the operating end: not adopted.
"""
from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"

SYSTEM = "You write one question that a researcher could ask and that the given research paper answers."
ASK_WITH = "Paper: {paper}\n\nWrite a question this paper answers."
ASK_WITHOUT = "Write a question a machine-learning researcher could ask."


def texts() -> dict[str, str]:
    from evals.dataset import load_beir
    from evals.retrieval import beir_papers
    from ragqa.ingest.corpus import load_paths
    from ragqa.ingest.listing import load_manifest
    from ragqa.ingest.merge import merge_all

    out = {}
    beir = load_beir(SHARED / "scifact", "train")
    for p in beir_papers(beir, SHARED / "scifact")[0]:
        out[p.paper_id] = p.text
    papers = list(load_paths([ROOT / "data"], load_manifest(ROOT / "data"))[0].papers)
    for name in ("icml2024.jsonl", "iclr2024.jsonl"):
        papers += list(load_paths([SHARED / "corpora" / name])[0].papers)
    for p in merge_all(papers):
        out[p.paper_id] = f"{p.title or ''}. {p.text}"
    return out


class Scorer:
    def __init__(self, gguf: str, n_ctx: int = 1024):
        from llama_cpp import Llama

        self.llm = Llama(model_path=gguf, n_ctx=n_ctx, n_threads=2, n_threads_batch=2, verbose=False, seed=0,
                         logits_all=True)
        self.cached: list[int] = []

    def _prompt(self, user: str) -> list[int]:
        text = f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"
        return self.llm.tokenize(text.encode(), add_bos=False, special=True)

    def logprob(self, user: str, answer: str) -> tuple[float, int]:
        """Sum and count of the answer's token log-probabilities after the prompt (KV cache reused for a shared
        prefix)."""
        prompt = self._prompt(user)
        ans = self.llm.tokenize(answer.encode(), add_bos=False, special=False)
        toks = prompt + ans
        keep = 0
        for a, b in zip(self.cached, toks):
            if a != b:
                break
            keep += 1
        keep = min(keep, len(prompt) - 1)  # the prompt's last token must be evaluated for the first answer logit
        self.llm.n_tokens = keep
        if keep < len(prompt) - 1:  # the prompt's logits are not needed but its last one: score only the answer's rows
            self.llm._logits_all = False
            self.llm.eval(toks[keep:len(prompt) - 1])
        self.llm._logits_all = True
        self.llm.eval(toks[len(prompt) - 1:])
        self.cached = toks
        scores = np.asarray(self.llm.scores[len(prompt) - 1: len(toks) - 1], dtype=np.float64)
        mx = scores.max(axis=1, keepdims=True)
        lse = (mx[:, 0] + np.log(np.exp(scores - mx).sum(axis=1)))
        lp = scores[np.arange(len(ans)), ans] - lse
        return float(lp.sum()), len(ans)


def main() -> None:
    from evals.calibrate import _candidates, _half, _model_x
    from ragqa.answer.answerability import Calibration, judge

    folder, gguf, out_path = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    split = sys.argv[5] if len(sys.argv) > 5 else "held"
    floor = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
    cal = Calibration.from_json(json.loads((ROOT / "ragqa" / "calibration" / "all-MiniLM-L6-v2.json").read_text()))
    name = "rows-iclr2024.jsonl" if split == "iclr" else "rows.jsonl"
    rows = [json.loads(line) for line in open(folder / name)]
    rows = [r for r in rows if r["x"] and not r["gate"]]
    if split in ("held", "calib"):
        rows = [r for r in rows if _half(r["paper"], 0.3, 1) == (split == "held")]
    _model_x(rows)
    if floor:  # only questions whose calibrated P reaches `floor`: a second stage sees only those
        rows = [r for r in rows if judge(cal, _candidates(r)).best >= floor]
    rng = random.Random(0)
    sample = []
    for form in sorted({r["form"] for r in rows}):
        for answerable in (True, False):
            cell = [r for r in rows if r["form"] == form and (r["gold"] is not None) == answerable]
            sample += rng.sample(cell, min(n, len(cell)))
    rng.shuffle(sample)  # a run cut short is still a sample of every cell
    text = texts()
    scorer = Scorer(gguf)
    done = set()
    if Path(out_path).exists():
        done = {json.loads(line)["id"] for line in open(out_path)}
    with open(out_path, "a") as out:
        for r in sample:
            if r["id"] in done:
                continue
            j = judge(cal, _candidates(r))
            pid = max(j.probabilities, key=j.probabilities.get)
            paper = " ".join(text[pid].split()[:220])
            t = time.time()
            with_, k = scorer.logprob(ASK_WITH.format(paper=paper), r["question"])
            without, _ = scorer.logprob(ASK_WITHOUT, r["question"])
            out.write(json.dumps({"id": r["id"], "form": r["form"], "answerable": r["gold"] is not None,
                                  "gold_top": bool(r["gold"] and pid in r["gold"]), "p": j.best,
                                  "lp_with": with_, "lp_without": without, "tokens": k,
                                  "s": round(time.time() - t, 2)}) + "\n")
            out.flush()


def analyse(path: str) -> None:
    import math

    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import cross_val_predict

    rows = [json.loads(line) for line in open(path)]
    logit = [math.log(min(max(r["p"], 1e-9), 1 - 1e-9) / (1 - min(max(r["p"], 1e-9), 1 - 1e-9))) for r in rows]
    pmi = [(r["lp_with"] - r["lp_without"]) / max(1, r["tokens"]) for r in rows]
    x, y = np.array([logit, pmi]).T, np.array([r["answerable"] for r in rows])
    forms = np.array([r["form"] for r in rows])
    p_only = cross_val_predict(LogisticRegression(), x[:, :1], y, cv=5, method="predict_proba")[:, 1]
    both = cross_val_predict(LogisticRegression(), x, y, cv=5, method="predict_proba")[:, 1]
    print(f"{len(rows)} rows; AUC P {roc_auc_score(y, x[:, 0]):.3f}, PMI {roc_auc_score(y, x[:, 1]):.3f}; "
          f"5-fold CV: P alone {roc_auc_score(y, p_only):.3f}, P + PMI {roc_auc_score(y, both):.3f}")
    for form in sorted(set(forms)):
        m = forms == form
        if len(set(y[m])) > 1:
            print(f"  {form}: {m.sum()} rows, P alone {roc_auc_score(y[m], p_only[m]):.3f}, P + PMI "
                  f"{roc_auc_score(y[m], both[m]):.3f}")
    for name, group in (("claims and written", ("claim", "generated")), ("all", tuple(set(forms)))):
        m = np.isin(forms, group)
        a, n = m & y, m & ~y
        refused_p = (p_only[n] < p_only[a].min()).sum()
        refused_both = (both[n] < both[a].min()).sum()
        print(f"  {name}: near-misses refused keeping all {a.sum()} answerable: P {refused_p}/{n.sum()}, P + PMI "
              f"{refused_both}/{n.sum()}")


if __name__ == "__main__":
    if sys.argv[1] == "--analyse":
        analyse(sys.argv[2])
    else:
        main()
