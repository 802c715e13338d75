

def test_dropping_a_collection_removes_its_vector_folder_and_no_other(tmp_path):
    """Chroma 1.x's delete_collection leaves `<store>/<segment id>/` behind (chroma-core/chroma#5259)."""
    from ragqa.config import Settings
    from ragqa.store import drop_collection, get_collection, open_client

    settings = Settings(vectorstore_dir=tmp_path / "vs", embed_model="hash")
    client = open_client(settings)
    for name in ("keep", "drop"):
        get_collection(client, name).add(ids=[f"{name}{i}" for i in range(1100)], embeddings=[[float(i), 1.0] for i in range(1100)])
    folders = {p.parent for p in settings.vectorstore_dir.glob("*/header.bin")}
    assert len(folders) == 2
    drop_collection(client, "drop", settings)
    (left,) = {p.parent for p in settings.vectorstore_dir.glob("*/header.bin")}
    assert left in folders and get_collection(client, "keep", create=False).count() == 1100
    assert [c.name for c in client.list_collections()] == ["keep"]
