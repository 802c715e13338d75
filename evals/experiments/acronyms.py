"""Acronyms and what they stand for, learned from how ML abstracts define them: `ragqa/query/lexicon/acronyms.en.txt`.

A researcher writes "papers on RL", an abstract "reinforcement learning (RL)" and often only the long form: the
topical model reads the subject's words, so "rl" covers none of them. Abstracts define their acronyms: a short form in
parentheses right after the words it abbreviates ("large language models (LLMs)", "vision transformer (ViT)"), found
as Schwartz and Hearst (2003) do (`long_form`). Over the titles and abstracts of ICLR and ICML 2024 (9,000+ papers) a
short form is kept when it is defined at least `--min-count` times and one long form (plurals folded) is at least
`--share` of its definitions: a short form that stands for several things ("CL": contrastive or continual learning) is
left out. Neither knob is tuned on questions: 3 definitions is the fewest at which "one meaning" can be judged, and a
0.6 share keeps a short form only when most of the abstracts that define it agree.

    python -m evals.experiments.acronyms --corpora ../shared/data/corpora/iclr2024.jsonl \
        ../shared/data/corpora/icml2024.jsonl [--write]
"""
from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

LEXICON = Path(__file__).resolve().parents[2] / "ragqa" / "query" / "lexicon"
_DEFINED = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,9})\)")
_WORDS = re.compile(r"[A-Za-z][\w'-]*")


def _fold(words: list[str]) -> str:
    """Lower case, hyphens as spaces, plural s dropped: "Large Language Models" = "large-language model"."""
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in " ".join(words).lower().replace("-", " ").split())


def long_form(short: str, before: list[str]) -> list[str] | None:
    """The words of `before` (those right before "(short)") that `short` abbreviates, by Schwartz and Hearst's match:
    the short form's characters found right to left in the words, its first at the start of a word; None when they are
    not, or when `short` is no acronym (fewer than two capitals: "(i)", "(Adam)")."""
    if sum(c.isupper() for c in short) < 2:
        return None
    window = before[-min(len(short) + 5, 2 * len(short)):]
    text = " ".join(window)
    s, i = len(short) - 1, len(text) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (text[i].lower() != c or (s == 0 and i > 0 and text[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i, s = i - 1, s - 1
    run = text[text.rfind(" ", 0, i + 1) + 1:].split()
    return run if len(run) >= 2 else None


def definitions(paths: list[Path]) -> dict[str, Counter]:
    """short form (as written, plural s dropped) -> Counter of its long forms (folded)."""
    found: dict[str, Counter] = defaultdict(Counter)
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            text = f"{r.get('title') or ''}. {r.get('abstract') or ''}"
            for m in _DEFINED.finditer(text):
                short = m.group(1)
                short = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
                before = _WORDS.findall(text[max(0, m.start() - 200):m.start()])
                run = long_form(short, before)
                if run:
                    found[short][_fold(run)] += 1
    return found


def lexicon(found: dict[str, Counter], min_count: int, share: float) -> dict[str, str]:
    out = {}
    for short, forms in found.items():
        total = sum(forms.values())
        best, n = forms.most_common(1)[0]
        if total >= min_count and n >= share * total:
            out[short] = best
    return dict(sorted(out.items(), key=lambda kv: kv[0].lower()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="+", type=Path, required=True)
    parser.add_argument("--min-count", type=int, default=3)
    parser.add_argument("--share", type=float, default=0.6)
    parser.add_argument("--write", action="store_true", help=f"write {LEXICON / 'acronyms.en.txt'}")
    args = parser.parse_args()
    found = definitions(args.corpora)
    kept = lexicon(found, args.min_count, args.share)
    dropped = [s for s, f in found.items() if sum(f.values()) >= args.min_count and s not in kept]
    print(f"{len(found)} short forms defined; {len(kept)} kept (>= {args.min_count} definitions, one long form >= "
          f"{args.share:.0%}); {len(dropped)} with several meanings left out, e.g. "
          + ", ".join(f"{s}: {' / '.join(f for f, _ in found[s].most_common(2))}" for s in dropped[:5]))
    for short in ("RL", "LLM", "GNN", "ViT", "SAE", "VAE", "MoE", "CL"):
        print(f"  {short}: {kept.get(short, '-')}  {found.get(short, Counter()).most_common(3)}")
    if args.write:
        lines = [f"{short}\t{long}" for short, long in kept.items()]
        (LEXICON / "acronyms.en.txt").write_text(
            "# short form<TAB>long form, learned from ICLR/ICML 2024 abstracts: python -m evals.experiments.acronyms\n"
            + "\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
