"""How long each model took to load on this machine the last time, so the CLI and the UI can say what is loading
and about how long it takes before they start (a JSON file beside the models)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ragqa.config import Settings


def _path(settings: Settings) -> Path:
    return settings.model_cache_dir / "states" / "load-seconds.json"


def expected(settings: Settings, model: str) -> float | None:
    """Seconds `model` took to load here the last time; None before its first load (or when unreadable)."""
    try:
        return float(json.loads(_path(settings).read_text(encoding="utf-8"))[model])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def record(settings: Settings, model: str, seconds: float) -> None:
    path = _path(settings)
    try:
        times = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        times[model] = round(seconds, 2)
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps(times), encoding="utf-8")
        os.replace(part, path)
    except (OSError, ValueError):  # a read-only cache folder: nothing to say next time, nothing lost
        pass


def loading_message(settings: Settings, model: str) -> str:
    seconds = expected(settings, model)
    about = f"about {seconds:.0f} s, as last time" if seconds is not None else "the first time on this machine"
    return f"Loading the language model {model} ({about})…"
