"""Open the ONNX MiniLM's onnxruntime session and tokenizer, in a background thread when asked for early.

onnxruntime releases the GIL while it loads and optimises the graph (~0.2 s on 2 cores), so a session started before
a cold start imports llama-index and chromadb (~1.2 s) is ready by the time the first question is embedded. This module
imports neither: a thread that waited on the imports it is meant to overlap would gain nothing. The thread imports
nothing either (prefetch imports onnxruntime first): two threads importing numpy at once break its import. Embedding
lives in onnx_embed.py; choosing a backend in models.py.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path

MAX_TOKENS = 256

_lock = threading.Lock()
_pending: dict[tuple[str, str, int], Future] = {}


def open_session(model_file: Path, tokenizer_file: Path, threads: int = 0):
    """(onnxruntime session, tokenizer truncating at MAX_TOKENS word-pieces and padding to a batch's longest text)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.log_severity_level = 3
    session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0, pad_token="[PAD]")
    return session, tokenizer


def prefetch(model_file: Path, tokenizer_file: Path, threads: int = 0) -> None:
    """Start opening a session for these files in a daemon thread; `take` collects it (or its error). onnxruntime and
    tokenizers are imported here, in the caller's thread: a thread importing them (and numpy) while the caller imports
    chromadb, which imports all three, broke numpy's import ("partially initialized module", a _DeadlockError)."""
    import onnxruntime  # noqa: F401
    import tokenizers  # noqa: F401

    key = (str(model_file), str(tokenizer_file), threads)
    with _lock:
        if key in _pending:
            return
        future: Future = Future()
        _pending[key] = future

    def run() -> None:
        try:
            future.set_result(open_session(model_file, tokenizer_file, threads))
        except BaseException as exc:  # handed to the caller of take, which reports it
            future.set_exception(exc)

    threading.Thread(target=run, name="ragqa-onnx-open", daemon=True).start()


def take(model_file: Path, tokenizer_file: Path, threads: int = 0):
    """The session prefetched for these files (each prefetch is taken once), else one opened now."""
    with _lock:
        future = _pending.pop((str(model_file), str(tokenizer_file), threads), None)
    if future is None:
        return open_session(model_file, tokenizer_file, threads)
    return future.result()
