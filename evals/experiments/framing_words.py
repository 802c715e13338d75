"""Words that name no subject, learned from how ML abstracts use them: `ragqa/query/lexicon/verbs.en.txt` and
`nouns.en.txt`.

A question about the collection is a filter plus, maybe, a subject: what is left once the filter's words and the
request wording go ("Which ICLR 2024 papers fall under the topic 'Computer Vision'?" leaves "fall"). A hand-written
list of request words cannot hold every verb a person may frame a request with, so this reads the verbs off real text:
in the abstracts and titles of ICLR and ICML 2024 (9,000+ papers), a word that follows a modal, a negation or a
subject pronoun ("can", "may", "not", "we", "they", ...) in at least `v` of its uses, seen at least `--min-count`
times, is a verb or an adverb there; one that no author keyword of those papers contains is never an ML subject by
itself. Such words are request wording, not a subject. With `--nouns` the same is done for the nouns a paper frames
itself with, "our findings", "their contributions", "these limitations": a word that follows a possessive or
demonstrative ("our", "their", "its", "these", "those") in at least `v` of its uses and that no author keyword holds is
a framing noun ("Gal Vardi papers: what are their main findings?" asks for a summary, not about findings). With
`--participles`, words after a form of "be" ("is built on", "are prone to"): "which ones are built around GANs".

The knob `v` is set on labelled words: the words of the papers' author keywords (subject words) are split in half by
a hash; `v` is the lowest value at which at most `--subject-rate` of half A's words (seen often enough) would be
taken for verbs; the rate on half B is reported. Keyword words themselves never enter the list.

    python -m evals.experiments.framing_words --corpora ../shared/data/corpora/iclr2024.jsonl \
        ../shared/data/corpora/icml2024.jsonl [--nouns] [--write]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

LEXICON = Path(__file__).resolve().parents[2] / "ragqa" / "query" / "lexicon"
# the words after which English puts a verb (or an adverb before one), not a noun
VERB_CONTEXT = frozenset({"can", "may", "will", "would", "could", "should", "might", "must", "not", "cannot", "we",
                          "they", "does", "do", "did", "often", "also"})
# the words after which English puts the noun a paper frames itself with
NOUN_CONTEXT = frozenset({"our", "their", "its", "these", "those"})
# the words after which English puts a participle or a predicate adjective ("is built on", "are prone to")
BE_CONTEXT = frozenset({"is", "are", "was", "were", "been", "be", "being"})
_WORD = re.compile(r"[a-z]+")


def usage(paths: list[Path], context: frozenset[str] = VERB_CONTEXT) -> tuple[Counter, Counter, set[str]]:
    """Per word: its uses, its uses after a word of `context`, and the words of every author keyword."""
    seen, after_verb, keyword_words = Counter(), Counter(), set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            words = _WORD.findall(f"{r.get('title') or ''}. {r.get('abstract') or ''}".lower())
            for before, word in zip(["<s>", *words], words):
                seen[word] += 1
                after_verb[word] += before in context
            for keyword in r.get("keywords") or []:
                keyword_words.update(_WORD.findall(str(keyword).lower()))
    return seen, after_verb, keyword_words


def _half(word: str) -> bool:
    return int(hashlib.sha1(word.encode()).hexdigest()[:8], 16) % 2 == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", type=Path, nargs="+", required=True)
    ap.add_argument("--min-count", type=int, default=20)
    ap.add_argument("--subject-rate", type=float, default=0.01,
                    help="share of subject (keyword) words allowed to be taken for verbs")
    ap.add_argument("--nouns", action="store_true", help="framing nouns (nouns.en.txt) instead of verbs (verbs.en.txt)")
    ap.add_argument("--participles", action="store_true",
                    help="participles and predicate adjectives (participles.en.txt) instead of verbs")
    ap.add_argument("--function-words", action="store_true",
                    help="function words (function_words.en.txt): NLTK's stop words as bm25s ships them, and "
                         "scikit-learn's that no author keyword holds standing alone ('system', 'fire' "
                         "stay subjects; 'one' of 'one-shot' does not keep 'one')")
    ap.add_argument("--write", action="store_true", help="write the lexicon file")
    args = ap.parse_args()
    if args.function_words:
        return _function_words(standalone_keyword_words(args.corpora), args.write)
    kind = "nouns" if args.nouns else "participles" if args.participles else "verbs"
    out = LEXICON / f"{kind}.en.txt"
    context = {"nouns": NOUN_CONTEXT, "participles": BE_CONTEXT, "verbs": VERB_CONTEXT}[kind]
    seen, after_verb, keyword_words = usage(args.corpora, context)
    rate = {w: after_verb[w] / n for w, n in seen.items() if n >= args.min_count}
    subjects = defaultdict(list)
    for w in keyword_words:
        if w in rate:
            subjects["A" if _half(w) else "B"].append(rate[w])
    # the lowest v (on a 0.01 grid) at which at most subject_rate of half A's subject words reach it
    v = next(x / 100 for x in range(1, 101)
             if sum(r >= x / 100 for r in subjects["A"]) <= args.subject_rate * len(subjects["A"]))
    flagged_b = sum(r >= v for r in subjects["B"])
    verbs = sorted(w for w, r in rate.items() if r >= v and w not in keyword_words and len(w) > 2)
    report = {"v": v, "subject_words_A": len(subjects["A"]), "subject_words_B": len(subjects["B"]),
              "half_B_taken_for_verbs": f"{flagged_b}/{len(subjects['B'])}", "words": len(verbs)}
    print(json.dumps(report))
    print(" ".join(verbs))
    if args.write:
        what, context = {"nouns": ("Nouns a paper frames itself with", "a possessive or demonstrative"),
                         "participles": ("Participles and predicate adjectives", "a form of 'be'"),
                         "verbs": ("Verbs and adverbs", "a modal, negation or pronoun")}[kind]
        out.write_text(
            f"# {what}, never an ML subject by themselves: request wording in a question about the collection.\n"
            "# Learned, not hand-written: python -m evals.experiments.framing_words --corpora "
            f"{' '.join(p.name for p in args.corpora)}{'' if kind == 'verbs' else ' --' + kind} --write\n"
            f"# ({report['words']} words after {context} in >= {v:.0%} of >= {args.min_count} uses "
            f"in ICLR/ICML 2024 abstracts; no author keyword holds them; subject words so taken, held out: "
            f"{report['half_B_taken_for_verbs']})\n"
            + "\n".join(" ".join(verbs[i:i + 12]) for i in range(0, len(verbs), 12)) + "\n", encoding="utf-8")


def standalone_keyword_words(paths: list[Path]) -> set[str]:
    """The words of the author keywords that stand alone in one ("one" of "one-shot learning" does not: a hyphenated
    term keeps its function words in a question's subject, so only a standalone use makes one a subject word)."""
    found = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                for keyword in json.loads(line).get("keywords") or []:
                    found.update(w for w in re.findall(r"[a-z]+(?:-[a-z]+)*", str(keyword).lower()) if "-" not in w)
    return found


def _function_words(keyword_words: set[str], write: bool) -> None:
    from bm25s.stopwords import STOPWORDS_EN_PLUS
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    words = sorted(set(STOPWORDS_EN_PLUS) | {w for w in ENGLISH_STOP_WORDS if w not in keyword_words})
    print(len(words), " ".join(words))
    if write:
        (LEXICON / "function_words.en.txt").write_text(
            "# Function words, never an ML subject by themselves (a hyphenated term keeps them: off-policy).\n"
            "# Not hand-written: NLTK's English stop words (bm25s.stopwords.STOPWORDS_EN_PLUS) and scikit-learn's\n"
            "# ENGLISH_STOP_WORDS less every word standing alone in an ICLR/ICML 2024 author keyword: python -m\n"
            "# evals.experiments.framing_words --corpora iclr2024.jsonl icml2024.jsonl --function-words --write\n"
            + "\n".join(" ".join(words[i:i + 16]) for i in range(0, len(words), 16)) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
