"""ragqa: cited question answering over ML papers, offline on a CPU.

Importing the package sets the offline/no-telemetry environment defaults before any heavy
library (huggingface_hub, chromadb, gradio, tiktoken) is imported; users can still override them.
"""
import os as _os
from pathlib import Path as _Path

for _key, _value in {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",
    "TOKENIZERS_PARALLELISM": "false",
}.items():
    _os.environ.setdefault(_key, _value)


def _tiktoken_cache() -> None:
    """Point tiktoken at the encodings llama-index ships, so it never downloads them."""
    if _os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    import importlib.util

    spec = importlib.util.find_spec("llama_index.core")
    if spec and spec.submodule_search_locations:
        cache = _Path(list(spec.submodule_search_locations)[0]) / "_static" / "tiktoken_cache"
        if cache.is_dir():
            _os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


_tiktoken_cache()
__version__ = "0.1.0"
