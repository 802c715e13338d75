"""A chat's memory, one object for the CLI, the UI and the evals: the earlier questions (a follow-up
is rewritten from them) and the papers the last answer cited (what "they" / "this paper" refer to).
It stores no answers and does no retrieval: Pipeline.ask / Pipeline.stream read and record it."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Conversation:
    """`cited` None: not known (an eval row's history, a batch row): the answerer recovers it by
    asking the earlier questions again. `cited_before`: what `cited` was before the last turn."""

    history: list[str] = field(default_factory=list)
    cited: list[str] | None = None
    cited_before: list[str] = field(default_factory=list)
    max_turns: int = 6

    @classmethod
    def of(cls, history: list[str] | None) -> "Conversation":
        """Earlier questions only (a batch or eval row): what they cited is not known."""
        return cls(history=list(history or []))

    def record(self, question: str, answer) -> None:
        """After an answer: the question joins the history; its citations (if any) become what follow-ups mean."""
        self.cited_before = list(self.cited or [])
        self.history = [*self.history, question][-self.max_turns:]
        self.cited = [c.paper_id for c in answer.citations] or list(self.cited or [])

    def without_last(self) -> "Conversation":
        """The conversation as it was before its last question (to ask that question again)."""
        return Conversation(history=self.history[:-1], cited=list(self.cited_before), max_turns=self.max_turns)

    def reset(self) -> None:
        self.history, self.cited, self.cited_before = [], [], []
