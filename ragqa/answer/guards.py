"""Repairs of a model's draft answer, each a named guard that a model profile turns on or off.

A small local model (the packaged 1.5B) writes "[1] shows ..." for a paper's name, names a paper
without its marker, writes a sentence with no subject ("introduces low-rank adapters ... [1]."), copies an
abstract's "we" as if the answer's author had written the paper,
stops after one sentence that restates the topic, or refuses a question the answerability model
accepted; a strong model mostly does not, and its refusal is worth trusting. Which guard fired is recorded in the
Answer (`guards`), so evals and the UI trace show what was repaired. Citation checks that keep an
answer honest (every sentence cites a source that supports it: citations.py, support.py) are not guards: they always
run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ragqa.config import GuardSettings

# Settings.guards' defaults (frozen): a profile's knobs and the checks' default arguments here and in compose.py
DEFAULT_KNOBS = GuardSettings()

CITE_NAMED = "cite-named"  # a sentence naming a source, without its marker, cites it
# an uncited sentence the claim-support check credits to a source the answer cites (any source, when it cites none)
# gets that marker
CITE_SUPPORTED = "cite-supported"
NAME_BARE_MARKERS = "name-bare-markers"  # "[1] shows ..." -> "DiffAug [1] shows ..."
NAME_SUBJECT = "name-subject"  # "introduces X [1]." -> "DiffAug introduces X [1]."
REFUSAL_TO_QUOTES = "refusal-to-quotes"  # a refusal of an accepted question -> the quoted evidence
QUOTE_TOP_UP = "quote-top-up"  # a one- or two-sentence answer gets its paper's own closest sentences, quoted
QUOTE_NAMED = "quote-named"  # a paper the question names that the answer leaves uncited gets its closest sentence
THIRD_PERSON = "third-person"  # "we show ... [1]" copied from an abstract -> "the authors show ... [1]"
EXAMPLE_LEAK = "example-leak"  # a sentence copied from the prompt's worked examples, not the sources, is dropped
REPEAT = "repeat"  # a sentence that says again what an earlier one of the answer said is dropped
# a cited sentence with a number its sources do not hold ("FID 17.4 [1]") is dropped
GROUNDED_NUMBERS = "grounded-numbers"
GUARDS = (CITE_NAMED, CITE_SUPPORTED, NAME_BARE_MARKERS, NAME_SUBJECT, REFUSAL_TO_QUOTES, QUOTE_TOP_UP, QUOTE_NAMED,
          THIRD_PERSON, EXAMPLE_LEAK, REPEAT, GROUNDED_NUMBERS)


@dataclass(frozen=True)
class ModelProfile:
    name: str
    guards: frozenset[str]
    knobs: GuardSettings = DEFAULT_KNOBS  # the thresholds its guards and checks use (Settings)

    def on(self, guard: str) -> bool:
        return guard in self.guards

    @property
    def trusts_refusal(self) -> bool:
        """A refusal of an accepted question abstains; else it is quoted, and the prompt offers none."""
        return not self.on(REFUSAL_TO_QUOTES)


PROFILES = {
    "small": ModelProfile("small", frozenset(GUARDS)),
    # a capable model: its refusal abstains (with the nearest papers), its sentences are not re-worded
    "strong": ModelProfile("strong", frozenset({CITE_NAMED, CITE_SUPPORTED, QUOTE_NAMED, EXAMPLE_LEAK,
                                                GROUNDED_NUMBERS})),
}


def profile_for(settings) -> ModelProfile:
    """Settings.model_profile; "auto" is "small": the backend does not say which model serves it (the
    served deployment runs the packaged 1.5B behind an OpenAI-compatible server). Choose "strong" for a
    capable model. Its knobs are Settings.guards."""
    return replace(PROFILES["small" if settings.model_profile == "auto" else settings.model_profile],
                   knobs=settings.guards)


# a sentence that opens with a lower-case verb of what a paper does ("introduces", "proposes") has lost its subject
_SUBJECTLESS = re.compile(
    r"^(?:also\s+)?(?:introduces|proposes|presents|shows|studies|develops|provides|uses|demonstrates|finds|"
    r"analy[sz]es|explores|investigates|addresses|achieves|improves|reduces|outperforms|offers|describes|evaluates|"
    r"examines|establishes|derives|proves|focuses|aims|leverages|employs|applies|extends|enables|allows|"
    r"is|was|has|can|introduced|proposed|presented)\b")


def name_subject(sentence: str, name_of) -> str | None:
    """The sentence with its cited paper named as subject, or None when it has a subject already.
    `name_of(n)` -> the name of source n, or None."""
    stripped = sentence.lstrip()
    if not _SUBJECTLESS.match(stripped):
        return None
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", sentence)]
    name = name_of(numbers[0]) if numbers else None
    return f"{name} {stripped}" if name else None


# the authors' first person, outside quotation marks: "We observe", "our method", "allows us", "我们"
_FIRST_PERSON = {"we": "the authors", "We": "The authors", "our": "their", "Our": "Their", "us": "them", "我们": "作者"}
_PRONOUN = re.compile(r"\b(?:[Ww]e|[Oo]ur|us)\b|我们")


def third_person(sentence: str) -> str | None:
    """The sentence with an abstract's first person ("we", "our", "us") put in the third person ("the authors",
    "their", "them"), quoted spans left as they are; None when it has none. The citation says which paper's authors."""
    parts = re.split(r"(\"[^\"]*\"|“[^”]*”)", sentence)
    changed = [part if i % 2 else _PRONOUN.sub(lambda m: _FIRST_PERSON[m.group(0)], part)
               for i, part in enumerate(parts)]
    out = "".join(changed)
    return out if out != sentence else None


_MARKERS = re.compile(r"\[[\d,;\s–-]+\]")  # citation markers, "[1]", "[2, 3]"


@dataclass(frozen=True)
class WorkedExamples:
    """What the prompt's worked examples say (their answers' units) and which papers they name: none of it is
    about the user's sources."""
    units: frozenset[str]
    names: tuple[str, ...]


def leaks_example(sentence: str, examples: WorkedExamples, sources_text: str, question: str,
                  knobs: GuardSettings = DEFAULT_KNOBS) -> bool:
    """True when the sentence repeats a worked example instead of the sources: it names an example's paper that no
    source names, or half its units (knobs.leak_share, at least knobs.leak_min_units of them: config.GuardSettings)
    are the examples' wording, found neither in the question nor in the sources (a Chinese sentence's character pairs
    cannot be in an English abstract, so they count unless the question has them)."""
    from ragqa.text.sentences import text_units

    plain = _MARKERS.sub(" ", sentence)
    for name in examples.names:
        pattern = r"(?<![\w-])" + re.escape(name) + r"(?![\w-])"
        if re.search(pattern, plain, re.I) and not re.search(pattern, sources_text, re.I):
            return True
    units = text_units(plain) - text_units(question)
    if not units:
        return False
    leaked = (units & examples.units) - text_units(sources_text)
    # one shared word is no copy: "Yes, X keeps its interpretability ... [1]" for "Does X keep ...?" has only "keeps"
    return len(leaked) >= knobs.leak_min_units and len(leaked) / len(units) >= knobs.leak_share


def repeats(units: frozenset[str], earlier: list[frozenset[str]],
            knobs: GuardSettings = DEFAULT_KNOBS) -> bool:
    """True when one earlier sentence of the answer already holds knobs.repeat_share of these units (text_units), and
    they are at least knobs.repeat_min_units: a share of one or two units says little."""
    return (len(units) >= knobs.repeat_min_units
            and any(len(units & e) / len(units) >= knobs.repeat_share for e in earlier))


# a figure worth checking: two or more digits, or a decimal, or a percentage ("17.4", "10,000", "3%", "2x" is not one);
# a lone small integer is too often an enumeration or a spelled-out count ("two stages") to check by its digits
_FIGURE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+\.\d+|\d{2,}|\d+(?=\s*%))(?![\w])")


def figures(text: str) -> set[str]:
    """The figures a text states, commas dropped ("10,000" -> "10000")."""
    return {m.replace(",", "") for m in _FIGURE.findall(text)}


def ungrounded_figures(sentence: str, sources_text: str, question: str = "") -> set[str]:
    """Figures of a model's sentence that neither the cited sources' text (abstract, title, venue, year) nor the
    question holds: written by the model, not read."""
    return figures(sentence) - figures(sources_text) - figures(question)
