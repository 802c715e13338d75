"""What one question's answer path shares: the AnswerContext (the pipeline, the question and its form, the search
result, the decisions once made, the clock) and the Events an answer streams. Timings are stamped here and only here.
Which strategy answers is ask.py's; what each writes is in explain.py and lists.py."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from ragqa.answer.compose import abstain_text
from ragqa.answer.records import Answer, Source
from ragqa.retrieval.hits import Hit
from ragqa.retrieval.retrieve import SearchResult


@dataclass
class Event:
    kind: str  # "retrieved" | "token" | "done"
    result: SearchResult | None = None
    sources: list[Source] | None = None
    delta: str = ""
    answer: Answer | None = None


@dataclass
class AnswerContext:
    """One question on its way to an answer. The decision fields are set by ask.judge before a strategy that needs
    them runs; `why` says why a not-covered answer is one."""

    pipeline: Any
    question: str
    form: str
    result: SearchResult
    model: str
    llm: Any
    start: float = field(default_factory=time.perf_counter)
    timings: dict = field(default_factory=lambda: {"retrieve_s": 0.0, "first_token_s": None, "total_s": 0.0})
    why: str = ""
    scoped: bool = False  # a question scoped by metadata that no paper answers on its own, answered as a list
    qvec: Any = None
    candidates: list = field(default_factory=list)
    judgement: Any = None
    retrieved: list[Hit] = field(default_factory=list)  # the hits, and the papers the last answer cited
    earlier: list[Hit] = field(default_factory=list)  # the papers the last answer cited, when the question refers back
    subject_checks: dict = field(default_factory=dict)  # the LLM's subject check and phrase, by words (asked once)
    filter_named: tuple[str, ...] = ()  # the papers a filter admitting few names as the answer's (ask.judge)

    @property
    def settings(self):
        return self.pipeline.settings

    @property
    def searcher(self):
        return self.pipeline.searcher

    def stamp(self, *keys: str) -> None:
        """Seconds since the question was asked, under each timing key."""
        for key in keys:
            self.timings[key] = round(time.perf_counter() - self.start, 3)

    def first_token(self) -> None:
        if self.timings["first_token_s"] is None:
            self.stamp("first_token_s")

    def sources_found(self, sources: list[Source], *, first_token: bool = False) -> Event:
        """The retrieved event: the sources the answer will cite (stamped as retrieval's end)."""
        self.stamp("retrieve_s", *(("first_token_s",) if first_token else ()))
        return Event("retrieved", result=self.result, sources=sources)

    def text(self, delta: str) -> Event:
        """A piece of answer text written in code, all at once."""
        self.first_token()
        return Event("token", delta=delta)

    def finish(self, answer: Answer) -> Event:
        self.stamp("total_s")
        answer.timings, answer.model, answer.query, answer.notes = (
            self.timings, self.model, self.result.query, self.result.notes)
        answer.read_from_question = self.result.read_from_question
        return Event("done", result=self.result, answer=answer)

    def not_covered(self, text: str | None = None, why: str | None = None, judgement=None) -> Iterator[Event]:
        """An abstention: `text` (default: the indexed papers don't cover it, saying how many the filters admit)."""
        yield self.sources_found([])
        if text is None:
            filters = self.result.filters
            admitted = len(self.searcher.admitted(filters) or ()) if filters.active() else 0
            text = abstain_text(self.result, self.settings, admitted)
        verdict = judgement.as_json() if judgement is not None else {}
        yield self.finish(Answer(self.question, text, True, "abstain", why if why is not None else self.why,
                                 retrieved=self.result.hits, judgement=verdict))


def final_answer(events: Iterator[Event]) -> Answer:
    """The Answer an event stream ends with (the stream is drained)."""
    for event in events:
        if event.kind == "done":
            return event.answer
    raise RuntimeError("the answer stream ended without an answer")
