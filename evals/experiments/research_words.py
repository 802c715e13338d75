"""The words ML research writes, learned from abstracts: `ragqa/query/lexicon/research_words.en.txt`.

A list subject may hold a word no indexed paper has. Some are request wording or slips ("pls", "headline",
"difussion"): they say nothing of what the collection holds, and a subject's weight leaves them out (answer/scope.py).
Others are research terms the library lacks ("federated", "unlearning", "video"): they are what the question asks
about, and a run of the other words ("training data", "large language models") does not stand for the subject
without them. The lexicon tells the two apart: the terms (ragqa.text.terms, folded as the index folds them) that
ICLR and ICML 2024 titles and abstracts write at least `K` times, K being the document frequency that 95% of the
words of ICLR 2024 author keywords held by three or more papers reach (what the subjects the product is built for
are made of). K is read from the corpora; a sweep on the dataset questions came first (answer_paths: K 12-80 change
no answerable list, K 5 refuses one whose words "correcting", "inserting" 10 and 5 abstracts write), so the rule was
stated knowing that band.

    python -m evals.experiments.research_words --corpora ../shared/data/corpora/iclr2024.jsonl \
        ../shared/data/corpora/icml2024.jsonl [--write]
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

from ragqa.text.terms import terms

LEXICON = Path(__file__).resolve().parents[2] / "ragqa" / "query" / "lexicon"


def learn(corpora: list[Path], share: float = 0.95, min_papers: int = 3) -> tuple[dict[str, int], int, int]:
    """(term -> the number of abstracts writing it, K, how many keyword words set K)."""
    df: Counter = Counter()
    held: Counter = Counter()
    for corpus in corpora:
        for line in corpus.open(encoding="utf-8"):
            record = json.loads(line)
            df.update(set(terms(f"{record.get('title') or ''} {record.get('abstract') or ''}")))
            held.update({k.strip().lower() for k in record.get("keywords") or [] if k.strip()})
    words = {w for k, n in held.items() if n >= min_papers for w in terms(k)}
    k = int(np.percentile([df.get(w, 0) for w in words], 100 * (1 - share)))
    return dict(df), k, len(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, nargs="+", required=True)
    parser.add_argument("--write", action="store_true", help="write ragqa/query/lexicon/research_words.en.txt")
    args = parser.parse_args()
    df, k, n_words = learn(args.corpora)
    kept = sorted(t for t, n in df.items() if n >= k)
    print(json.dumps({"abstracts_terms": len(df), "keyword_words": n_words, "K": k, "kept": len(kept)}, indent=1))
    if args.write:
        header = (f"# terms ML titles and abstracts write at least {k} times (ICLR and ICML 2024: 95% of the words of "
                  f"author keywords held by 3+ papers reach it): python -m evals.experiments.research_words\n")
        (LEXICON / "research_words.en.txt").write_text(header + "\n".join(kept) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
