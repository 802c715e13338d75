"""The model's answer -> only its sentences that cite a numbered source supporting what they claim (the fitted
claim-support check, support.py), markers that point nowhere dropped and reported, then the cited sources -> Citation
records. The repairs a model profile turns on (guards.py) are applied here; answer text written in code is compose.py's.
"""
from __future__ import annotations

import re
from dataclasses import replace

from ragqa.answer.guards import (
    CITE_NAMED,
    CITE_SUPPORTED,
    EXAMPLE_LEAK,
    GROUNDED_NUMBERS,
    NAME_SUBJECT,
    PROFILES,
    REPEAT,
    THIRD_PERSON,
    ModelProfile,
    WorkedExamples,
    leaks_example,
    name_subject,
    repeats,
    third_person,
    ungrounded_figures,
)
from ragqa.answer.naming import own_name, paper_name
from ragqa.answer.records import Citation, Source
from ragqa.answer.support import MARKER, ClaimSupport, load_claim_support, source_text
from ragqa.ingest.paper import authors_of
from ragqa.text.clean import CJK
from ragqa.text.sentences import BEFORE_STOP, content_words, text_units

_MARKER = MARKER  # the answer's markers, as the claim-support features read them


def parse_markers(text: str) -> list[tuple[str, list[int]]]:
    """Every marker and the numbers in it: '[1, 3]' -> [1, 3]; '[2-4]' -> [2, 3, 4]."""
    found = []
    for match in _MARKER.finditer(text):
        numbers: list[int] = []
        for part in re.split(r"\s*(?:,|;|and)\s*", match.group(1)):
            bounds = re.split(r"\s*[-–]\s*", part)
            if (len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit()
                    and int(bounds[1]) - int(bounds[0]) < 10):
                numbers += list(range(int(bounds[0]), int(bounds[1]) + 1))
            elif part.strip().isdigit():
                numbers.append(int(part))
        found.append((match.group(0), numbers))
    return found


def split_answer_sentences(text: str) -> list[str]:
    """Sentences with their trailing markers attached ('... works [1]. Next' -> '... works [1].')."""
    out, start = [], 0
    # Chinese needs no space after its full stop; markers written after it, even as sentences of their own, stay
    for match in re.finditer(rf"(?:{BEFORE_STOP}\.|[!?])(?:\s*\[[\d,;\s–-]+\])*(?=\s|$)"
                             rf"|[。！？](?:\s*\[[\d,;\s–-]+\]\s*[。！？]?)*|(?<=\])\s*\n|\n", text):
        piece = text[start:match.end()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def supporting_source(sentence: str, sources: list[Source], allowed: set[int], question: str = "",
                      check: ClaimSupport | None = None) -> int | None:
    """The allowed source (those the answer cites, or every source when it cites none) an uncited sentence is
    credited to: the one holding most of its words, when the claim-support `check` (the fitted one unless given) keeps
    the sentence against it under the `question` (ClaimSupport.credited); else None: the sentence is unsupported. A
    sentence that is little more than a paper's name ("Fine-Tuning Enhances Existing.." for a label cut short) claims
    nothing: None. A Chinese sentence is not compared word by word (as a cited one is not): it gets the one source the
    answer cites elsewhere, or the only source the model was given, or among several the one that holds every
    Latin-letter name it writes."""
    if CJK.search(sentence):
        only = allowed or ({sources[0].n} if len(sources) == 1 else set())
        if len(only) == 1:
            return next(iter(only))
        # among several, the one source holding every name the sentence writes in Latin letters (B-cosification, CLIP)
        names = {w.lower() for w in _LATIN_NAME.findall(sentence)}
        holders = [s.n for s in sources if s.n in only and names and all(n in _source_text(s) for n in names)]
        return holders[0] if len(holders) == 1 else None
    words = content_words(sentence)
    if len(words - content_words(" ".join(s.hit.meta.get("label") or "" for s in sources))) < 2:
        return None
    return (check or load_claim_support()).credited(
        sentence, {s.n: source_text(s.hit.meta, s.evidence) for s in sources if s.n in allowed}, question)


_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9*+-]*[A-Z0-9*+-][A-Za-z0-9*+-]*|[A-Z][a-z]{2,}")


def _source_text(source: Source) -> str:
    meta = source.hit.meta
    return f"{meta.get('label') or ''} {meta.get('title') or ''} {' '.join(source.evidence)}".lower()


def _record_text(source: Source) -> str:
    """Everything a source's paper states: its evidence, whole text, title, venue and year."""
    meta = source.hit.meta
    return " ".join(str(x) for x in (meta.get("text") or source.hit.text or "", meta.get("title") or "",
                                     meta.get("label") or "", meta.get("venue") or "", meta.get("year") or "",
                                     *source.evidence))


def _supported(sentence: str, cited: list[Source], check: ClaimSupport, question: str = "") -> bool:
    """A cited sentence is kept when the claim-support `check` finds it supported by what it cites (their label, title,
    venue, year and evidence, joined), the `question`'s own words being no support: "The 2022 World Cup was won by
    France [1]." shares no word with its source and is dropped whatever the question. A Chinese or wordless sentence
    ("Yes [1].") is not scored: kept."""
    return check.supported(sentence, " ".join(source_text(s.hit.meta, s.evidence) for s in cited), question)


def _shown_name(meta: dict) -> str | None:
    """A paper's label when it is a real name (title or method), else None. The prompt shows a label
    over 40 characters cut short, so a long title is matched only when the model writes it whole."""
    label = meta.get("label") or ""
    own = own_name(meta)
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
        # "[D4S]" -> "D4S"
        sentence, bracketed = re.subn(r"\[\s*" + re.escape(name) + r"\s*\]", name, sentence, flags=re.I)
        if bracketed or re.search(r"(?<![A-Za-z0-9-])" + re.escape(name) + r"(?![A-Za-z0-9-])", sentence, re.I):
            named.append(s.n)
    if not named:
        return sentence
    marks = "".join(f"[{n}]" for n in named)
    return re.sub(r"\s*([.!?。！？]?)\s*$", lambda m: f" {marks}{m.group(1)}", sentence, count=1)


def resolve_citations(text: str, sources: list[Source], profile: ModelProfile | None = None,
                      fired: list[str] | None = None, question: str = "",
                      examples: WorkedExamples | None = None) -> tuple[str, list[int], list[str], list[str]]:
    """-> (answer with only valid markers, cited numbers in order, invalid markers, dropped sentences).
    A sentence keeps its place only if it cites a numbered source, or (guards of the model profile,
    recorded in `fired`) names one (cite_named), or is credited to a source the answer cites elsewhere (then that
    marker is added), and only if the claim-support check finds that source supporting it, the `question`'s own words
    being no support. A subjectless sentence gets its paper's name; one that repeats the prompt's worked `examples`
    instead of the sources is dropped (guard example-leak), and so is one that says again what an earlier sentence
    said (guard repeat). The thresholds are the profile's knobs (config.GuardSettings)."""
    profile = profile or PROFILES["small"]
    knobs = profile.knobs
    check = load_claim_support()
    if knobs.claim_support_threshold is not None:
        check = replace(check, threshold=knobs.claim_support_threshold)
    fired = fired if fired is not None else []
    by_n = {s.n: s for s in sources}
    valid = set(by_n)
    kept, cited, invalid, dropped = [], [], [], []
    pending: list[tuple[int, str]] = []  # (position in kept, uncited sentence)
    given = " ".join(_source_text(s) for s in sources)
    said: list[frozenset[str]] = []  # the units of each sentence let through so far
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
                         lambda m: " " + "".join(re.findall(r"\[\d+\]", m.group(1)))
                         + ("。" if "。" in m.group(0) else "."), cleaned)
        cleaned = re.sub(r"(?:\[\d+\]\s*){2,}",
                         lambda m: "".join(f"[{n}]" for n in dict.fromkeys(re.findall(r"\d+", m.group(0)))), cleaned)
        cleaned = re.sub(r"\s+(?=[.,;!?。])", "", cleaned).strip()
        if (examples and profile.on(EXAMPLE_LEAK) and re.search(r"\w", cleaned)
                and leaks_example(cleaned, examples, given, question, knobs)):
            fired.append(EXAMPLE_LEAK)
            dropped.append(cleaned)
            continue
        units = text_units(_MARKER.sub(" ", cleaned))
        if profile.on(REPEAT) and repeats(units, said, knobs):
            fired.append(REPEAT)
            dropped.append(cleaned)
            continue
        if numbers_here and not _supported(cleaned, [s for s in sources if s.n in numbers_here], check, question):
            dropped.append(cleaned)  # cites a source that does not contain what it claims
            continue
        if numbers_here and profile.on(GROUNDED_NUMBERS) and ungrounded_figures(
                _MARKER.sub(" ", cleaned), " ".join(_record_text(by_n[n]) for n in numbers_here), question):
            fired.append(GROUNDED_NUMBERS)  # "… reaches FID 17.4 on ImageNet [1]" where [1] reports no FID
            dropped.append(cleaned)
            continue
        if numbers_here:
            if profile.on(NAME_SUBJECT):
                subject = name_subject(cleaned, lambda n: own_name(by_n[n].hit.meta) if n in by_n else None)
                if subject:
                    fired.append(NAME_SUBJECT)
                    cleaned = subject
            if profile.on(THIRD_PERSON):
                moved = third_person(cleaned)
                if moved:
                    fired.append(THIRD_PERSON)
                    cleaned = moved
            kept.append(re.sub(r"(\])(?=\w)", r"\1 ", cleaned))
            said.append(units)
            for n in numbers_here:
                if n not in cited:
                    cited.append(n)
        elif re.search(r"\w", cleaned):
            pending.append((len(kept), cleaned))
            kept.append("")
            said.append(units)
    # an answer that cites nothing at all is compared with every source it was given
    allowed = set(cited) or set(by_n)
    for position, sentence in pending:
        n = supporting_source(sentence, sources, allowed, question, check) if profile.on(CITE_SUPPORTED) else None
        if n is None:
            dropped.append(sentence)
        else:
            fired.append(CITE_SUPPORTED)
            if n not in cited:  # a Chinese sentence given the only source
                cited.append(n)
            moved = third_person(sentence) if profile.on(THIRD_PERSON) else None
            if moved:
                fired.append(THIRD_PERSON)
                sentence = moved
            kept[position] = re.sub(r"([.!?。！？]?)$", lambda m: f" [{n}]{m.group(1)}", sentence, count=1)
    return " ".join(k for k in kept if k), cited, invalid, dropped


_BARE = re.compile(r"(^|(?<=[.!?。！？]\s)|(?:\b(?:include|includes|including|are|is|and|see)|[,:、：和及包括])\s*)"
                   r"\[(\d+)\](?=[\s,.;:、，。和及]|$)")


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
        if CJK.search(text) and not own_name(meta):
            called = f"{meta.get('venue') or ''}论文"
        return f"{match.group(1)}{called} [{match.group(2)}]"
    return _BARE.sub(name, text)


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
