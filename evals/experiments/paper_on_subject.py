"""Experiment (not a stage): can the packaged LLM tell whether a paper is about a list question's subject? Meant for
the weak matches only the answerability's list point takes (an off-topic list then lists one paper on something else
as `related`, while in other lists that paper is gold: evals.experiments.weaker_tier found no P that separates them).

Pairs from real labels: for ICLR 2024 author keywords held out of the topical fit (3-60 papers each), one paper
labelled with the keyword whose title or abstract states it (on the subject), and one paper of the same primary area
that states none of the keyword's words (off it). Each pair is asked in a few-shot YES/NO prompt (PROMPT below: the
subject, then the paper's title and first 1,200 characters of abstract); the score is P(YES) of the reply's first
token against NO, from the logits after the prompt (the packaged GGUF through llama.cpp, ChatML as Qwen writes it).
With `--probe` (the JSON `python -m evals.experiments.weaker_tier --out` writes), the same for every paper of those
list answers, gold or not.

    python -m evals.experiments.paper_on_subject --keywords 40 --out <dir>/report.json [--probe weaker_tier.json]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from evals.topical import held_out

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "corpora" / "iclr2024.jsonl"
ABSTRACT_CHARS = 1200
SYSTEM = ("A researcher asked for the papers in their library on a research subject. Read one paper's title and "
          "abstract, and decide whether the paper studies that subject. Say YES only when the title or abstract itself "
          "names the subject (in these or other words) as what the paper is about: its problem, method, task or kind "
          "of data. Say NO when the paper is about something else, even in the same field, or only shares a word with "
          "the subject. Reply YES or NO.")
SHOTS = [  # invented papers, none of the corpus's
    ("speech recognition", "Self-Supervised Encoders for Transcribing Noisy Audio. We pretrain an audio encoder on "
     "unlabelled recordings and fine-tune it to transcribe speech in noisy rooms.", "YES"),
    ("weather forecasting", "Forecasting Sales with Pretrained Sequence Models. We adapt a pretrained transformer to "
     "retail time series and forecast weekly demand.", "NO"),
    ("graph neural networks for traffic", "Message Passing on Road Networks. We model a city's road network as a graph "
     "and forecast traffic flow at each sensor with a message-passing neural network.", "YES"),
    ("video generation", "Faster Diffusion Sampling for Images. We cut the number of denoising steps an image "
     "diffusion model needs from 50 to 8.", "NO"),
]


def pairs(n_keywords: int, seed: int = 0) -> list[dict]:
    papers = [json.loads(line) for line in open(CORPUS, encoding="utf-8")]
    texts = [f"{p['title']}. {p['abstract']}" for p in papers]
    by_kw = defaultdict(set)
    for i, p in enumerate(papers):
        for k in p.get("keywords") or []:
            by_kw[k.strip().lower()].add(i)
    kws = sorted(k for k, s in by_kw.items() if 3 <= len(s) <= 60 and held_out(k) and len(k) > 3)
    rng = random.Random(seed)
    rng.shuffle(kws)
    out = []
    for k in kws[:n_keywords]:
        on = [i for i in sorted(by_kw[k]) if k in texts[i].lower()]
        words = [w for w in re.findall(r"[a-z]+", k) if len(w) > 3] or [k]
        area = papers[on[0]].get("primary_area") if on else None
        off = [i for i in range(len(papers)) if i not in by_kw[k] and papers[i].get("primary_area") == area
               and not any(w in texts[i].lower() for w in words)]
        if on and off:
            out += [{"subject": k, "paper": texts[rng.choice(on)][:ABSTRACT_CHARS], "on": True},
                    {"subject": k, "paper": texts[rng.choice(off)][:ABSTRACT_CHARS], "on": False}]
    return out


class YesScorer:
    def __init__(self):
        from llama_cpp import Llama

        from ragqa.config import Settings
        from ragqa.models.weights import check_gguf

        settings = Settings()
        self.llm = Llama(model_path=str(check_gguf(settings, settings.llm_model)), n_ctx=2048, n_threads=2,
                         n_threads_batch=2, verbose=False, seed=0)
        self.yes, self.no = (self.llm.tokenize(w.encode(), add_bos=False)[0] for w in ("YES", "NO"))
        self.cached: list[int] = []

    def __call__(self, subject: str, paper: str) -> float:
        turns = "".join(f"<|im_start|>user\nSubject: {s}\nPaper: {p}<|im_end|>\n<|im_start|>assistant\n{a}<|im_end|>\n"
                        for s, p, a in SHOTS)
        text = (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n{turns}<|im_start|>user\nSubject: {subject}\nPaper: {paper}"
                "<|im_end|>\n<|im_start|>assistant\n")
        toks = self.llm.tokenize(text.encode(), add_bos=False, special=True)
        keep = 0
        for a, b in zip(self.cached, toks):
            if a != b:
                break
            keep += 1
        self.llm.n_tokens = min(keep, len(toks) - 1)  # the shared few-shot prefix stays in the KV cache
        self.llm.eval(toks[self.llm.n_tokens:])
        self.cached = toks
        logits = np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.llm.n_vocab(),))
        return float(1 / (1 + np.exp(logits[self.no] - logits[self.yes])))


def main() -> None:
    from sklearn.metrics import roc_auc_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keywords", type=int, default=40)
    parser.add_argument("--probe", type=Path, default=None)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    score, started = YesScorer(), time.time()
    rows = pairs(args.keywords)
    for r in rows:
        r["p_yes"] = score(r["subject"], r["paper"])
    report = {"pairs": len(rows), "pairs_roc_auc": roc_auc_score([r["on"] for r in rows], [r["p_yes"] for r in rows]),
              "pairs_argmax_yes": {"on": sum(r["p_yes"] > 0.5 for r in rows if r["on"]),
                                   "off": sum(r["p_yes"] > 0.5 for r in rows if not r["on"])},
              "seconds_per_paper": (time.time() - started) / len(rows)}
    if args.probe:
        probe = []
        for q in json.loads(args.probe.read_text(encoding="utf-8")):
            for pid in q["listed"]:
                paper = q["papers"][pid]
                probe.append({"key": q["key"], "gold": pid in set(q["gold_ids"]),
                              "question_has_gold": bool(q["gold_ids"]), "p_yes": score(q["words"] or q["query"],
                                             f"{paper['title']}. {paper['abstract']}"[:ABSTRACT_CHARS])})
        report["probe_papers"] = len(probe)
        report["probe_roc_auc"] = roc_auc_score([r["gold"] for r in probe], [r["p_yes"] for r in probe])
        report["probe"] = probe
    report["rows"] = [{k: v for k, v in r.items() if k != "paper"} for r in rows]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k not in ("rows", "probe")}, indent=1))


if __name__ == "__main__":
    main()
