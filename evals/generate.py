"""`ragqa eval generate`: a starter dataset for users with no labels. The local LLM writes one
question per sampled paper (gold = that paper); questions that copy the abstract are dropped."""
from __future__ import annotations

import json
import random
import re
import sys

from ragqa.models.prompts import render

_WORD = re.compile(r"[a-z0-9]+")
_DEICTIC = re.compile(r"\b(?:the|this) (?:research )?(?:paper|study|work|abstract|article)\b", re.I)


def copied_ngram(question: str, abstract: str, n: int = 4) -> str | None:
    """The first run of n consecutive words the question shares with the abstract, if any."""
    words = _WORD.findall(question.lower())
    text = " " + " ".join(_WORD.findall(abstract.lower())) + " "
    for i in range(len(words) - n + 1):
        gram = " ".join(words[i:i + n])
        if f" {gram} " in text:
            return gram
    return None


def clean_question(text: str) -> str:
    line = next((l.strip() for l in text.strip().splitlines() if l.strip()), "")
    return re.sub(r"^(question\s*:\s*|\d+[.)]\s*)", "", line, flags=re.I).strip().strip('"')


def generate(args) -> int:
    from tqdm import tqdm

    from ragqa.config import Settings
    from ragqa.ingest.corpus import load_paths
    from ragqa.ingest.listing import load_manifest
    from ragqa.models.llm import load_llm

    settings = Settings()
    report, errors = load_paths(args.corpus, load_manifest(settings.data_dir))
    for error in errors:
        print(f"skipped file: {error}", file=sys.stderr)
    papers = [p for p in report.papers if len(p.text.split()) >= 40]
    rng = random.Random(args.seed)
    rng.shuffle(papers)
    llm = load_llm(settings, settings.fast_llm_model if args.fast else settings.llm_model)
    kept, rejected = [], {"copied": 0, "malformed": 0}
    bar = tqdm(total=args.n, desc="generating", file=sys.stderr)
    for paper in papers:
        if len(kept) >= args.n:
            break
        prompt = render(settings.prompts_dir, "generate", abstract=paper.text[:1500])
        question = clean_question(llm.complete(prompt, max_tokens=60).text)
        if len(question.split()) < 5 or len(question) > 300 or _DEICTIC.search(question):
            rejected["malformed"] += 1  # too short/long, or not standalone ("the paper", "this study")
            continue
        if copied_ngram(question, paper.text) or (paper.title and copied_ngram(question, paper.title, 3)):
            rejected["copied"] += 1
            continue
        kept.append({"id": f"g{len(kept) + 1:03d}", "question": question, "gold": [paper.paper_id],
                     "type": "generated", "lang": "en", "source_label": paper.label})
        bar.update(1)
    bar.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for row in kept:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"rejected: {rejected['copied']} copied the abstract's wording, {rejected['malformed']} "
          "malformed or not standalone", file=sys.stderr)
    return len(kept)
