"""Abstract text -> clean text for embedding and display, and a short display label.

Handles inline LaTeX ($...$, \\emph{...}), markdown emphasis and links, and broken hyphenation.
It does not touch wording: no stemming, no stop-words, no translation.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

_URL_END = re.compile(r"[)\s]")
_TEX_WRAP = re.compile(r"\\(?:emph|textbf|textit|texttt|textsc|text|mathrm|mathbf|url|href)\{([^{}]*)\}")
_TEX_MATH = re.compile(r"\$([^$]+)\$")
_MD_BOLD = re.compile(r"\*\*([^*]+?)\*\*")
_MD_ITAL = re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])")
_MD_UNDER = re.compile(r"(?<![\w_])_([^_\s][^_]*?)_(?![\w_])")
_SPACED_HYPHEN = re.compile(r"\b([A-Za-z]+)- ([a-z]+)\b")
_INNER_HYPHEN = re.compile(r"\b([a-z]{2,})-([a-z]{2,})\b")
_RUN_ON = re.compile(r"([a-z])\.([A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_SPACES = re.compile(r"\s+")
CJK = re.compile(r"[\u3400-\u9fff]")  # a Chinese (CJK) character: translate the question, answer in Chinese
CONTENT_WORD = re.compile(r"[a-z][a-z0-9\-]{3,}")  # a lower-cased word of 4+ characters, for word-overlap checks


@lru_cache(maxsize=1)
def _latex_converter():
    """The converter and the parser's macro table, made once (pylatexenc's latex_to_text builds the table again for
    every formula unless it is handed one)."""
    from pylatexenc.latex2text import LatexNodes2Text
    from pylatexenc.latexwalker import get_default_latex_context_db

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=False), get_default_latex_context_db()


def _math_to_text(match: re.Match) -> str:
    return _formula_text(match.group(1))


@lru_cache(maxsize=8192)
def _formula_text(inner: str) -> str:
    """A formula as text (~0.2 ms in pylatexenc; half the formulas of ICLR and ICML 2024's abstracts repeat one
    before them: $k$, $\\mathcal{O}(n)$)."""
    try:
        converter, context = _latex_converter()
        text = converter.latex_to_text(inner, latex_context=context)
    except Exception:  # a formula pylatexenc cannot parse stays as written, minus the dollars
        text = inner
    return _SPACES.sub(" ", text).strip()


def clean_text(raw: str) -> str:
    """Readable plain text: LaTeX and markdown markup removed, whitespace folded. Each pattern runs only on text
    holding the character it cannot match without (most abstracts hold no markup; ingest cleans every record)."""
    text = raw.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    if "[" in text:
        text = _replace_links(text)
    if "\\" in text:
        for _ in range(3):  # nested \text{\textit{...}}
            text = _TEX_WRAP.sub(r"\1", text)
    if "$" in text:
        text = _TEX_MATH.sub(_math_to_text, text)
    if "*" in text:
        text = _MD_BOLD.sub(r"\1", text)
        text = _MD_ITAL.sub(r"\1", text)
    if "_" in text:
        text = _MD_UNDER.sub(r"\1", text)
    if "- " in text:
        text = _SPACED_HYPHEN.sub(r"\1-\2", text)  # "state- of-the-art" -> "state-of-the-art"
    text = _RUN_ON.sub(r"\1. \2", text)  # "models.We" -> "models. We"
    return _SPACES.sub(" ", text).strip()


def _replace_links(text: str) -> str:
    r"""[text](url) -> text, or the url when the text is itself a link. The same matches as the regex
    \[([^\]]+)\]\(([^)\s]+)\), in one pass: the regex rescans the rest of the text from every "["
    (quadratic on "[a](" * 20000), while here the "["s before one "]" share its outcome, and the
    url starts before one ")" or space share that end."""
    out, done, url_end = [], 0, -1
    start = text.find("[")
    while start != -1:
        close = text.find("]", start + 1)
        if close == -1:
            break
        url = close + 2
        if close > start + 1 and text.startswith("(", close + 1):
            if url > url_end:
                found = _URL_END.search(text, url)
                url_end = found.start() if found else len(text)
            if url_end > url and text.startswith(")", url_end):
                label = text[start + 1:close]
                out += [text[done:start], text[url:url_end] if label.startswith("http") else label]
                done = url_end + 1
                start = text.find("[", done)
                continue
        start = text.find("[", close + 1)
    return "".join(out) + text[done:]


def corpus_vocabulary(texts: list[str]) -> Counter:
    """Word counts over a corpus, used to repair hyphenation broken by line wrapping."""
    counts: Counter = Counter()
    for text in texts:
        count_words(counts, text)
    return counts


def count_words(counts: Counter, text: str) -> None:
    """Add one text's words to corpus word counts (corpus_vocabulary, a text at a time)."""
    counts.update(map(str.lower, _WORD.findall(text)))


def dehyphenate(text: str, vocabulary: Counter) -> str:
    """Join 'net-works' -> 'networks' when the joined word is common in the corpus and the
    hyphenated form is not: a line-wrap artefact, not a real compound like 'self-supervised'."""

    def join(match: re.Match) -> str:
        joined = match.group(1) + match.group(2)
        if vocabulary.get(joined, 0) >= 2 and vocabulary.get(match.group(0), 0) <= 1:
            return joined
        return match.group(0)

    return _INNER_HYPHEN.sub(join, text)


# Atomic: a name is a whole run of word characters (whatever follows it is never one), so giving
# characters back cannot help a match, and two nested stars over one run backtrack quadratically.
_NAME = r"((?>[A-Z][\w\-]*[A-Z0-9α-ω][\w\-]*)\*?|[a-z]+[A-Z][\w\-]*\*?|[A-Z][a-z]+[A-Z]\w*\*?)"
_INTRO = re.compile(r"\b(?:we|this (?:paper|work)|our (?:method|approach|framework))\s+(?:\w+\s+){0,2}?"
                    r"(?:introduce|propose|present|develop|design|contribute|release|build|call|dub|name|term)s?\b",
                    re.I)
_IN_INTRO = [
    re.compile(r"\b(?:called|dubbed|named|termed|coined)\s+(?:as\s+)?" + _NAME),
    re.compile(r"\(" + _NAME + r"\)"),
    re.compile(r"(?:introduce|propose|present|develop|design|contribute|release|build)s?\s+"
               r"(?:a |an |the )?(?:new |novel |simple |first )?(?:\w+ ){0,3}?" + _NAME + r"(?=[\s,:.(])"),
    re.compile(r"(?:^|\s)" + _NAME + r",\s+(?:a|an|which)\s"),
]
# a hyphenated name none of whose parts has two capitals or a digit is a compound of words (Cross-Task, Multi-Region)
_WORD_COMPOUND = re.compile(r"[A-Za-z][a-z]*(?:-[A-Za-z][a-z]*)+")
_ANYWHERE = re.compile(r"\b(?:called|dubbed|named|termed|coined)\s+(?:as\s+)?" + _NAME)


_NOT_NAMES = {"LLM", "GNN", "CNN", "RL", "AI", "ML", "NLP", "SAE", "MLP", "ViT", "DNN", "MLLM", "LM", "VLM",
              "GPU", "SGD", "PDE", "ODE", "MDP", "KL", "OOD", "IID", "TAMP", "NLE", "DEQ", "API", "CLIP",
              "GPT", "BERT", "NAS", "ICL", "SCM", "CATE", "RLHF", "VAE", "GAN", "LoRA", "MoE", "TD", "LSTD",
              "CBM", "XAI"}


_COMPOUND = re.compile(r"[A-Z][a-z]+(?:-[A-Z]?[a-z]+)+")


def _compound_word(name: str, title: str | None) -> bool:
    """A hyphenated compound of ordinary words ("a Region-Aware medical MLLM", "Confidence-Aware", "Multi-View"), not
    a name, unless the title uses it as one ("Tree-Planner: ...", "... of Skip-Tuning in Diffusion Sampling")."""
    return bool(_COMPOUND.fullmatch(name.rstrip("*"))) and name.lower() not in (title or "").lower()


def _fragment(name: str, after: str) -> bool:
    """A hyphenated word that opens a longer capitalised phrase ("we propose Low-Rank Adaptation, or LoRA": "Low-Rank";
    "Sample-Wise Activation Patterns") is a piece of that phrase, not the paper's name (17 of 4,870 ICLR/ICML 2024
    labels were such pieces)."""
    return "-" in name and bool(re.match(r"\s+[A-Z][a-z]", after))


def _is_name(name: str) -> bool:
    """A method name (DRAGON, JKOnet*, OC-Flow), not a plural acronym of a concept (GNNs, LLMs)."""
    core = name.rstrip("*")
    if core in _NOT_NAMES or core.rstrip("s") in _NOT_NAMES:
        return False
    if len(core) < 3 or sum(c.isupper() for c in core) < 2:
        return False
    return not re.fullmatch(r"[A-Z]+s", core)


def make_label(text: str, title: str | None = None, max_chars: int = 60) -> str:
    """A short name users recognise: the method the abstract introduces (DRAGON, JKOnet*), else
    the title if known, else its first clause, clipped. The title itself is kept apart (Paper.title)."""
    sentences = re.split(r"(?<=[.!?])\s+", text)
    for sentence in sentences:
        if not _INTRO.search(sentence):
            continue
        for pattern in _IN_INTRO:
            for match in pattern.finditer(sentence):
                name = match.group(1).strip("-,.")
                if _is_name(name) and not _compound_word(name, title) and not _fragment(name, sentence[match.end(1):]):
                    return name
    if not (title and method_name(title)):  # "the proposed integration scheme, named GLMix": the name it is given
        for match in _ANYWHERE.finditer(text):
            name = match.group(1).strip("-,.")
            if _is_name(name) and not (title and (_compound_word(name, title) or _WORD_COMPOUND.fullmatch(name))):
                return name
    if title:
        return _clip(title, max_chars + 20)
    first = sentences[0] if sentences else text
    clause = re.match(r"((?:\S+\s+){3,}?\S+?),\s", first)  # up to the first comma after 4+ words
    return _clip(clause.group(1) if clause else first, max_chars)


def _clip(text: str, max_chars: int) -> str:
    text = text.strip().rstrip(".")
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def method_name(title: str | None) -> str | None:
    """The method name a title leads with ("DRAGON: Distributed-order ..." -> "DRAGON"), if any:
    one or two words before a colon, with an inner capital or digit."""
    head = title.split(":", 1)[0].strip() if title and ":" in title else ""
    if head and len(head.split()) <= 2 and 3 <= len(head) <= 24 and re.search(r"[A-Z].*[A-Z0-9]|[a-z][A-Z]", head):
        return head
    return None
