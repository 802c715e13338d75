"""Method names in a collection and in a question: how a name is keyed however it is typed (name_key), the table
of names to papers built from titles and labels (method_names), and whether a word is written as a name (name_like).
Pure functions over records and text; the look-ups against the catalog are retrieval/name_gate.py's."""
from __future__ import annotations

import re
import unicodedata

from ragqa.query.names import greek
from ragqa.query.spelling import english_words
from ragqa.text.clean import method_name


def name_key(text: str, cased: bool = False) -> str:
    """How a method name is matched however it is typed: Unicode-folded (G²N² -> G2N2), markup and brackets
    dropped (G$^2$N$^2$, G^2N^2 -> g2n2; SF(DA)$^2$ -> sfda2), lower-cased unless `cased`; letters, digits, -, *, +
    and Greek kept (LoRA+ is not LoRA)."""
    folded = unicodedata.normalize("NFKC", greek(text))
    return re.sub(r"[^\w\-*+α-ωΑ-Ω]|_", "", folded if cased else folded.lower())


# a name an abstract introduces, matched in any case when it holds one of these (JKOnet*, CRATE-α, HiBug2), else as
# written
_UNWORDLIKE = re.compile(r"[\d*+α-ωΑ-Ω]")


def method_names(metas: dict[str, dict], names: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Method names -> papers, for name look-ups: a title's leading name ("DRAGON: ...") and an untitled paper's
    label (DRAGON, JKOnet*), in any case (name_key); the name a titled paper's abstract introduces (its label: BOSS,
    DFR-Det), under "~" + name_key when it holds a digit, star, plus or Greek letter, else under "=" + the name as
    written (BOSS, TRACE and GMG are not boss, trace and gmg). The Searcher takes these last two only when the name
    is the paper's own (few papers carry it: not DNA, GPT-4 or In-Context). Extends `names` (papers added after
    those it holds, in catalog order) when given."""
    names = {} if names is None else names
    touched = set()
    for pid, meta in metas.items():
        label = meta.get("label") or ""
        if 3 <= len(label) <= 30 and " " not in label and "…" not in label:
            if not meta.get("title"):
                key = name_key(label)
            else:
                key = "~" + name_key(label) if _UNWORDLIKE.search(label) else "=" + name_key(label, cased=True)
            names.setdefault(key, []).append(pid)
            touched.add(key)
        name = method_name(meta.get("title"))
        if name and " " not in name and len(name_key(name)) >= 2:
            names.setdefault(name_key(name), []).append(pid)
            touched.add(name_key(name))
    for key in touched:
        names[key] = list(dict.fromkeys(names[key]))
    return names


_NAME_RUN = re.compile(r"[\w\-*+α-ωΑ-Ω]+")  # a run of the characters a name is written with (JKOnet*'s, CRATE-α)


def name_like_words(text: str) -> list[str]:
    """The words of `text` written as names (name_like), each once, in order."""
    return [w for w in dict.fromkeys(w.strip("-") for w in _NAME_RUN.findall(text)) if name_like(w)]


def name_like(word: str) -> bool:
    """A word written as a method name: a capital, digit, star or Greek letter after its first character (InstructGPT,
    SAE-2, JKOnet*, Wasserstein-GAN) or a single-letter part (p-annealing, t-SNE); not an English word, nor a hyphenated
    compound of lower-case words (self-supervised, neuro-symbolic, offline-to-online).
    Nor a number (2022) or the plural of an acronym (SAEs, LLMs: a kind of thing, as clean.py's labels hold)."""
    if len(name_key(word)) < 4 or word.lower() in english_words() or not re.search(r"[^\W\d_]", word):
        return False
    if re.fullmatch(r"[A-Z]+s", word):
        return False
    if re.search(r".[A-Z0-9*+α-ωΑ-Ω]", word):
        return True
    return bool(re.search(r"(?:^|-)[a-z]-|-[a-z]$", word))  # a variable for a part: p-annealing, k-means, h-consistency

