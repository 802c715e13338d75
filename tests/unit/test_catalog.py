"""The paper catalog: one record per paper next to the chunks (issue 18.6), migration from a store
written before it, and what a kill between a row and its chunks leaves."""
from __future__ import annotations

import json

import pytest

from ragqa.errors import IndexMissingError
from ragqa.store.catalog import Catalog
from ragqa.store.chunks import CHUNK_FIELDS
from ragqa.store.records import paper_metadata

CHUNK_KEYS = set(CHUNK_FIELDS) | {"chunk", "n_chunks"}


def _records(path, n, words=60, start=0):
    rows = [{"id": f"r{i}", "title": f"Study {i}", "authors": ["Ann Lee", "Bo Chen"], "venue": "ICML", "year": 2024,
             "abstract": " ".join(f"Sentence {j} of paper {i} about graph kernels and proteins." for j in range(words))}
            for i in range(start, start + n)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    return path


def test_chunks_carry_no_abstract_and_hits_still_carry_the_record(indexed):
    index = indexed.index()
    for _, meta in index.all_metadata():
        assert not {"abstract", "text", "authors"} & set(meta)
        assert {"paper_id", "venue", "n_chunks"} <= set(meta)
    result = indexed.search("sparse autoencoders")
    hit = result.hits[0]
    assert hit.meta["abstract"] and hit.meta["text"] and hit.meta["authors"] is not None
    assert index.catalog.count() == 95


def test_chunk_metadata_does_not_grow_with_abstract_length(settings, tmp_path):
    """A long abstract used to be copied into each of its chunks (store ~ length squared); now a
    chunk's metadata is a fixed set of short fields, whatever the abstract's length."""
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings)
    pipeline.ingest(pipeline.load([_records(tmp_path / "long.jsonl", 3, words=150)])[0], progress=False)
    index = pipeline.index()
    sizes = [len(json.dumps(m)) for _, m in index.all_metadata()]
    assert index.count() > 3 * 10 and min(len(p.abstract) for p, _ in index.catalog.all().values()) > 8000
    assert max(sizes) < 2500


def test_an_absurd_abstract_is_skipped_with_a_message_and_others_index(settings, tmp_path):
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings.model_copy(update={"max_abstract_chars": 5000}))
    path = _records(tmp_path / "mixed.jsonl", 2)
    with path.open("a") as f:
        f.write("\n" + json.dumps({"id": "huge", "title": "Huge", "abstract": "word " * 3000}))
    result = pipeline.ingest(pipeline.load([path])[0], progress=False)
    assert result.papers == 2 and pipeline.index().catalog.count() == 2
    (line,) = result.skipped
    assert "'huge'" in line and "14,999-character abstract" in line and "RAGQA_MAX_ABSTRACT_CHARS" in line


def test_a_row_without_its_chunks_is_incomplete_and_repaired(indexed):
    """A kill after the row is written and before the chunks land: the next ingest embeds them."""
    index = indexed.index()
    multi = next(pid for pid, m in index.papers().items() if m["n_chunks"] >= 2)
    n = index.papers()[multi]["n_chunks"]
    index.collection.delete(ids=[f"{multi}:{i}" for i in range(n)])
    assert index.incomplete() == {multi: n}
    assert multi not in {h.paper_id for h in indexed.search(index.papers()[multi]["text"][:200], k=20).hits}
    result = indexed.ingest(indexed.load()[0], progress=False)
    assert result.repaired_papers == 1 and result.embedded_chunks == n and index.incomplete() == {}


def test_chunks_without_a_row_are_invisible_and_verify_removes_them(indexed, capsys, monkeypatch):
    """A kill after a removal dropped the row and before the chunks went: readers never see the paper."""
    from ragqa import cli

    index = indexed.index()
    pid, meta = next(iter(index.papers().items()))
    index.catalog.delete([pid])
    assert index.orphans() == [pid]
    indexed.__dict__.pop("searcher", None)
    assert pid not in {h.paper_id for h in indexed.search(meta["text"][:200], k=20).hits}
    monkeypatch.setenv("RAGQA_VECTORSTORE_DIR", str(indexed.settings.vectorstore_dir))
    monkeypatch.setenv("RAGQA_EMBED_MODEL", "hash")
    assert cli.main(["ingest", "--verify"]) == 0
    assert "without a catalog record" in capsys.readouterr().out
    assert index.orphans() == [] and index.collection.get(where={"paper_id": pid})["ids"] == []


def test_a_store_written_before_the_catalog_is_migrated_without_reembedding(indexed):
    """Old layout: every chunk carried the whole record. Opening builds the catalog from it; the next
    ingest rewrites the chunks' metadata (stored vectors reused) and embeds nothing."""
    index = indexed.index()
    papers = index.papers()
    ids = [cid for cid, _ in index.all_metadata()]
    got = index.collection.get(ids=ids, include=["metadatas"])
    old = [{**m, **{k: v for k, v in paper_metadata(index.catalog.get([m["paper_id"]])[m["paper_id"]][0]).items()}}
           for m in got["metadatas"]]
    index.collection.update(ids=got["ids"], metadatas=old)
    index.catalog.path.unlink()
    for suffix in ("-wal", "-shm"):
        index.catalog.path.with_name(index.catalog.path.name + suffix).unlink(missing_ok=True)
    reopened = indexed.index()
    assert reopened.catalog.count() == len(papers)
    assert ({pid: m["n_chunks"] for pid, m in reopened.papers().items()}
            == {pid: m["n_chunks"] for pid, m in papers.items()})
    result = indexed.ingest(indexed.load()[0], progress=False)
    assert result.embedded_chunks == 0 and result.new_papers == 0
    assert all("abstract" not in m for _, m in reopened.all_metadata())


def test_catalog_round_trips_a_paper_and_replaces_its_authors(tmp_path, bundled):
    _, report = bundled
    paper = next(p for p in report.papers if len(p.authors) >= 2)
    catalog = Catalog(tmp_path / "c.sqlite")
    catalog.upsert([paper], {paper.paper_id: 3})
    assert catalog.get([paper.paper_id]) == {paper.paper_id: (paper, 3)}
    fewer = paper.__class__(**{**paper.__dict__, "authors": paper.authors[:1]})
    catalog.upsert([fewer], {paper.paper_id: 3})
    assert catalog.get([paper.paper_id])[paper.paper_id][0].authors == paper.authors[:1]


def test_a_folder_where_the_catalog_should_be_is_a_clear_error(tmp_path):
    (tmp_path / "c.sqlite").mkdir()
    with pytest.raises(IndexMissingError, match="not a file"):
        Catalog(tmp_path / "c.sqlite")


def test_a_lost_first_chunk_is_repaired_not_counted_as_updated(indexed):
    index = indexed.index()
    pid = next(iter(index.papers()))
    index.collection.delete(ids=[f"{pid}:0"])
    result = indexed.ingest(indexed.load()[0], progress=False)
    assert result.repaired_papers == 1 and result.updated_papers == 0 and index.incomplete() == {}


def test_ingest_saves_a_lexical_index_that_readers_load_instead_of_reading_every_chunk(indexed, monkeypatch, tmp_path):
    """#17.2: ingest writes the BM25 index for the collection's generation; a reader memory-maps it
    and never lists the chunks; a later write makes it stale until that write saves a new one."""
    from ragqa.pipeline import Pipeline

    index = indexed.index()
    saved = index.lexical()
    assert saved is not None and len(saved.chunk_ids) == index.count()
    reader = Pipeline(indexed.settings)

    def no_full_scan(*args, **kwargs):
        raise AssertionError("a reader read every chunk")

    monkeypatch.setattr(type(index), "build_lexical", no_full_scan)
    hits = reader.search("fractional graph neural network", k=3, translate=False).hits
    assert hits and hits[0].meta["label"] == "DRAGON"
    monkeypatch.undo()
    generation = index.catalog.generation()
    indexed.ingest(indexed.load([_records(tmp_path / "more.jsonl", 2, start=50)])[0], progress=False)
    assert index.catalog.generation() == generation + 1 and index.lexical().generation == generation + 1
    assert ("r50" in {index.papers()[h.paper_id]["source_id"]
                      for h in reader.search("graph kernels proteins", k=5, translate=False).hits})


def _paper(pid, text, title=None):
    from ragqa.ingest.paper import Paper

    return Paper(paper_id=pid, abstract=text, text=text, label=title or text[:40], title=title, venue="ICML", year=2024)


def test_the_term_table_counts_what_an_in_memory_count_of_the_records_counts(tmp_path):
    """Readers look up a question's terms in the catalog instead of counting every paper's terms at start; the
    table must hold the same document frequencies after inserts, an update that changes a paper's text, updates that
    change none of its words, and a delete."""
    from ragqa.text.terms import TermStats, terms

    catalog = Catalog(tmp_path / "c.sqlite")
    papers = [_paper("a", "Sparse autoencoders find features in transformers.", "Sparse Autoencoders"),
              _paper("b", "Graph kernels for proteins and molecules."),
              _paper("c", "Transformers learn graph algorithms in context.", "Graph Transformers")]
    catalog.upsert(papers, {p.paper_id: 1 for p in papers})
    catalog.upsert([_paper("b", "Diffusion models for protein design.")], {"b": 1})  # b's old terms must leave
    from dataclasses import replace
    catalog.upsert([replace(papers[0], authors=("Ann Lee",), sources=("x.jsonl",)),
                    _paper("b", "Diffusion models for protein design.")],
                   {"a": 1, "b": 1})  # rows whose words did not change: their terms stay counted once
    catalog.delete(["c"])
    records = {pid: paper_metadata(p) for pid, (p, _) in catalog.all().items()}
    words = sorted({t for m in records.values()
                    for t in terms(f"{m['title']} {m['label']} {m['text']}")} | {"graph", "kernel", "quokka"})
    expected = TermStats(records).df(words)
    assert catalog.term_frequencies(words) == expected
    # c gone, b rewritten
    assert expected["transformer"] == 1 and "kernel" not in expected and expected["diffusion"] == 1
    # a reader's stats over the table score a candidate exactly as the in-memory ones
    from_table = TermStats(records, catalog.term_frequencies)
    assert [from_table.idf(w) for w in words] == [TermStats(records).idf(w) for w in words]
    assert from_table.terms_of("a") == TermStats(records).terms_of("a") and from_table.terms_of("zzz") == frozenset()


def test_a_catalog_from_before_the_term_table_counts_it_once_on_open(tmp_path):
    import sqlite3

    path = tmp_path / "c.sqlite"
    catalog = Catalog(path)
    catalog.upsert([_paper("a", "Sparse autoencoders at scale.")], {"a": 1})
    with sqlite3.connect(path) as db:  # as a catalog written by the version before the table
        db.execute("DROP TABLE term_df")
        db.execute("DELETE FROM state WHERE key = 'terms'")
    assert (Catalog(path).term_frequencies(["sparse", "autoencoder", "scale"])
            == {"sparse": 1, "autoencoder": 1, "scale": 1})


def test_the_newest_of_each_group_are_the_ones_newest_lists_whether_looked_up_or_walked(indexed, monkeypatch):
    """A group answer cites the first papers of each group: through a temporary table of a few ids, or walking the
    newest-first index for many, the same papers as `newest` gives for each group alone."""
    index = indexed.index()
    records = indexed.searcher.paper_meta()
    groups: dict[str, set] = {}
    for pid, meta in records.items():
        groups.setdefault(str(meta.get("venue")), set()).add(pid)
    groups["empty"] = set()
    expected = {name: index.catalog.newest(ids, 4) if ids else [] for name, ids in groups.items()}
    assert any(len(ids) > 4 for ids in groups.values()) and sum(map(len, expected.values())) > 4
    looked_up = index.catalog.newest_of_each(groups, 4)
    monkeypatch.setattr(Catalog, "PICK_MAX", 0)
    assert looked_up == index.catalog.newest_of_each(groups, 4) == expected
    # newest walks too
    assert {name: index.catalog.newest(ids, 4) if ids else [] for name, ids in groups.items()} == expected


def _tokenized(monkeypatch) -> list[str]:
    """Chunk ids whose text each lexical build tokenizes (the rest come from the saved index's tokens)."""
    from ragqa.store.lexical import LexicalIndex

    seen: list[str] = []
    build = LexicalIndex.build.__func__

    def counting(cls, pages, *args, **kwargs):
        def spied():
            for ids, texts in pages:
                seen.extend(cid for cid, text in zip(ids, texts) if text is not None)
                yield ids, texts
        return build(cls, spied(), *args, **kwargs)

    monkeypatch.setattr(LexicalIndex, "build", classmethod(counting))
    return seen


def _all_scores(index, lexical) -> dict[str, list]:
    return {q: [(cid, round(score, 9)) for cid, score in lexical.search(q, 10**6)]
            for q in ("graph kernels proteins", "sparse autoencoders", "sentence 3 of paper 51", "diffusion sampling")}


def test_a_write_tokenizes_only_the_chunks_it_touched_and_its_index_ranks_as_a_full_rebuild(
        indexed, monkeypatch, tmp_path):
    """#17.2: the saved index keeps its tokens; a write reads back and tokenizes only the chunks of the papers it wrote
    or removed (new papers, a new version of one, a removed library), and the index it saves scores every chunk as a
    build that reads every chunk from Chroma does."""
    index = indexed.index()
    assert (index.lexical_path / "tokens.npy").is_file()
    seen = _tokenized(monkeypatch)
    indexed.ingest(indexed.load([_records(tmp_path / "more.jsonl", 3, start=50)])[0], progress=False, library="extra")
    new = {pid for pid, m in index.papers().items() if m["source_id"] in {"r50", "r51", "r52"}}
    assert len(new) == 3 and {cid.rsplit(":", 1)[0] for cid in seen} == new
    assert sorted(seen) == sorted(f"{pid}:{n}" for pid in new for n in range(index.papers()[pid]["n_chunks"]))
    assert _all_scores(index, index.lexical()) == _all_scores(index, index.build_lexical())
    seen.clear()
    indexed.ingest(indexed.load([_records(tmp_path / "v2.jsonl", 1, words=20, start=51)])[0], progress=False,
                   library="extra")
    assert {cid.rsplit(":", 1)[0] for cid in seen} - new, "the new version of r51 was tokenized"
    assert len({cid.rsplit(":", 1)[0] for cid in seen}) == 1
    assert _all_scores(index, index.lexical()) == _all_scores(index, index.build_lexical())
    seen.clear()
    assert indexed.remove_library("extra")[0] == 3
    assert seen == [] and len(index.lexical().chunk_ids) == index.count()
    assert _all_scores(index, index.lexical()) == _all_scores(index, index.build_lexical())


def test_a_write_killed_before_its_index_is_saved_leaves_it_stale_and_the_next_save_reuses_what_it_did_not_touch(
        indexed, monkeypatch, tmp_path):
    """The generation moves before the first chunk is written and the catalog records which papers' chunks change:
    a writer killed before it saves the lexical index leaves the old one stale to readers (not current, missing the
    new chunks), and the next ingest, with nothing left to write, tokenizes only the killed write's chunks."""
    from ragqa.store.index import PaperIndex

    index = indexed.index()
    monkeypatch.setattr(PaperIndex, "refresh_lexical", lambda self: None)  # killed after the writes
    report = indexed.load([_records(tmp_path / "more.jsonl", 2, start=50)])[0]
    indexed.ingest(report, progress=False)
    assert index.lexical() is None
    monkeypatch.undo()
    seen = _tokenized(monkeypatch)
    indexed.ingest(report, progress=False)
    new = {pid for pid, m in index.papers().items() if m["source_id"] in {"r50", "r51"}}
    assert len(new) == 2 and {cid.rsplit(":", 1)[0] for cid in seen} == new
    assert len(index.lexical().chunk_ids) == index.count() and index.catalog.chunk_changes() is None
    assert _all_scores(index, index.lexical()) == _all_scores(index, index.build_lexical())
    seen.clear()
    indexed.ingest(report, progress=False)  # nothing changed: nothing rebuilt
    assert seen == []


def test_the_catalog_records_papers_added_since_the_views_were_saved_and_forgets_them_at_any_other_change(
        tmp_path, bundled):
    """What lets a writer extend the saved views instead of building them anew (retrieve.Searcher.save_views)."""
    _, report = bundled
    a, b, c = report.papers[:3]
    catalog = Catalog(tmp_path / "c.sqlite")
    catalog.upsert([a], {a.paper_id: 1})
    assert catalog.papers_added() is None  # no views saved yet
    catalog.views_saved(catalog.revision())
    catalog.upsert([c, b], {b.paper_id: 1, c.paper_id: 1})
    catalog.upsert([b], {b.paper_id: 2})  # a paper added since, written again (its next chunks): still added
    assert catalog.papers_added() == (catalog.revision() - 2, [c.paper_id, b.paper_id])  # catalog order
    catalog.upsert([a], {a.paper_id: 2})  # a paper the views hold
    assert catalog.papers_added() is None
    for change in (lambda: catalog.delete([c.paper_id]), lambda: catalog.join_library([a.paper_id], "x"),
                   lambda: catalog.leave_library("x")):
        catalog.views_saved(catalog.revision())
        assert catalog.papers_added() == (catalog.revision(), [])
        change()
        assert catalog.papers_added() is None


def test_a_writer_reads_what_its_lexical_build_needs_then_lets_go_of_chromas_vector_index_before_the_build(
        bundled, monkeypatch, tmp_path):
    """#17: a writer's peak is the larger of Chroma's vector index (loaded by its writes) and its lexical build, not
    their sum: the chunks the build tokenizes are read first, the process's only client of the store is closed (which
    stops Chroma's system and frees the index), and the build reads nothing from Chroma. The store works after: a
    search finds the new papers, a second write adds more, and the saved index ranks as a full rebuild."""
    from chromadb.api.client import Client
    from chromadb.api.models.Collection import Collection

    from ragqa.store.lexical import LexicalIndex

    pipeline, report = bundled
    closed, building, read_while_building = [], [False], []
    close, get, build = Client.close, Collection.get, LexicalIndex.build.__func__

    def closing(self):
        closed.append(self)
        return close(self)

    def reading(self, *args, **kwargs):
        if building[0]:
            read_while_building.append(kwargs.get("ids"))
        return get(self, *args, **kwargs)

    def watched(cls, pages, *args, **kwargs):
        assert closed, "the build began with Chroma's vector index still held"
        building[0] = True
        try:
            return build(cls, pages, *args, **kwargs)
        finally:
            building[0] = False

    monkeypatch.setattr(Client, "close", closing)
    monkeypatch.setattr(Collection, "get", reading)
    monkeypatch.setattr(LexicalIndex, "build", classmethod(watched))
    pipeline.ingest(report, progress=False)  # every chunk read for a first build
    pipeline.ingest(pipeline.load([_records(tmp_path / "more.jsonl", 3, start=50)])[0], progress=False)
    assert len(closed) == 2 and read_while_building == []
    monkeypatch.undo()
    index = pipeline.index()
    assert index.count() == len(index.lexical().chunk_ids) > 0
    assert _all_scores(index, index.lexical()) == _all_scores(index, index.build_lexical())
    hits = pipeline.search("graph kernels proteins", k=5, translate=False).hits
    assert {"r50", "r51", "r52"} & {index.papers()[h.paper_id]["source_id"] for h in hits}
