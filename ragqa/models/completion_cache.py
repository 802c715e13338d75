"""An LLM's completions kept on disk, for the short deterministic prompts an evaluation sends again on every run
(translating a Chinese question, rewriting a follow-up): keyed by the model and the whole prompt, its template
included, so a change to either is a miss. Greedy decoding makes a completion a function of both. The model is
loaded on the first miss only, so a warm cache spares its loading too. Not used when answering a user: their
questions are new."""
from __future__ import annotations

import hashlib
import json
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Callable


class CachedCompletions:
    """`complete(prompt, **kwargs).text` and `chat(messages, **kwargs)`, as the rewrite, translation and subject steps
    call an LLM, served from `path` (JSON lines {"key", "text"}) when this model completed this prompt before."""

    def __init__(self, load: Callable[[], object], path: Path, model: str):
        self._load, self._llm, self.path, self.model = load, None, Path(path), model
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        self.read_only = False
        self._kept: dict[str, str] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self._kept[row["key"]] = row["text"]
                except (ValueError, KeyError, TypeError):  # a line cut by a killed run: completed again
                    continue

    def _key(self, prompt, kwargs: dict) -> str:
        text = json.dumps([self.model, prompt, sorted(kwargs.items())], ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def complete(self, prompt: str, **kwargs):
        return SimpleNamespace(text=self._cached(prompt, kwargs, lambda llm: llm.complete(prompt, **kwargs).text))

    def chat(self, messages, **kwargs):
        """`chat(messages, **kwargs).message.content`, as the subject check (query/subject.py) calls an LLM."""
        turns = [[getattr(m.role, "value", m.role), m.content] for m in messages]
        text = self._cached(turns, kwargs, lambda llm: llm.chat(messages, **kwargs).message.content or "")
        return SimpleNamespace(message=SimpleNamespace(content=text))

    def _cached(self, prompt, kwargs: dict, call: Callable[[object], str]) -> str:
        key = self._key(prompt, kwargs)
        with self._lock:
            if key in self._kept:
                self.hits += 1
                return self._kept[key]
            if self._llm is None:
                self._llm = self._load()
        text = call(self._llm)
        with self._lock:
            self.misses += 1
            self._kept[key] = text
            if not self.read_only:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    with self.path.open("a", encoding="utf-8") as out:
                        out.write(json.dumps({"key": key, "text": text}, ensure_ascii=False) + "\n")
                except OSError as exc:  # a read-only checkout or a full disk: kept for this run only, said once
                    self.read_only = True
                    print(f"Not keeping completions in {self.path} ({exc.strerror or exc}); this run keeps them in "
                          "memory.", file=sys.stderr)
        return text
