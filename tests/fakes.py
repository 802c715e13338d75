"""Deterministic fakes: an LLM that implements the real llama-index interfaces, and retrieved sources."""
from __future__ import annotations

from typing import Any, Sequence

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from pydantic import PrivateAttr


class ScriptedLLM(CustomLLM):
    """Returns queued replies in order (the last one repeats) and records every prompt it saw.
    A reply may be a callable(prompt_text) -> str, to answer from the prompt."""

    _replies: list = PrivateAttr(default_factory=list)
    _prompts: list = PrivateAttr(default_factory=list)

    def __init__(self, replies: Sequence[Any] = (), **data):
        super().__init__(**data)
        self._replies = list(replies)

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True, model_name="scripted")

    def _next(self, prompt: str) -> str:
        self._prompts.append(prompt)
        reply = self._replies.pop(0) if len(self._replies) > 1 else (self._replies[0] if self._replies else "")
        return reply(prompt) if callable(reply) else reply

    @staticmethod
    def _flatten(messages: Sequence[ChatMessage]) -> str:
        return "\n".join(f"{m.role.value}: {m.content}" for m in messages)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
        return CompletionResponse(text=self._next(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs):
        text = self._next(prompt)

        def gen():
            acc = ""
            for word in text.split(" "):
                delta = (" " if acc else "") + word
                acc += delta
                yield CompletionResponse(text=acc, delta=delta)
        return gen()

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs) -> ChatResponse:
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT,
                                                content=self._next(self._flatten(messages))))

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs):
        text = self._next(self._flatten(messages))

        def gen():
            acc = ""
            for word in text.split(" "):
                delta = (" " if acc else "") + word
                acc += delta
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=acc), delta=delta)
        return gen()


def labelled_source(n, label, evidence):
    """Source `n`, a paper labelled (and titled) `label` whose evidence is the `evidence` sentences."""
    from ragqa.answer.records import Source
    from ragqa.retrieval.hits import Hit

    meta = {"label": label, "title": label, "text": " ".join(evidence), "venue": "ICLR 2024"}
    return Source(n=n, hit=Hit(paper_id=f"p{n}", score=1.0, relevance=0.6, text=" ".join(evidence), meta=meta),
                  evidence=tuple(evidence))


def fake_sources(n=3, sentences=2):
    """`n` retrieved sources, numbered from 1, each with `sentences` evidence sentences."""
    from ragqa.answer.records import Source
    from ragqa.retrieval.hits import Hit

    out = []
    for i in range(1, n + 1):
        meta = {"paper_id": f"p{i}", "label": f"Paper{i}", "venue": "ICML 2024", "authors": "A B; C D",
                "abstract": "abs", "year": 2024}
        out.append(Source(i, Hit(f"p{i}", 1.0 / i, 0.5, "text", meta),
                          tuple(f"Evidence sentence {j} of paper {i}." for j in range(sentences))))
    return out
