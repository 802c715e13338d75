"""Ranked papers -> numbered evidence prompt -> LLM -> Answer whose citations are checked in code.

Markers [n] are mapped to the papers numbered in the prompt; markers that point nowhere and
sentences without a valid citation are dropped and reported. When the model cites nothing, an
extractive answer (top evidence sentences, cited) replaces it. Retrieval is done by the caller.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np
from llama_index.core.base.llms.types import ChatMessage, MessageRole

from .corpus import authors_of
from .clean import CJK, CONTENT_WORD
from .config import Settings
from .guards import CITE_NAMED, CITE_SUPPORTED, NAME_SUBJECT, PROFILES, ModelProfile, name_subject
from .prompts import example_turns, render
from .retrieve import Hit, SearchResult

REFUSAL = "The indexed papers do not answer this question."
_REFUSAL_HINTS = re.compile(r"do not answer this question|don't answer this question|cannot answer|无法回答|不能回答|没有.{0,8}(回答|涉及|提到)", re.I)
_MARKER = re.compile(r"\[(\d+(?:\s*(?:,|;|-|–|and)\s*\d+)*)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])(?:\s*(?:\[[\d,;\s–-]+\])+)?\s+|(?<=[。！？])")
_DELIM = re.compile(r"</?\s*source[^>]*>", re.I)
_CONTRIBUTION = re.compile(r"\b(?:we|this (?:paper|work))\s+(?:\w+\s+)?(?:introduce|propose|present|develop)s?\b", re.I)
_STOP = {"this", "that", "with", "from", "their", "they", "which", "these", "those", "paper", "papers", "work",
         "method", "approach", "also", "such", "into", "using", "used", "uses", "have", "been", "more", "than"}


@dataclass(frozen=True)
class Source:
    n: int
    hit: Hit
    evidence: tuple[str, ...]
    closeness: float = 0.0  # best cosine of any of its sentences to the question
    closest: tuple[str, ...] = ()  # its sentences ranked by closeness to the question, best first (what a quote uses)


@dataclass(frozen=True)
class Citation:
    n: int
    paper_id: str
    label: str
    venue: str | None
    year: int | None
    authors: list[str]
    abstract: str
    evidence: str
    title: str | None = None

    def as_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Answer:
    question: str
    text: str
    abstained: bool
    mode: str  # "llm" | "extractive" | "list" | "abstain"
    # abstention: "weak match" | "weak evidence" | "unknown name" | "model refused";
    # extractive: "model refused" (a strong match, so the refusal was not trusted) | "no supported sentence"
    why: str = ""
    citations: list[Citation] = field(default_factory=list)
    retrieved: list[Hit] = field(default_factory=list)
    invalid_markers: list[str] = field(default_factory=list)
    dropped_sentences: list[str] = field(default_factory=list)
    query: str = ""
    notes: list[str] = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    model: str = ""
    form: str = ""  # intent.classify: "list" | "count" | "explain"
    judgement: dict = field(default_factory=dict)  # answerability: per-paper P, decision, listed papers
    table: list[dict] = field(default_factory=list)  # group answers: {"group", "count", "papers": [paper ids]} per row
    counted: list[str] = field(default_factory=list)  # list and count answers: every paper counted (the text shows list_max)
    guards: list[str] = field(default_factory=list)  # the model profile's repairs that changed this answer (guards.py)

    def as_json(self, id_: str | None = None) -> dict:
        out = {"id": id_} if id_ is not None else {}
        out.update({
            "question": self.question, "answer": self.text, "abstained": self.abstained, "mode": self.mode, "why": self.why,
            "citations": [c.as_json() for c in self.citations],
            "retrieved": [h.as_json() for h in self.retrieved],
            "invalid_markers": self.invalid_markers, "dropped_sentences": self.dropped_sentences,
            "query": self.query, "notes": self.notes, "timings": self.timings, "model": self.model,
            "form": self.form, "judgement": self.judgement, "table": self.table, "counted": self.counted,
            "guards": self.guards,
        })
        return out


# -- evidence -----------------------------------------------------------------------------------
# a full stop after these abbreviations ends no sentence, in abstracts or answers ("Smith et al. (2023)", "e.g. BERT")
_ABBREVIATIONS = ("et al", r"e\.g", r"i\.e", "vs", "cf", "Fig", "Eq", "Sec", "resp")
_BEFORE_STOP = "".join(rf"(?<!\b{a})" for a in _ABBREVIATIONS)  # lookbehinds for the position of a full stop
_AFTER_STOP = "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATIONS)  # ... and for the position just after it


def split_sentences(text: str) -> list[str]:
    parts = re.split(rf"(?<=[.!?]){_AFTER_STOP}\s+(?=[A-Z0-9(\"'])", text.strip())
    return [p.strip() for p in parts if len(p.strip()) > 2]


def select_evidence(question_vec, hits: list[Hit], embedder, settings: Settings, query: str = "", cache=None) -> list[Source]:
    """Per paper: the sentence stating its contribution, then the sentences closest to the question
    (cosine plus a bonus for sharing the question's content words), kept in abstract order.
    `cache` (evidence.SentenceCache) reuses sentence vectors across questions."""
    from .evidence import SentenceCache

    query_words = _words(query) - {"what", "which", "does", "paper"}
    embedded = (cache or SentenceCache(embedder, split_sentences)).get(hits)
    q = np.asarray(question_vec)
    sources = []
    for n, (hit, (sents, vectors)) in enumerate(zip(hits, embedded), 1):
        label = hit.meta.get("label") or ""
        q_paper = q
        if query and len(label) >= 3 and label.lower() in query.lower():  # the name says nothing within its paper
            q_paper = np.asarray(embedder.get_query_embedding(re.sub(re.escape(label), "it", query, flags=re.I)))
        sims = vectors @ q_paper if sents else np.zeros(0)
        closeness = float((vectors @ q).max()) if sents else 0.0
        words = query_words - _words(label)
        if words and sents:
            sims = sims + np.array([0.3 * len(words & _words(x)) / len(words) for x in sents])
        # the sentence that says what the paper contributes comes first, then the closest ones
        intro = next((i for i, sentence in enumerate(sents) if _CONTRIBUTION.search(sentence)), None)
        ranked = np.argsort(-sims).tolist()
        order = ([intro] if intro is not None else []) + [i for i in ranked if i != intro]
        keep = sorted(order[: settings.evidence_sentences])
        sources.append(Source(n=n, hit=hit, evidence=tuple(sents[i] for i in keep), closeness=closeness,
                              closest=tuple(sents[i] for i in ranked[:2])))
    return sources


def count_tokens(text: str) -> int:
    import tiktoken

    return len(tiktoken.get_encoding("cl100k_base").encode(text))


def _own_name(meta: dict) -> str | None:
    """A paper's title or method name, else its authors ("Basu et al."); None for an untitled,
    authorless listing, whose label is only the opening words of its abstract."""
    label = meta.get("label") or ""
    if meta.get("title") or (not label.endswith("…") and len(label.split()) <= 3):
        return label
    surnames = [a.split()[-1] for a in authors_of(meta)]
    complete = not meta.get("authors_truncated")
    if not surnames:
        return None
    if len(surnames) == 1 and complete:
        return surnames[0]
    if len(surnames) == 2 and complete:
        return f"{surnames[0]} and {surnames[1]}"
    return f"{surnames[0]} et al."


def paper_name(meta: dict, chinese: bool = False, opening: bool = False) -> str:
    """What an answer calls a paper in its own text: its own name (title, method, authors), else its
    venue ("an ICLR 2025 paper"; `opening`: "An ICLR 2025 paper", to start a line): never the opening
    words of its abstract. The prompt keeps the label: with author names in its sources the 1.5B
    answered more near-miss questions (issue notes)."""
    own = _own_name(meta)
    if own:
        return own
    venue = meta.get("venue") or ""
    if chinese:
        return f"{venue} 的一篇论文" if venue else "一篇论文"
    article = ("An" if venue[:1] in "AEIOU" else "A") if venue else "A"
    name = f"{article} {venue} paper" if venue else f"{article} paper"
    return name if opening else name[0].lower() + name[1:]


def render_sources(sources: list[Source], settings: Settings) -> str:
    blocks = []
    for s in sources:
        evidence = _DELIM.sub(" ", " ".join(s.evidence))  # an abstract cannot close its own block
        label = _DELIM.sub(" ", s.hit.meta.get("label") or "")
        label = label if len(label) <= 40 else label[:38].rsplit(" ", 1)[0] + "…"
        blocks.append(render(settings.prompts_dir, "source", n=s.n, label=label,
                             venue=s.hit.meta.get("venue") or "venue unknown", evidence=evidence))
    return "\n".join(blocks)


def fit_budget(sources: list[Source], settings: Settings) -> list[Source]:
    """Drop the last sentence of the lowest-ranked paper (then the paper) until the sources fit."""
    sources = list(sources)
    while sources and count_tokens(render_sources(sources, settings)) > settings.prompt_budget:
        last = sources[-1]
        if len(last.evidence) > 1:
            sources[-1] = replace(last, evidence=last.evidence[:-1])
        elif len(sources) > 1:
            sources.pop()
        else:  # one sentence that is itself too long: clip by words
            words = last.evidence[0].split()
            sources[-1] = replace(last, evidence=(" ".join(words[: max(10, len(words) * 2 // 3)]),))
            if len(words) <= 10:
                break
    return sources


def answer_language(question: str) -> str:
    return "Chinese (简体中文)" if CJK.search(question) else "English"


def build_messages(question: str, sources: list[Source], settings: Settings) -> list[ChatMessage]:
    """System + worked examples first (a fixed prefix the KV cache reuses), then the sources."""
    system = render(settings.prompts_dir, "system", max_sentences=4, refusal=REFUSAL)
    messages = [ChatMessage(role=MessageRole.SYSTEM, content=system)]
    language = answer_language(question)
    turns = example_turns(settings.prompts_dir, refusal=REFUSAL)
    if language != "English":  # last, so English prompts keep their cached prefix
        turns += example_turns(settings.prompts_dir, "examples_zh", refusal=REFUSAL)
    for role, text in turns:
        messages.append(ChatMessage(role=MessageRole.USER if role == "user" else MessageRole.ASSISTANT, content=text))
    messages.append(ChatMessage(role=MessageRole.USER, content=render(
        settings.prompts_dir, "qa", sources=render_sources(sources, settings), question=question,
        language=language)))
    return messages


# -- citations ----------------------------------------------------------------------------------
def parse_markers(text: str) -> list[tuple[str, list[int]]]:
    """Every marker and the numbers in it: '[1, 3]' -> [1, 3]; '[2-4]' -> [2, 3, 4]."""
    found = []
    for match in _MARKER.finditer(text):
        numbers: list[int] = []
        for part in re.split(r"\s*(?:,|;|and)\s*", match.group(1)):
            bounds = re.split(r"\s*[-–]\s*", part)
            if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit() and int(bounds[1]) - int(bounds[0]) < 10:
                numbers += list(range(int(bounds[0]), int(bounds[1]) + 1))
            elif part.strip().isdigit():
                numbers.append(int(part))
        found.append((match.group(0), numbers))
    return found


def split_answer_sentences(text: str) -> list[str]:
    """Sentences with their trailing markers attached ('... works [1]. Next' -> '... works [1].')."""
    out, start = [], 0
    for match in re.finditer(rf"(?:{_BEFORE_STOP}\.|[!?。！？])(?:\s*\[[\d,;\s–-]+\])*(?=\s|$)|(?<=\])\s*\n|\n", text):
        piece = text[start:match.end()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def _words(text: str) -> set[str]:
    return {w for w in CONTENT_WORD.findall(text.lower()) if w not in _STOP}


def supporting_source(sentence: str, sources: list[Source], allowed: set[int]) -> int | None:
    """The cited source whose label + evidence contain most of an uncited sentence's content
    words (at least 60%), or None: then the sentence is unsupported."""
    words = _words(sentence)
    if len(words) < 2:
        return None
    best, score = None, 0.0
    for s in sources:
        if s.n not in allowed:
            continue
        overlap = len(words & _words(" ".join(s.evidence) + " " + (s.hit.meta.get("label") or ""))) / len(words)
        if overlap > score:
            best, score = s.n, overlap
    return best if score >= 0.6 else None


def _supported(sentence: str, cited: list[Source], minimum: float = 0.34) -> bool:
    """A cited sentence must share at least a third of its content words with what it cites
    (label + evidence). Checks English only: a Chinese sentence is not compared word by word."""
    if CJK.search(sentence):
        return True
    words = _words(_MARKER.sub(" ", sentence))
    if len(words) < 3:
        return True
    names = " ".join(s.hit.meta.get("label") or "" for s in cited if " " not in (s.hit.meta.get("label") or ""))
    found = _words(" ".join(" ".join(s.evidence) for s in cited) + " " + names)  # a clause label is no evidence
    return len(words & found) / len(words) >= minimum


def _shown_name(meta: dict) -> str | None:
    """A paper's label when it is a real name (title or method), else None. The prompt shows a label
    over 40 characters cut short, so a long title is matched only when the model writes it whole."""
    label = meta.get("label") or ""
    own = _own_name(meta)
    return label if own == label and len(label) >= 3 else None


def cite_named(sentence: str, sources: list[Source]) -> str:
    """A sentence without markers that names sources by their shown names cites them: the 1.5B
    often writes "SILENCE 是…" or "[D4S]" in Chinese answers instead of [n]."""
    if _MARKER.search(sentence):
        return sentence
    named = []
    for s in sources:
        name = _shown_name(s.hit.meta)
        if not name:
            continue
        sentence, bracketed = re.subn(r"\[\s*" + re.escape(name) + r"\s*\]", name, sentence, flags=re.I)  # "[D4S]" -> "D4S"
        if bracketed or re.search(r"(?<![A-Za-z0-9-])" + re.escape(name) + r"(?![A-Za-z0-9-])", sentence, re.I):
            named.append(s.n)
    if not named:
        return sentence
    marks = "".join(f"[{n}]" for n in named)
    return re.sub(r"\s*([.!?。！？]?)\s*$", lambda m: f" {marks}{m.group(1)}", sentence, count=1)


def resolve_citations(text: str, sources: list[Source], profile: ModelProfile | None = None,
                      fired: list[str] | None = None) -> tuple[str, list[int], list[str], list[str]]:
    """-> (answer with only valid markers, cited numbers in order, invalid markers, dropped sentences).
    A sentence keeps its place only if it cites a numbered source, or (guards of the model profile,
    recorded in `fired`) names one (cite_named), or is found in the evidence of a source the answer
    cites elsewhere (then that marker is added). A subjectless sentence gets its paper's name."""
    profile = profile or PROFILES["small"]
    fired = fired if fired is not None else []
    by_n = {s.n: s for s in sources}
    valid = set(by_n)
    kept, cited, invalid, dropped = [], [], [], []
    pending: list[tuple[int, str]] = []  # (position in kept, uncited sentence)
    for sentence in split_answer_sentences(text):
        if profile.on(CITE_NAMED):
            named = cite_named(sentence, sources)
            if named != sentence:
                fired.append(CITE_NAMED)
            sentence = named
        numbers_here: list[int] = []

        def fix(match: re.Match) -> str:
            numbers = [n for _, ns in parse_markers(match.group(0)) for n in ns]
            good = [n for n in dict.fromkeys(numbers) if n in valid]
            if len(good) < len(set(numbers)):
                invalid.append(match.group(0))
            numbers_here.extend(good)
            return "".join(f"[{n}]" for n in good)

        cleaned = _MARKER.sub(fix, sentence)
        # "…问题。[1]。[2]。" -> "…问题 [1][2]。": markers written as sentences of their own
        cleaned = re.sub(r"\s*[。.]\s*((?:\[\d+\]\s*[。.]?\s*)+)$",
                         lambda m: " " + "".join(re.findall(r"\[\d+\]", m.group(1))) + ("。" if "。" in m.group(0) else "."), cleaned)
        cleaned = re.sub(r"(?:\[\d+\]\s*){2,}", lambda m: "".join(f"[{n}]" for n in dict.fromkeys(re.findall(r"\d+", m.group(0)))), cleaned)
        cleaned = re.sub(r"\s+(?=[.,;!?。])", "", cleaned).strip()
        if numbers_here and not _supported(cleaned, [s for s in sources if s.n in numbers_here]):
            dropped.append(cleaned)  # cites a source that does not contain what it claims
            continue
        if numbers_here:
            if profile.on(NAME_SUBJECT):
                subject = name_subject(cleaned, lambda n: _own_name(by_n[n].hit.meta) if n in by_n else None)
                if subject:
                    fired.append(NAME_SUBJECT)
                    cleaned = subject
            kept.append(re.sub(r"(\])(?=\w)", r"\1 ", cleaned))
            for n in numbers_here:
                if n not in cited:
                    cited.append(n)
        elif re.search(r"\w", cleaned):
            pending.append((len(kept), cleaned))
            kept.append("")
    for position, sentence in pending:
        n = supporting_source(sentence, sources, set(cited)) if profile.on(CITE_SUPPORTED) else None
        if n is None:
            dropped.append(sentence)
        else:
            fired.append(CITE_SUPPORTED)
            kept[position] = re.sub(r"([.!?。！？]?)$", lambda m: f" [{n}]{m.group(1)}", sentence, count=1)
    return " ".join(k for k in kept if k), cited, invalid, dropped


_BARE = re.compile(r"(^|(?<=[.!?。！？]\s)|(?:\b(?:include|includes|including|are|is|and|see)|[,:、：和及包括])\s*)\[(\d+)\](?=[\s,.;:、，。和及]|$)")


def name_bare_markers(text: str, sources: list[Source]) -> str:
    """A marker used as a noun ("… include [1], [2], and [3]", "[1] shows …") gets the paper's name
    in front of it; untitled, authorless papers are called by venue ("an ICLR 2025 paper")."""
    by_n = {s.n: s for s in sources}

    def name(match: re.Match) -> str:
        source = by_n.get(int(match.group(2)))
        if source is None:
            return match.group(0)
        meta = source.hit.meta
        called = paper_name(meta)  # untitled and authorless: called by its venue
        if CJK.search(text) and not _own_name(meta):
            called = f"{meta.get('venue') or ''}论文"
        return f"{match.group(1)}{called} [{match.group(2)}]"
    return _BARE.sub(name, text)


def extractive_answer(sources: list[Source], question: str, max_papers: int = 3) -> tuple[str, list[int]]:
    """The honest fallback: what each top paper says closest to the question, quoted and cited: two
    sentences of the best paper (in abstract order), one of each other (not the abstract's opener)."""
    lines, cited = [], []
    for rank, s in enumerate(sources[:max_papers]):
        picked = list(s.closest[: 2 if rank == 0 else 1] or s.evidence[:1])
        if not picked:
            continue
        text = s.hit.meta.get("text") or ""
        picked.sort(key=lambda x: text.find(x))
        lines.append(f"{paper_name(s.hit.meta, bool(CJK.search(question)), opening=True)}: \"{' '.join(picked)}\" [{s.n}]")
        cited.append(s.n)
    head = "相关论文原文摘录：" if CJK.search(question) else "From the most relevant papers:"
    return head + "\n" + "\n".join(f"- {line}" for line in lines), cited


def quote_top_up(text: str, sources: list[Source], cited: list[int], question: str, minimum: int = 3,
                 most: int = 2) -> str:
    """A thin answer (under `minimum` sentences) gets up to `most` of its first cited paper's sentences
    closest to the question, quoted and cited, that it does not already state (half their content words)."""
    have = len(split_answer_sentences(text))
    source = next((s for s in sources if cited and s.n == cited[0]), None)
    if source is None or have >= minimum:
        return text
    said = _words(text)
    new = [x for x in source.closest if len(_words(x) & said) < 0.5 * max(1, len(_words(x)))][: min(most, minimum - have)]
    if not new:
        return text
    body = source.hit.meta.get("text") or ""
    new.sort(key=lambda x: body.find(x))
    head = "原文：" if CJK.search(question) else f"In {paper_name(source.hit.meta)}'s words:"  # "In an ICLR 2024 paper's words:"
    return f"{text}\n\n{head} \"{' '.join(new)}\" [{source.n}]"


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL_HINTS.search(text))


def make_citations(numbers: list[int], sources: list[Source]) -> list[Citation]:
    by_n = {s.n: s for s in sources}
    out = []
    for n in numbers:
        s = by_n[n]
        m = s.hit.meta
        out.append(Citation(
            n=n, paper_id=s.hit.paper_id, label=m.get("label") or "", venue=m.get("venue") or None,
            year=m.get("year") or None, authors=authors_of(m),
            abstract=m.get("abstract") or "", evidence=" ".join(s.evidence), title=m.get("title") or None,
        ))
    return out


def abstain_text(result: SearchResult, settings: Settings) -> str:
    near = [h for h in result.hits[:3] if (h.relevance or 0) >= settings.min_relevance - 0.1]
    zh = bool(CJK.search(result.question))
    text = "已索引的论文没有涉及这个问题。" if zh else "The indexed papers don't cover this question."
    if result.missing_name:
        name = result.missing_name
        mentions = result.missing_verb == "mentions"
        text = (f"已索引的论文中没有{'提到' if mentions else '提出'} {name} 的论文。" if zh
                else f"No indexed paper {'mentions' if mentions else 'introduces'} {name}, so they don't cover this question.")
    if near:
        names = ", ".join(f"{h.meta.get('label')} ({h.meta.get('venue') or '?'})" for h in near)
        text += (f" 最接近的论文：{names}。" if zh else f" Nearest papers, which may not answer it: {names}.")
    return text
