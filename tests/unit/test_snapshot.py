"""The views a writer saves for readers' cold starts: used when current, ignored when stale or broken."""
from __future__ import annotations

import pytest

from ragqa.query import snapshot
from ragqa.query.metadata import AuthorIndex, TopicIndex
from ragqa.retrieval.retrieve import Filters, Searcher, search


def _ids(searcher):
    return [n.node.metadata["paper_id"]
            for n in searcher.fuse("graph neural networks", Filters(venue="NeurIPS 2024"), 10)]


def _reader(pipeline):
    return Searcher(pipeline.settings, pipeline.index(), pipeline.embedder)


def test_a_reader_loads_the_saved_views_and_answers_as_one_that_builds_them(indexed, monkeypatch):
    path = snapshot.path_for(indexed.index().catalog.path)
    assert path.is_file()  # written by ingest
    built = _reader(indexed)
    monkeypatch.setattr(snapshot, "load", lambda *a: None)
    expected = (dict(built.paper_meta().items()), built.venues(), built.years(), built.topics(), built.libraries(),
                _ids(built))
    monkeypatch.undo()

    reader = _reader(indexed)
    papers = reader.index.papers

    def some(paper_ids=None):  # a reader reads the records it is asked for, never every record at start
        assert paper_ids is not None, "read every record"
        return papers(paper_ids)
    monkeypatch.setattr(reader.index, "papers", some)
    assert (reader.venues(), reader.years(), reader.topics(), reader.libraries(), _ids(reader)) == expected[1:]
    assert len(reader.paper_meta()._cache) < len(reader.paper_meta())  # the hits it fused, not the collection
    assert dict(reader.paper_meta().items()) == expected[0]
    assert reader.authors() is reader._facets["author index"]


def test_views_are_ignored_after_a_write_that_did_not_save_them(indexed):
    index = indexed.index()
    pid = next(iter(index.papers()))
    index.catalog.join_library([pid], "extra")  # a write behind the writer's back: the revision moves
    reader = _reader(indexed)
    assert "extra" in reader.libraries()


def test_an_unchanged_reingest_keeps_the_saved_views_and_a_new_library_rebuilds_them(indexed, monkeypatch):
    """Re-ingesting what is indexed writes nothing: the revision stays, so the views (minutes of work at 1M papers)
    are not built again; the same papers joining another library is a change, and they are."""
    catalog = indexed.index().catalog
    revision, built = catalog.revision(), []
    save = Searcher.refresh

    def counting(self, saved_views=True):
        built.append(saved_views)
        return save(self, saved_views)
    monkeypatch.setattr(Searcher, "refresh", counting)
    indexed.ingest(indexed.load()[0], progress=False)
    assert catalog.revision() == revision and False not in built
    indexed.ingest(indexed.load()[0], progress=False, library="again")
    assert catalog.revision() > revision and False in built and "again" in _reader(indexed).libraries()


def test_a_broken_views_file_is_ignored(indexed):
    path = snapshot.path_for(indexed.index().catalog.path)
    path.write_bytes(b"not a pickle")
    reader = _reader(indexed)
    assert len(reader.paper_meta()) == indexed.index().catalog.count()


def test_removing_a_library_saves_views_without_it(indexed, tmp_path):
    from tests.unit.test_library import _mine

    report, _ = indexed.load([_mine(tmp_path)])
    indexed.ingest(report, progress=False, library="mine")
    assert "mine" in _reader(indexed).libraries()
    indexed.remove_library("mine")
    assert "mine" not in _reader(indexed).libraries()


def test_an_unwritable_views_file_loses_no_ingest(bundled, monkeypatch):
    pipeline, report = bundled

    def full(*a, **k):
        raise OSError("No space left on device")

    monkeypatch.setattr(snapshot, "save", full)
    result = pipeline.ingest(report, progress=False)
    assert result.papers and len(pipeline.searcher.paper_meta()) == pipeline.index().catalog.count()


def test_the_saved_views_are_the_views_whole_records_give(indexed, monkeypatch):
    """The writer builds every view from one pass over slim records (no abstract, no text): the same views."""
    names, facets = _saved_views(indexed.index().catalog)
    assert (names, facets) == _built_views(indexed, monkeypatch) and names and len(facets) == 13


def test_a_reader_counts_the_catalog_only_when_a_write_moved_it(indexed, monkeypatch):
    """COUNT(*) scans the catalog (30 ms at 740k papers) and a question refreshed ~8 times: 240 ms of every search at
    1M papers. The generation and revision, one-row reads that every write bumps, decide; the count follows a change."""
    reader = _reader(indexed)
    catalog = reader.index.catalog
    counted = []
    count = catalog.count
    monkeypatch.setattr(catalog, "count", lambda: counted.append(1) or count())
    reader.refresh()
    first = len(counted)
    assert first >= 1  # the first look
    for _ in range(3):
        _ids(reader), reader.venues(), reader.paper_meta()
    assert len(counted) == first  # nothing written since
    pid = next(iter(indexed.index().papers()))
    indexed.index().catalog.join_library([pid], "extra")  # another process's write
    assert "extra" in reader.libraries() and len(counted) > first


def test_a_reader_reads_only_the_views_its_questions_ask_for_from_the_file_it_opened(indexed):
    """Each saved view is unpickled when first asked for: a plain search asks for neither author-name map (at 100k
    papers they were ~0.25 s of a 0.34 s load). Views read later come from the file the reader opened, even after a
    writer replaced it, so one reader never mixes two versions of the collection."""
    reader = _reader(indexed)
    search(reader, "graph neural networks", k=5)
    assert "venue" in reader._facets and not {"authors by name", "surnames", "postings:year"} & set(reader._facets)
    saved = reader._saved
    catalog = indexed.index().catalog
    key = (catalog.count(), catalog.generation(), catalog.revision())
    surnames = snapshot.load(reader._views_path, key).facet("surnames")
    snapshot.save(reader._views_path, key, {}, {"surnames": {"someone": {"p0"}}})  # another writer's file
    assert saved.facet("surnames") == surnames and surnames and reader._papers_by_surname() == surnames
    assert snapshot.load(reader._views_path, key).facet("surnames") == {"someone": {"p0"}}


def test_a_store_saved_before_per_view_pickles_keeps_its_views_until_the_next_write(indexed, monkeypatch):
    """A VERSION 5 file (the key, then every view in one pickle) is read whole, not ignored: a reader of a store saved
    before this version does not build the views itself (minutes at 1M papers); the writer still saves them anew."""
    import pickle

    catalog = indexed.index().catalog
    key = (catalog.count(), catalog.generation(), catalog.revision())
    path = snapshot.path_for(catalog.path)
    saved = snapshot.load(path, key)
    views = {"names": saved.names, "facets": {name: saved.facet(name) for name in saved.facets()}}
    with open(path, "wb") as f:
        pickle.dump({"version": 5, "key": list(key)}, f)
        pickle.dump(views, f)
    assert not snapshot.is_current(path, key)
    monkeypatch.setattr("ragqa.retrieval.collection.method_names", lambda metas: pytest.fail("built the names"))
    reader = _reader(indexed)
    assert reader.venues() == views["facets"]["venue"] and reader._names == views["names"]
    monkeypatch.undo()
    reader.save_views()
    assert snapshot.is_current(path, key)


def _built_views(pipeline, monkeypatch):
    """Every saved view, built by a reader from whole records (no saved file)."""
    with monkeypatch.context() as m:
        m.setattr(snapshot, "load", lambda *a: None)
        built = _reader(pipeline)
        built.venues(), built.years(), built.topics(), built.statuses(), built.libraries(), built.authors()
        built.topic_index(), built._papers_by_surname()
        for name in ("venue", "year", "status", "topic text"):
            built._postings(name)
        state = lambda v: v.__getstate__() if type(v) in (AuthorIndex, TopicIndex) else v
        return built._names, {name: state(view) for name, view in built._facets.items() if name != "term stats"}


def _saved_views(catalog):
    saved = snapshot.load(snapshot.path_for(catalog.path), (catalog.count(), catalog.generation(), catalog.revision()))
    state = lambda v: v.__getstate__() if type(v) in (AuthorIndex, TopicIndex) else v
    return saved.names, {name: state(saved.facet(name)) for name in saved.facets()}


def test_an_ingest_that_only_adds_papers_extends_the_saved_views_as_a_build_over_every_record_gives(
        indexed, tmp_path, monkeypatch):
    """A write that only added papers extends the saved views by their records (a build over every record took 35 s at
    100k papers); any other change (here: papers joining a library) builds them anew. Either way they equal a build from
    whole records: new authors, a known author under another spelling, a known surname, new venues, years, topics,
    keywords and method names."""
    import json

    catalog = indexed.index().catalog
    known = next(a for m in indexed.index().papers().values() for a in m["authors"].split("; ") if " " in a)
    rows = [{"id": f"x{i}", "title": f"FoldNet{i}: Protein folding study {i}",
             "authors": [known.upper(), f"Ann {known.split()[-1]}", f"Bo Xu{i}"],
             "abstract": f"We fold proteins with transformers, study {i}. " * 4, "venue": "bioRxiv", "year": 2019 + i,
             "topic": "Applications->Biology", "keywords": "protein folding, structure"} for i in range(3)]
    path = tmp_path / "added.jsonl"
    path.write_text("\n".join(map(json.dumps, rows)))
    build = Searcher._build_views
    monkeypatch.setattr(Searcher, "_build_views", lambda self: pytest.fail("built the views from every record"))
    indexed.ingest(indexed.load([path])[0], progress=False)
    assert catalog.count() == 98 and "bioRxiv 2019" in _reader(indexed).venues()
    assert _saved_views(catalog) == _built_views(indexed, monkeypatch)

    monkeypatch.setattr(Searcher, "_build_views", lambda self: built.append(1) or build(self))
    built: list[int] = []
    # the same papers join a library: built anew
    indexed.ingest(indexed.load([path])[0], progress=False, library="again")
    assert (built and _saved_views(catalog) == _built_views(indexed, monkeypatch)
            and "again" in _reader(indexed).libraries())
