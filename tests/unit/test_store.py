from __future__ import annotations

import re

import pytest


def test_dropping_a_collection_removes_its_vector_folder_and_no_other(tmp_path):
    """Chroma 1.x's delete_collection leaves `<store>/<segment id>/` behind (chroma-core/chroma#5259)."""
    from ragqa.config import Settings
    from ragqa.store.chroma import drop_collection, get_collection, open_client

    settings = Settings(vectorstore_dir=tmp_path / "vs", embed_model="hash")
    client = open_client(settings)
    for name in ("keep", "drop"):
        get_collection(client, name).add(ids=[f"{name}{i}" for i in range(1100)],
                                         embeddings=[[float(i), 1.0] for i in range(1100)])
    folders = {p.parent for p in settings.vectorstore_dir.glob("*/header.bin")}
    assert len(folders) == 2
    drop_collection(client, "drop", settings)
    (left,) = {p.parent for p in settings.vectorstore_dir.glob("*/header.bin")}
    assert left in folders and get_collection(client, "keep", create=False).count() == 1100
    assert [c.name for c in client.list_collections()] == ["keep"]


class _Failing:
    """A collection whose every call fails as Chroma failed on a full disk, or with another error."""
    name = "papers"

    def __init__(self, exc):
        self.exc = exc

    def upsert(self, **kwargs):
        raise self.exc


def test_a_failure_inside_chroma_is_one_line_that_says_how_much_room_the_disk_has(tmp_path):
    """A full disk made Chroma raise InternalError("Error in compaction: Failed to apply logs to the metadata segment")
    and every later read fail the same way, as tracebacks that never mention the disk (seen on a 40 MB tmpfs)."""
    from chromadb.errors import InternalError

    from ragqa.config import Settings
    from ragqa.errors import StoreFailedError
    from ragqa.store.chroma import GuardedCollection

    settings = Settings(vectorstore_dir=tmp_path / "vs", embed_model="hash")
    cause = InternalError("Error in compaction: Failed to apply logs to the metadata segment")
    with pytest.raises(StoreFailedError) as failed:
        GuardedCollection(_Failing(cause), settings).upsert(ids=["a"])
    message = str(failed.value)
    assert "\n" not in message and str(settings.vectorstore_dir) in message and "Failed to apply logs" in message
    assert re.search(r"with [\d,]+ MiB free on its disk", message) and "run the same command again" in message
    served = settings.model_copy(update={"chroma_host": "10.0.0.9", "chroma_port": 8123})
    with pytest.raises(StoreFailedError, match=r"Chroma server at 10\.0\.0\.9:8123 failed .* its log says why"):
        GuardedCollection(_Failing(cause), served).upsert(ids=["a"])
    with pytest.raises(ValueError):  # not Chroma's own failure: left as it is
        GuardedCollection(_Failing(ValueError("bad ids")), settings).upsert(ids=["a"])
