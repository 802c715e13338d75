"""Expected failures. Messages name the failing thing, the value, and the next step."""


class RagqaError(Exception):
    """Base class: cli.py and ui/ print these as one line, never as a traceback."""


class ListingError(RagqaError):
    """A listing file (txt/JSONL/CSV) could not be read at all."""


class IndexMissingError(RagqaError):
    """No index (or an empty one) for the configured embedding model and chunking."""


class ModelError(RagqaError):
    """A model could not be fetched, verified or loaded."""


class QueryError(RagqaError):
    """A bad question, filter or dataset line."""


class PromptError(RagqaError):
    """A prompt template is missing or its placeholders do not match."""


class StoreUnavailableError(RagqaError):
    """The Chroma server cannot be reached (not started, or gone away)."""


class StoreDamagedError(RagqaError):
    """A collection's vector index cannot be read (Chroma was killed while saving it); the catalog still holds every
    paper."""


class StoreFailedError(RagqaError):
    """A store call failed inside Chroma, or a disk filled up; what was written before it is kept."""


class StoreBusyError(RagqaError):
    """Another writer (an ingest, a library removal, a repair) holds the store; nothing was written."""


class StoreReadOnlyError(RagqaError):
    """The store's folder cannot be written (permissions, a read-only disk); readers can still use it."""


class VectorsMissingError(RagqaError):
    """Chroma holds chunks whose vectors its vector index lacks (two writers at once, before the write lock)."""


class LLMUnavailableError(ModelError):
    """The LLM server could not be reached, failed, did not answer in time, or stopped mid-answer."""


def read_model_file(path, parse, what: str, command: str, unset: str = ""):
    """`parse(the JSON at path)` for a fitted model's file; a missing or invalid one is a RagqaError naming `what`, the
    file and the `command` that writes it (and the setting to `unset`, when another file was chosen)."""
    import json
    from pathlib import Path

    try:
        return parse(json.loads(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise RagqaError(f"No {what} at {path}. Run '{command}'" + (f" or unset {unset}." if unset else ".")) from None
    except (ValueError, TypeError, KeyError) as exc:
        raise RagqaError(f"{what[0].upper()}{what[1:]} {path} is not valid ({exc}). Run '{command}' again.") from None
