"""What a question asks, read once before retrieval (QueryPlan): the question and what is searched for it (rewritten,
translated, without recency words, spelling fixed), the filters with the ones read from the question told apart, the
author and topic label it names, whether a subject is left, and a method name no indexed paper carries. Reading it is
retrieval/reading.py's (it looks things up in the collection); retrieval and answers read the plan."""
from __future__ import annotations

from dataclasses import dataclass, field

from ragqa.query.metadata import AuthorMatch, TopicMatch
from ragqa.query.request import Filters


@dataclass
class QueryPlan:
    question: str
    query: str  # what is searched (condensed / translated / corrected)
    filters: Filters
    notes: list[str] = field(default_factory=list)  # what was read and done, for the reader (CLI stderr, UI, JSON)
    missing_name: str | None = None  # a method the question names that no indexed paper introduces / mentions
    missing_verb: str = ""  # "introduces" or "mentions"
    rewritten: bool = False  # a follow-up became a standalone question (not left as is, not searched with both turns)
    from_history: bool = False  # the conversation changed the search query (a rewrite or both turns; not a translation)
    author: AuthorMatch | None = None  # the author the question names (or an ambiguous / unknown one)
    names_topic: bool = True  # False: the question asks only about metadata ("What did X publish here?")
    # the whole subject is a topic label or keyword ("Which papers study robustness?")
    topic: TopicMatch | None = None
    # a topic label the question names beside other words ("whose topic is Computer Vision, what's the main idea of
    # each?"): its whole subject when those words name none (answer/lists.py asks)
    label: TopicMatch | None = None
    given: Filters | None = None  # the filters the caller gave; the rest of `filters` was read from the question

    @property
    def read_from_question(self) -> list[str]:
        """What the question itself was read as, for a reader to see and undo: each filter taken from it
        ("author=Yoshua Bengio") and a topic label that is its whole subject ("robustness (3 papers carry it)")."""
        given = (self.given or Filters()).active()
        read = [f"{name}={value}" for name, value in self.filters.active().items() if name not in given]
        if self.topic is not None:
            read.append(self.topic.carried)
        return read

    @property
    def own_words(self) -> str:
        """The user's words when something else is searched (a rewrite or translation may drop a name's star)."""
        return self.question if self.query != self.question else ""
