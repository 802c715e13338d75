"""Metadata named in a question -> filters, matched against the values the index holds (not a
fixed list): authors (full name, or a surname that is unambiguous in the collection, "X et al.",
"X's papers", names inside Chinese questions), presentation status (oral / spotlight / poster), and
topic areas or keywords named as such ("in the computer vision area", "keyword: diffusion models").

Venue and year are parsed in retrieve.py; a subject asked about without such a cue is left to
retrieval and answerability. No ranking here.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

from ragqa.ingest.paper import authors_of
from ragqa.text.terms import REQUEST_VERBS, terms

# A surname alone becomes an author after a cue that makes it one: a strong cue ("Bengio et al.", "Bengio's
# papers", "Bengio 等") for any surname, a weak cue ("by Bengio") only for a surname that is no word of the indexed
# texts ("improved by Adam", "the Long context"); with no cue (AuthorIndex._bare, _pair) only for one author's surname
# that is no English word either ("anything from Feizi on …"). Surnames are title-case words (not GAN, LoRA).
_SURNAME = r"(?P<a>[A-Z][a-z\u00c0-\u024f'’-]*[a-z\u00c0-\u024f])(?![\w-])"  # the whole word: not "Fei" of "Fei-Fei"
_WEAK_CUES = (rf"\bby\s+(?:Prof(?:essor)?\.?\s+|Dr\.?\s+)?{_SURNAME}(?!\s*[A-Z])",
              # a Latin-letter name set in Chinese ("我收藏的 Feizi 的论文", "Loureiro 的论文")
              rf"(?:^|(?<=[\u3400-\u9fff])|(?<=[\u3400-\u9fff]\s)){_SURNAME}(?=\s*[\u3400-\u9fff])")
_CUES = (
    rf"{_SURNAME}\s+(?:et al\b|and (?:colleagues|co-?authors|collaborators))",
    rf"{_SURNAME}['’]s\s+(?:papers?|work|works|research|group|lab|publications?)",
    rf"{_SURNAME}\s*(?:等人|等)",
)
# Cues strong enough to say "no indexed paper by X" when X is no indexed author.
_STRONG = (
    r"\b(?:papers?|works?|publications?|research|articles?)\s+(?:written\s+)?by\s+(?P<a>[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){0,2})",
    r"\b(?i:did|has|have)\s+(?P<a>[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){0,2})\s+(?:publish|write|author|co-?author|present|work(?:ed)?\s+on)",
    r"\b(?:is|was|are|were)\s+(?P<a>[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){0,2})\s+working\s+on\b",
    r"(?P<a>[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){0,2})\s+et al\b",
)
_STATUS = {"oral": r"\borals?\b|口头报告", "spotlight": r"\bspotlights?\b|亮点论文", "poster": r"\bposters?\b|海报"}
# The wording of a request about the collection itself, which names no topic: lexicon/frame_words.<lang>.txt
LEXICON = Path(__file__).with_name("lexicon")


def _lexicon(name: str) -> list[str]:
    """The words of lexicon/<name>.txt (a # starts a comment)."""
    text = (LEXICON / f"{name}.txt").read_text(encoding="utf-8")
    return [w for line in text.splitlines() for w in line.split("#", 1)[0].split()]


FRAME_WORDS = set(_lexicon("frame_words.en")) | REQUEST_VERBS
# verbs, adverbs, participles and the nouns a paper frames itself with, learned from how ML abstracts use them
# (evals/experiments/framing_words.py): "fall under the topic X", "carry the label X", "their main findings" name no
# subject; never part of a label test (a label may be a verb)
LEARNED_FRAMING = frozenset(w for name in ("verbs.en", "nouns.en", "participles.en") for w in _lexicon(name))
# function words ("out of the ICLR papers", "among them"): evals/experiments/framing_words.py --function-words
FUNCTION_WORDS = frozenset(_lexicon("function_words.en"))
# the terms ML titles and abstracts write (evals/experiments/research_words.py): a subject word no indexed paper has is
# a research term the library lacks ("federated") when it is one, else request wording or a slip ("pls", "difussion")
RESEARCH_WORDS = frozenset(_lexicon("research_words.en"))
# acronyms and what they stand for, learned from ICLR/ICML 2024 abstracts (evals/experiments/acronyms.py); one that
# is also a function word ("AT", "NO") is read only as that word
ACRONYMS = {short.lower(): long for short, long in
            (line.split("\t", 1) for line in (LEXICON / "acronyms.en.txt").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")) if short.lower() not in FUNCTION_WORDS}
_ACRONYM = re.compile(r"\b(" + "|".join(sorted(map(re.escape, ACRONYMS), key=len, reverse=True)) + r")s?\b", re.I)


def spelled_out(text: str) -> str:
    """`text` with each acronym the abstracts define written out ("papers on RL" -> "papers on reinforcement
    learning"); `text` itself when it holds none."""
    return _ACRONYM.sub(lambda m: ACRONYMS[m.group(1).lower()], text)


# Chinese request wording, matched anywhere in the question (Chinese has no spaces between words)
_ZH_FRAME = re.compile("|".join(map(re.escape, _lexicon("frame_words.zh"))) + r"|[\u3000-\u303f\uff00-\uffef]")


def is_zh_frame(text: str) -> bool:
    """`text` is Chinese request wording alone (frame_words.zh: "库里", "一共有"), naming no subject."""
    return bool(text.strip()) and not _ZH_FRAME.sub("", text).strip()


def fold(name: str) -> str:
    """Case and accents ignored: "Schölkopf" = "scholkopf"."""
    if name.isascii():  # the common case, without Unicode normalisation
        return " ".join(name.split()).lower()
    name = unicodedata.normalize("NFKD", name)
    return re.sub(r"\s+", " ", "".join(c for c in name if not unicodedata.combining(c))).strip().lower()


def _loose_name(name: str) -> str:
    """A name folded without dots and middle initials: "James Y. Zou" and "James Zou" -> "james zou"."""
    words = fold(name).replace(".", " ").split()
    return " ".join(w for i, w in enumerate(words) if len(w) > 1 or i in (0, len(words) - 1))


def _outer_name(name: str) -> str:
    """A name folded to its first and last words: "Ekdeep Singh Lubana" -> "ekdeep lubana"; "" for one word."""
    words = fold(name).replace(".", " ").split()
    return f"{words[0]} {words[-1]}" if len(words) > 1 else ""


@dataclass(frozen=True)
class AuthorMatch:
    span: str  # the words of the question that name the author
    name: str | None = None  # the indexed author's full name, when exactly one matches
    candidates: tuple[tuple[str, int], ...] = ()  # several indexed authors share the surname: (name, papers)
    closest: tuple[str, ...] = ()  # no indexed author has this name: the nearest spellings
    others: tuple[str, ...] = ()  # further indexed authors joined to this one ("by Lubana and Tanaka")

    @property
    def unknown(self) -> bool:
        return self.name is None and not self.candidates


class AuthorIndex:
    """Full names and surnames of every indexed author, with their paper counts."""

    def __init__(self, papers: dict[str, dict]):
        self._texts = papers
        self._vocabulary: set[str] | None = None
        self._term_df = None  # the catalog's term table (use_terms), asked instead of reading every abstract
        self.papers: dict[str, int] = {}  # an author's first spelling -> their papers
        self.full: dict[str, str] = {}  # folded name -> that spelling
        self.surnames: dict[str, list[str]] = {}
        self.add(papers)

    def add(self, papers: dict[str, dict]) -> None:
        """Papers after those indexed (in catalog order): the index one built over all of them gives."""
        for meta in papers.values():
            for name in dict.fromkeys(authors_of(meta)):
                key = fold(name)
                if key not in self.full:
                    self.full[key] = name
                    self.surnames.setdefault(fold(name.split()[-1]), []).append(name)
                self.papers[self.full[key]] = self.papers.get(self.full[key], 0) + 1
        self._vocabulary = self._loose = None

    # saved with a reader's views (snapshot.py) without the records, which stay in the catalog
    def __getstate__(self) -> dict:
        return {**self.__dict__, "_texts": {}, "_loose": None, "_outer": None, "_term_df": None}

    def same_person(self, name: str) -> list[str]:
        """The indexed spellings of `name` up to middle initials and dots ("James Y. Zou" -> James Y Zou, James Zou),
        else those with its given name and surname and middle names it leaves out ("Ekdeep Lubana" -> Ekdeep Singh
        Lubana)."""
        if getattr(self, "_loose", None) is None:
            self._loose: dict[str, list[str]] | None = {}
            self._outer: dict[str, list[str]] = {}
            for spelled in self.full.values():
                self._loose.setdefault(_loose_name(spelled), []).append(spelled)
                if outer := _outer_name(spelled):
                    self._outer.setdefault(outer, []).append(spelled)
        outer = _outer_name(name)
        return self._loose.get(_loose_name(name)) or (self._outer.get(outer, []) if outer else [])

    def attach(self, papers) -> None:
        """The records a loaded index reads on its rare paths (the vocabulary of every abstract)."""
        self._texts = papers

    def use_terms(self, term_df) -> None:
        """The catalog's term table (`term_df(terms)` -> {term: papers}: TermStats.df), which says whether
        the indexed texts hold a word without reading them: at 1M papers the vocabulary is minutes and gigabytes."""
        self._term_df = term_df

    def in_texts(self, word: str) -> bool:
        """Whether an indexed paper writes `word` (a surname that is also a term, "Adam", is no bare name): asked of the
        term table when there is one (titles and texts, plurals folded as terms.py folds them), else of the vocabulary
        of every abstract."""
        if getattr(self, "_term_df", None) is not None:
            found = terms(word)
            return not found or bool(self._term_df(found))
        return fold(word) in self.vocabulary

    @property
    def vocabulary(self) -> set[str]:
        """Every word of the indexed abstracts (built when in_texts first needs it and no term table is attached)."""
        if self._vocabulary is None:
            self._vocabulary = {w for m in self._texts.values()
                                for w in re.findall(r"[a-z]+", (m.get("text") or "").lower())}
        return self._vocabulary

    def _initialled(self, question: str) -> AuthorMatch | None:
        """An indexed author written as initials and surname ("S. Basu" for Samyadeep Basu): the one whose given names
        start so, or the candidates when several do."""
        for m in _INITIALLED.finditer(question):
            names = [n for n in self.surnames.get(fold(m[2]), []) if _initials_fit(m[1], n)]
            span = f"{m[1]}{m[2]}".strip()
            if len(names) == 1:
                return AuthorMatch(span, names[0])
            if names:
                ranked = sorted(names, key=lambda a: (-self.papers[a], a))
                return AuthorMatch(span, candidates=tuple((a, self.papers[a]) for a in ranked))
        return None

    def full_names(self, question: str) -> list[str]:
        """Every indexed author's full name the question writes ("work by Hidenori Tanaka and Ekdeep Singh Lubana"),
        as spans of the question, longest first, for telling a request about people from one about a subject."""
        from ragqa.query.spelling import english_words

        # "Chen Zhu's" -> Chen Zhu
        words = [re.sub(r"['’]s$", "", w) for w in re.findall(r"[^\W\d_][\w'’.-]*", question)]
        any_case = question == question.lower()  # "yoshua bengio" in an all-lowercase question
        found = []
        for n in (4, 3, 2):
            for i in range(len(words) - n + 1):
                span = " ".join(words[i:i + n]).rstrip(".'’")
                # written in lower case, a name is read as one when a word of it is no English word ("hidenori
                # tanaka's work on LLMs"); "will smith" must be capitalised
                if ((fold(span) in self.full or self.same_person(span))
                        and (any_case or all(w[0].isupper() for w in words[i:i + n])
                             or not all(w.lower().rstrip(".") in english_words() for w in words[i:i + n]))):
                    found.append(span)
        return found

    def find(self, question: str) -> AuthorMatch | None:
        """The author the question names, an ambiguous surname, or a strongly cued unknown name; with the indexed
        authors joined to it by "and", "&", a comma, 和 or 与 ("papers by Lubana and Tanaka": `others`). In a question
        written all in lower case, indexed surnames that are no English word and no word of the indexed texts are
        read as if capitalised (_pair, _bare); the cue rules are not (an unknown name needs its capitals)."""
        match = self._one(question) or self._pair(question)
        if match is None and question == question.lower():  # "lubana & tanaka on icl?": surnames read capitalised
            question = re.sub(r"[^\W\d_]+", lambda m: m[0].capitalize(), question)
            match = self._pair(question) or self._bare(question)
        return self._joined(question, match) if match is not None and match.name else match

    def _resolved(self, span: str) -> str | None:
        """The indexed author a span names: a full name (up to middle initials) or a surname one author has."""
        span = re.sub(r"['’]s$", "", span).rstrip(".'’")
        if fold(span) in self.full:
            return self.full[fold(span)]
        if same := self.same_person(span):
            return max(same, key=lambda a: self.papers[a])
        names = self.surnames.get(fold(span), [])
        return names[0] if len(names) == 1 else None

    def _joined(self, question: str, match: AuthorMatch) -> AuthorMatch:
        """`match` with every indexed author written next to it, joined by _JOIN, on either side."""
        names, start = [match.name], question.find(match.span)  # in the question's order
        if start < 0:
            return match
        end = start + len(match.span)
        while True:
            after = re.match(_JOIN + _NAME, question[end:])
            before = re.search(_NAME.replace("(?P<a>", "(?P<b>") + _JOIN + "$", question[:start])
            if after and (found := self._longest(after["a"].split())) and found[1] not in names:
                names.append(found[1])
                end += after.start("a") + len(found[0])
            elif before and (found := self._longest(before["b"].split(), last=True)) and found[1] not in names:
                names.insert(0, found[1])
                start = before.end("b") - len(found[0])
            else:
                break
        if len(names) == 1:
            return match
        return replace(match, span=question[start:end], name=names[0], others=tuple(names[1:]))

    def _longest(self, words: list[str], last: bool = False) -> tuple[str, str] | None:
        """(the words, the author they name) for the longest leading (`last`: trailing) run of `words` that names
        an indexed author."""
        for n in range(len(words), 0, -1):
            run = " ".join(words[-n:] if last else words[:n])
            if name := self._resolved(run):
                return run, name
        return None

    def _pair(self, question: str) -> AuthorMatch | None:
        """Two surnames joined by _JOIN, each one indexed author's and no word of the indexed texts, name authors
        without any other cue ("Lubana and Tanaka on in-context learning?")."""
        for m in re.finditer(_SURNAME.replace("(?P<a>", "(?P<b>") + _JOIN + _SURNAME, question):
            found = [self._resolved(w) if not self.in_texts(w) else None for w in (m["b"], m["a"])]
            if all(found) and found[0] != found[1]:
                return AuthorMatch(m["b"], found[0])
        return None

    def _one(self, question: str) -> AuthorMatch | None:
        full = self.full_names(question)  # full names first, longest first
        if full:
            return AuthorMatch(full[0], self._resolved(full[0]))
        initialled = self._initialled(question)
        if initialled:
            return initialled
        for cue, weak in [(c, False) for c in _CUES] + [(c, True) for c in _WEAK_CUES]:
            for m in re.finditer(cue, question):
                word = m["a"].rstrip(".'’")
                names = self.surnames.get(fold(word))
                if not names or (weak and self.in_texts(word)):
                    continue
                if len(names) == 1:
                    return AuthorMatch(word, names[0])
                ranked = sorted(names, key=lambda a: (-self.papers[a], a))
                return AuthorMatch(word, candidates=tuple((a, self.papers[a]) for a in ranked))
        for cue in _STRONG:
            m = re.search(cue, question)
            if m and not (set(fold(m["a"]).split()) & FRAME_WORDS):
                span = m["a"].rstrip(".'’")
                names = self.surnames.get(fold(span), [])  # "Did Bau write anything on …": a known surname
                if len(names) == 1:
                    return AuthorMatch(span, names[0])
                if names:
                    ranked = sorted(names, key=lambda a: (-self.papers[a], a))
                    return AuthorMatch(span, candidates=tuple((a, self.papers[a]) for a in ranked))
                pool = list(self.full) + list(self.surnames)
                near = difflib.get_close_matches(fold(span), pool, n=5, cutoff=0.75)
                closest = tuple(dict.fromkeys(self.full.get(k) or self.surnames[k][0] for k in near))
                return AuthorMatch(span, closest=closest[:3])
        return self._bare(question)

    def _bare(self, question: str) -> AuthorMatch | None:
        """A capitalised word that is one indexed author's surname, no English word and no word of the indexed texts,
        names that author without any cue ("anything from Feizi on multimodal LLMs?"), as two such surnames joined do
        (_pair); a surname several authors share needs a cue."""
        from ragqa.query.spelling import english_words

        for m in re.finditer(_SURNAME, question):
            word = m["a"]
            names = self.surnames.get(fold(word), [])
            if (len(names) == 1 and word.lower() not in english_words()
                    and fold(word) not in FRAME_WORDS and fold(word) not in FUNCTION_WORDS
                    and not self.in_texts(word)):
                return AuthorMatch(word, names[0])
        return None


# what joins two authors' names, and a name after it (up to four capitalised words)
_JOIN = r"\s*(?:,\s*(?:and\s+)?|&|\band\b|和|与|及|跟)\s*"
_NAME = r"(?P<a>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})"
_INITIALLED = re.compile(r"(?<![\w.])((?:[A-Z]\.\s*){1,2})([A-Z][^\W\d_][\w'’-]*)")  # "S. Basu", "J.-P. Smith" is not


def _initials_fit(initials: str, name: str) -> bool:
    given = [fold(w)[0] for w in name.split()[:-1] if w]
    wanted = [c.lower() for c in initials if c.isalpha()]
    return bool(given) and given[:len(wanted)] == wanted


def status_in(question: str, statuses: set[str]) -> str | None:
    """The presentation statuses the question names, spelled as the index holds them, if it holds them: "Oral", or
    "Oral or Spotlight" for a question naming two (a paper with either is admitted: Filters.statuses)."""
    held = {s.lower(): s for s in statuses}
    named = [held[status] for status, pattern in _STATUS.items()
             if status in held and re.search(pattern, question, re.I)]
    return " or ".join(named) or None


def subject_of(question: str, spans: list[str]) -> str:
    """The words left once the matched metadata spans and request wording go, in order: the question's subject
    ("Which ICLR 2024 papers in the collection deal with large language models?" -> "deal large language models")."""
    rest = question
    for span in sorted(filter(None, spans), key=len, reverse=True):
        rest = re.sub(span_pattern(span), " ", rest, flags=re.I)
    rest = _ZH_FRAME.sub(" ", rest).lower()
    # function words go too ("out of the ICLR papers, how many …"); a hyphenated word stays whole (_subject_word)
    return " ".join(w for w in re.findall(r"[^\W_]+(?:-[^\W_]+)*", rest) if _subject_word(w))


def _subject_word(word: str) -> bool:
    """A word of the subject: no function or request wording, number or single letter. A hyphenated word is a term,
    kept whole as the collection's terms hold it ("in-context", "out-of-distribution": text.terms), unless the request
    wording holds it ("co-authored") or it is function words and numbers only."""
    if "-" in word:
        return (word not in FRAME_WORDS and not is_learned_framing(word)
                and any(part not in FUNCTION_WORDS and not part.isdigit() for part in word.split("-")))
    return (word not in FUNCTION_WORDS and word not in FRAME_WORDS and not is_learned_framing(word)
            and not word.isdigit() and len(word) > 1 and not _slipped_wording(word))


def span_pattern(span: str) -> str:
    """A span's words with any punctuation or none between them, as the question may write them ("Transparency, and
    Interpretability" of a label's "Transparency and Interpretability", "NeurIPS'24"); the span itself when it has no
    word."""
    words = re.findall(r"[^\W_]+", span)
    if not words:
        return re.escape(span)
    before = r"(?<![A-Za-z0-9])" if words[0][0].isascii() else ""  # Chinese writes no space around a span
    after = r"(?![A-Za-z0-9])" if words[-1][-1].isascii() else ""
    return before + r"[\W_]*".join(map(re.escape, words)) + after


def _slipped_wording(word: str) -> bool:
    """Request wording typed with a slip ("evrything", "pleese"): a word of five or more letters that is no English
    word (spelling.english_words) and one slip (spelling.slips) from a frame or function word."""
    from ragqa.query.spelling import english_words, slips

    return (len(word) >= 5 and word.isascii() and word not in english_words()
            and not slips(word).isdisjoint(FRAME_WORDS | FUNCTION_WORDS))


def is_learned_framing(word: str) -> bool:
    """A word of the learned framing lexicons, or the singular of one ("result" of "results", "finding")."""
    return word in LEARNED_FRAMING or word + "s" in LEARNED_FRAMING


def names_a_topic(question: str, spans: list[str]) -> bool:
    """Whether anything but metadata and request wording is left once the matched spans go:
    "What did Yoshua Bengio publish here?" names no topic; "Bengio's papers on causality" does."""
    return bool(subject_of(question, spans))


def _norm(word: str) -> str:
    w = word.lower() if word.isascii() else fold(word)
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def _words(text: str) -> tuple[str, ...]:
    """Folded words with light plural folding: "Graph Neural Networks" -> (graph, neural, network)."""
    return tuple(_norm(w) for w in re.findall(r"[^\W_]+", text))


# the question marks a phrase as a label of the collection, not a subject, right next to it: "the X area",
# "X track", "X topic", "topic: X", "the keyword X", Chinese "X 领域 / 主题 / 关键词"
# (not 类别: "与类别相关" is "class-relevant")
_CUE_WORD = r"(?:(?:primary\s+|subject\s+|topic\s+)?areas?|topics?|tracks?|categor(?:y|ies)|keywords?)"
_CUE_AFTER = re.compile(rf"^\W{{0,3}}(?:{_CUE_WORD}\b|\s*(?:领域|主题|关键词))", re.I)
ZH_CUE = re.compile(r"领域|主题|关键词")  # a Chinese question's cue, for a label read from its translation
_CUE_BEFORE = re.compile(r"\b(?:(?:primary\s+|subject\s+|topic\s+)?areas?|topics?|categor(?:y|ies)|keywords?)\s*"
                         r"(?:of|on|:|called|named|labell?ed|标成|标为|标记为|标注为|是|为)?\s*(?:the\s+)?[\"“'‘]?\s*$",
                         re.I)  # not "keep track of X"


def _cued(question: str, start: int, end: int) -> bool:
    """The question calls the phrase a label: a cue word beside it, or the phrase quoted whole as the collection writes
    it ("categorized under 'Interpretability'", "filed under “Deep Learning · Theory”")."""
    return bool(_CUE_AFTER.search(question[end:end + 24]) or _CUE_BEFORE.search(question[max(0, start - 40):start])
                or _quoted(question, start, end))


_OPEN, _CLOSE = "\"'“‘«「『", "\"'”’»」』"


def _quoted(question: str, start: int, end: int) -> bool:
    before, after = question[:start].rstrip(), question[end:].lstrip()
    return bool(before) and bool(after) and before[-1] in _OPEN and after[0] in _CLOSE


def keywords_of(meta: dict) -> list[str]:
    """A paper's keywords (stored joined by ", " in its extra fields)."""
    import json

    try:
        extra = (json.loads(meta.get("extra") or "{}") if isinstance(meta.get("extra"), str)
                 else dict(meta.get("extra") or ()))
    except ValueError:
        return []
    return [k.strip() for k in str(extra.get("keywords") or "").split(",") if k.strip()]


def label_parts(topic: str) -> list[str]:
    """A topic label's parts as the listing separates them ("Deep Learning->Robustness", "Theory · Learning Theory")."""
    return [part for part in re.split(r"\s*(?:·|->|>|;|\|)\s*", topic.strip()) if part]


def topic_parts(meta: dict) -> set[tuple[str, ...]]:
    """The phrases a paper is labelled with: its topic, each part of it ("Deep Learning->Robustness":
    deep learning, robustness), and its keywords, as folded word tuples."""
    topic = meta.get("topic") or ""
    pieces = [topic, *label_parts(topic), *keywords_of(meta)]
    return {w for w in map(_words, pieces) if w}


@dataclass(frozen=True)
class TopicMatch:
    span: str  # the question's words that name the label
    phrase: tuple[str, ...]  # the label phrase, folded
    papers: frozenset[str]  # the papers labelled with it
    cued: bool  # the question calls it an area / topic / track / keyword
    titled: frozenset[str] = frozenset()  # the papers whose title says it, word for word

    @property
    def carried(self) -> str:
        """The label and how many papers carry it in their topic, keywords or title (as a list's lead counts them):
        "robustness (3 papers carry it)"."""
        n = len(self.papers | self.titled)
        return f"{self.span} ({n} paper{'s carry' if n != 1 else ' carries'} it)"


class TopicIndex:
    """Every topic-area part and keyword the indexed papers carry, with the papers under each."""

    def __init__(self, papers: dict[str, dict]):
        self.labelled: dict[tuple[str, ...], set[str]] = {}
        # every run of words inside a label -> the papers under it: a cued phrase may name part of a label
        # ("vision area" -> Computer Vision), and a topic filter matches any run
        self.within: dict[tuple[str, ...], set[str]] = {}
        self._papers = papers
        self.add(papers)

    def add(self, papers: dict[str, dict]) -> None:
        """Papers after those indexed: the index one built over all of them gives."""
        labelled: dict[tuple[str, ...], set[str]] = {}
        for pid, meta in papers.items():
            for phrase in topic_parts(meta):
                labelled.setdefault(phrase, set()).add(pid)
        for p, ids in labelled.items():
            if not self._names_something(p):  # a label made of request words only ("papers", "other") or one short word
                continue
            self.labelled.setdefault(p, set()).update(ids)
            for i in range(len(p)):
                for j in range(i + 1, len(p) + 1):
                    self.within.setdefault(p[i:j], set()).update(ids)
        self.longest = max(map(len, self.labelled), default=0)
        self._titles: dict[str, tuple[str, ...]] | None = None  # built on first use: few questions need it
        self._title_words: dict[str, set[str]] = {}

    # saved with a reader's views (snapshot.py) without the records, which stay in the catalog
    def __getstate__(self) -> dict:
        return {**self.__dict__, "_papers": {}}

    def attach(self, papers) -> None:
        """The records a loaded index reads on its rare paths (every title, when a phrase is looked up in them)."""
        self._papers = papers

    def papers_of(self, phrase: str) -> set[str]:
        """Papers whose topic contains the phrase or that carry it as a keyword ("vision" finds
        "Computer Vision"; "learning theory" finds "Theory · Learning Theory")."""
        return set(self.within.get(_words(phrase), ()))

    @staticmethod
    def _names_something(phrase: tuple[str, ...]) -> bool:
        return not all(w in FRAME_WORDS for w in phrase) and (len(phrase) > 1 or len(phrase[0]) >= 4)

    def titled(self, phrase: tuple[str, ...]) -> set[str]:
        """Papers whose title holds the phrase word for word (plurals folded)."""
        if self._titles is None:
            self._titles = {pid: _words(m.get("title") or "") for pid, m in self._papers.items() if m.get("title")}
            for pid, words in self._titles.items():
                for w in words:
                    self._title_words.setdefault(w, set()).add(pid)
        if not phrase or any(w not in self._title_words for w in phrase):
            return set()
        n, titles = len(phrase), self._titles
        pool = set.intersection(*(self._title_words[w] for w in phrase))
        return {pid for pid in pool if any(titles[pid][i:i + n] == phrase for i in range(len(titles[pid]) - n + 1))}

    def find(self, question: str) -> TopicMatch | None:
        """The longest label phrase the question contains word for word (plurals folded); when the
        question calls it an area, topic, track or keyword, also a part of a label."""
        raw = list(re.finditer(r"[^\W_]+", question))
        words = tuple(_norm(m[0]) for m in raw)
        for inner in (False, True):  # a whole label first; a part of one only where the question calls it an area
            for n in range(min(self.longest, len(words)), 0, -1):
                for i in range(len(words) - n + 1):
                    phrase = words[i:i + n]
                    start, end = raw[i].start(), raw[i + n - 1].end()
                    if phrase not in (self.within if inner else self.labelled) or not self._names_something(phrase):
                        continue
                    cued = _cued(question, start, end)
                    if inner and not cued:
                        continue
                    span = question[start:end]  # as written: "transfer learning, meta learning"
                    return TopicMatch(span, phrase, frozenset(self.within[phrase]), cued,
                                      frozenset() if cued else frozenset(self.titled(phrase)))
        return None
