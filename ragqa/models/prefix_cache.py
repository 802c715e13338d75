"""Prompt prefixes a llama.cpp model has already read, kept so it does not read them again: the KV state of its
last prompt of each kind (the answer prompt, a translation, a follow-up rewrite) in memory, so one loaded model
serves all three without losing the answer prompt's fixed prefix (system prompt and worked examples), and the
answer prompt's state on disk, so a new process starts from it. A state is the prompt's tokens and the KV cache
of llama.cpp's sequence 0 (no logits: generating always reads at least one new token); only the prefix it shares
with a new prompt is used, so a changed prompt file reuses what is still the same. The file is keyed by the model
file and the llama.cpp version. Nothing here chooses prompts."""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

FAMILY_TOKENS = 48  # prompts whose first tokens agree are of one kind (the answer prompt's system prompt, a template)
DISK_MIN_TOKENS = 512  # only prompts this long are kept on disk (the answer prompt; rewrites are short)


@dataclass
class SeqState:
    input_ids: np.ndarray  # the tokens the KV cache holds
    data: bytes  # llama_state_seq_get_data of sequence 0
    fixed: int = 0  # disk only: the prefix this state shared with the prompt it was last checked against


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.flatnonzero(np.asarray(a[:n]) != np.asarray(b[:n]))
    return int(diff[0]) if diff.size else n


def state_key(model_path: str) -> str:
    """The model file (path, size, modification time) and the llama.cpp build: a state is valid for them only."""
    import llama_cpp

    stat = os.stat(model_path)
    raw = json.dumps([str(Path(model_path).resolve()), stat.st_size, int(stat.st_mtime), llama_cpp.__version__])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


class PrefixCache:
    """A llama_cpp cache (Llama.set_cache) of sequence states, installed with `attach`, which also replaces the
    Llama's save_state/load_state by ones that copy only sequence 0's KV cache (llama-cpp-python's copy the logits
    of a whole batch too: 300 MB for a 150k-word vocabulary)."""

    def __init__(self, directory: Path | None, key: str):
        self.path = Path(directory) / f"prefix-{key}.npz" if directory is not None else None
        self._slots: dict[tuple[int, ...], SeqState] = {}  # prompt kind -> its last state
        self._disk: SeqState | None = None
        self._disk_read = False
        self._lock = threading.Lock()
        self.loads = 0  # states put back into the context (for tests and the benchmark)

    # -- the cache interface llama_cpp.Llama uses ----------------------------------------------------
    @property
    def cache_size(self) -> int:
        return sum(len(s.data) for s in self._slots.values())

    def _candidates(self) -> list[SeqState]:
        disk = self._read_disk()
        return list(self._slots.values()) + ([disk] if disk is not None else [])

    def __getitem__(self, key: Sequence[int]) -> SeqState:
        best = max(self._candidates(), key=lambda s: _common(s.input_ids, key), default=None)
        if best is None or _common(best.input_ids, key) == 0:
            raise KeyError("no state shares a prefix with this prompt")
        return best

    def __contains__(self, key: Sequence[int]) -> bool:
        try:
            self[key]
            return True
        except KeyError:
            return False

    def __setitem__(self, key: Sequence[int], state: SeqState) -> None:
        key = tuple(key)
        with self._lock:
            self._slots[key[:FAMILY_TOKENS]] = state
        if self.path is not None and len(key) >= DISK_MIN_TOKENS:
            self._maybe_write(state)

    # -- disk ---------------------------------------------------------------------------------------------------
    def _read_disk(self) -> SeqState | None:
        if self._disk_read or self.path is None:
            return self._disk
        self._disk_read = True
        try:
            with np.load(self.path) as saved:
                self._disk = SeqState(saved["input_ids"], saved["data"].tobytes(), int(saved["fixed"]))
        except (OSError, ValueError, KeyError):  # none yet, or a file cut short: written again after an answer
            self._disk = None
        return self._disk

    def _maybe_write(self, state: SeqState) -> None:
        """Write the state when the one on disk is of another prompt (its shared prefix shorter than the part it
        last shared): the first answer of a new prompt version is written, later ones are not."""
        disk = self._read_disk()
        shared = _common(disk.input_ids, state.input_ids) if disk is not None else 0
        if disk is not None and shared >= disk.fixed:
            return
        fixed = shared if disk is not None else len(state.input_ids)
        new = SeqState(state.input_ids, state.data, fixed)
        part = self.path.with_suffix(f".{os.getpid()}.part")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(part, "wb") as out:
                np.savez(out, input_ids=new.input_ids, data=np.frombuffer(new.data, dtype=np.uint8), fixed=fixed)
            os.replace(part, self.path)  # readers see the old file or the new one, never half of one
        except OSError:  # a read-only or full cache folder: the next process reads the prompt whole, nothing lost
            if part.parent.is_dir():
                part.unlink(missing_ok=True)
            return
        self._disk = new

    # -- the Llama's state copies ------------------------------------------------------------------------------
    def attach(self, llama) -> None:
        import llama_cpp

        def save_state() -> SeqState:
            ctx = llama._ctx.ctx
            size = llama_cpp.llama_state_seq_get_size(ctx, 0)
            buffer = (ctypes.c_uint8 * size)()
            written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
            data = ctypes.string_at(buffer, written)  # one copy (slicing a ctypes array makes a list of ints)
            del buffer
            return SeqState(np.array(llama.input_ids[: llama.n_tokens], dtype=np.intc), data)

        def load_state(state: SeqState) -> None:
            ctx, n = llama._ctx.ctx, len(state.input_ids)
            buffer = (ctypes.c_uint8 * len(state.data)).from_buffer_copy(state.data)
            if llama_cpp.llama_state_seq_set_data(ctx, buffer, len(state.data), 0) != len(state.data):
                llama.n_tokens = 0  # the context is read from the start instead
                llama._ctx.kv_cache_seq_rm(-1, 0, -1)
                return
            llama.input_ids[:n] = state.input_ids
            llama.n_tokens = n
            llama._requires_eval = True
            self.loads += 1

        llama.save_state, llama.load_state = save_state, load_state
        llama.set_cache(self)
