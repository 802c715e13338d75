"""The records an answer is made of: Source (a numbered paper and the evidence shown for it),
Citation and Answer, with their JSON form. No logic: evidence, prompting, citations and compose fill
them, and ask.py wires those stages together.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ragqa.retrieval.hits import Hit


@dataclass(frozen=True)
class Source:
    n: int
    hit: Hit
    evidence: tuple[str, ...]
    closeness: float = 0.0  # best cosine of any of its sentences to the question
    # its sentences closest to the question, best first, its own part before its background (what a quote uses)
    closest: tuple[str, ...] = ()


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
    mode: str  # "llm" | "extractive" | "list" | "record" (a field of the papers' records: who wrote X) | "abstain"
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
    # list and count answers: every paper counted (the text shows list_max)
    counted: list[str] = field(default_factory=list)
    guards: list[str] = field(default_factory=list)  # the model profile's repairs that changed this answer (guards.py)
    # "answered": the indexed papers answer it; "related": papers on its subject, none answering the specific ask (a
    # list of weaker matches only); "not_covered": abstained. Empty: read from `abstained`
    coverage: str = ""
    # what the question itself was read as (filters taken from it, a topic label as its whole subject): the UI shows
    # these with an undo button (SearchResult.read_from_question)
    read_from_question: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.coverage = self.coverage or ("not_covered" if self.abstained else "answered")

    def as_json(self, id_: str | None = None) -> dict:
        out = {"id": id_} if id_ is not None else {}
        out.update({
            "question": self.question, "answer": self.text, "abstained": self.abstained, "mode": self.mode,
            "why": self.why,
            "citations": [c.as_json() for c in self.citations],
            "retrieved": [h.as_json() for h in self.retrieved],
            "invalid_markers": self.invalid_markers, "dropped_sentences": self.dropped_sentences,
            "query": self.query, "notes": self.notes, "timings": self.timings, "model": self.model,
            "form": self.form, "judgement": self.judgement, "table": self.table, "counted": self.counted,
            "guards": self.guards, "coverage": self.coverage, "read_from_question": self.read_from_question,
        })
        return out
