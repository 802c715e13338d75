"""Chunking and idempotent, incremental ingest into an embedded Chroma (hashing embedder)."""
from __future__ import annotations

import json

import pytest
import tiktoken

from ragqa.ingest.corpus import load_file
from ragqa.store.chunks import split_papers

ENC = tiktoken.get_encoding("cl100k_base")


def test_chunks_fit_the_token_budget_and_carry_metadata(bundled):
    pipeline, report = bundled
    nodes = split_papers(report.papers, pipeline.settings)
    assert len(nodes) > len(report.papers)  # long abstracts split
    for node in nodes:
        assert len(ENC.encode(node.get_content())) <= pipeline.settings.chunk_size
        assert node.metadata["paper_id"] and node.metadata["venue"] and node.metadata["label"]
        assert node.id_.startswith(node.metadata["paper_id"] + ":")
    ids = [n.id_ for n in nodes]
    assert len(ids) == len(set(ids))


def test_long_abstract_splits_at_sentences_with_overlap(bundled):
    pipeline, report = bundled
    longest = max(report.papers, key=lambda p: len(p.text))
    chunks = [n.get_content() for n in split_papers([longest], pipeline.settings)]
    assert len(chunks) >= 2
    assert all(c.rstrip()[-1] in ".!?)" for c in chunks[:-1])  # sentence boundaries
    assert chunks[1][:30] in longest.text and chunks[0][-30:] in longest.text
    tail_words = chunks[0].split()[-5:]
    assert " ".join(tail_words) in chunks[1]  # overlap


def test_ingest_is_idempotent(bundled):
    pipeline, report = bundled
    first = pipeline.ingest(report, progress=False)
    assert first.new_papers == 95 and first.embedded_chunks == first.chunks > 95
    again = pipeline.ingest(pipeline.load()[0], progress=False)
    assert again.new_papers == 0 and again.embedded_chunks == 0 and again.updated_papers == 0
    assert pipeline.index().count() == first.chunks


def test_adding_a_file_embeds_only_new_papers_and_keeps_old(indexed, tmp_path):
    before = indexed.index().count()
    new = tmp_path / "extra.jsonl"
    rows = [{"id": f"x{i}", "title": f"Paper {i}", "authors": ["A B"],
             "abstract": f"A new abstract number {i} about protein folding with transformers. " * 3, "venue": "ICML",
             "year": 2024} for i in range(3)]
    new.write_text("\n".join(json.dumps(r) for r in rows))
    report, _ = indexed.load([new])
    result = indexed.ingest(report, progress=False)
    assert result.new_papers == 3 and result.embedded_chunks == 3
    assert indexed.index().count() == before + 3
    stats = indexed.index().stats()
    assert stats["papers"] == 98 and stats["venues"]["ICML 2024"]["papers"] == 22


def test_metadata_merge_across_runs_does_not_reembed(settings, tmp_path):
    from ragqa.pipeline import Pipeline

    abstract = "We propose WidgetNet, a method for widgets that makes everything faster and better overall. " * 3
    (tmp_path / "a.txt").write_text(f"ICML 2024 论文列表\n\n{abstract}\n")
    (tmp_path / "b.txt").write_text(f"论文检索\n\nDeep Learning · Widgets\n\nAnn One, Bob Two\n\n{abstract}\n")
    pipeline = Pipeline(settings)
    pipeline.ingest(pipeline.load([tmp_path / "a.txt"])[0], progress=False)
    result = pipeline.ingest(pipeline.load([tmp_path / "b.txt"])[0], progress=False)
    assert result.updated_papers == 1 and result.embedded_chunks == 0
    (meta,) = pipeline.index().papers().values()
    assert (meta["venue"] == "ICML 2024" and meta["authors"] == "Ann One; Bob Two"
            and meta["topic"] == "Deep Learning · Widgets")


def test_changed_chunking_builds_a_new_collection(settings):
    from ragqa.pipeline import Pipeline

    a = Pipeline(settings).index(create=True).name
    b = Pipeline(settings.model_copy(update={"chunk_size": 120})).index(create=True).name
    assert a != b and "t120" in b and "hash-256" in a


def test_bad_records_do_not_lose_indexed_papers(indexed, tmp_path):
    before = indexed.index().count()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "abstract": ""}\n{oops\n')
    report, errors = indexed.load([bad, tmp_path / "missing.csv"])
    assert len(report.skipped) == 2 and len(errors) == 1 and report.papers == []
    assert indexed.index().count() == before


def test_load_file_jsonl_real_corpus_shape(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "zz", "openreview_id": "zz", "title": "T", "authors": ["A"], "keywords": ["k"],
                                "primary_area": "generative models", "abstract": "Some abstract text here. " * 5,
                                "venue": "ICLR", "year": 2024}))
    (paper,) = load_file(path).papers
    assert (paper.topic == "generative models" and paper.venue == "ICLR 2024"
            and dict(paper.extra)["openreview_id"] == "zz")


def _tiny_records(path, n, start=0, text="about graph learning"):
    rows = [{"id": f"p{i}", "title": f"Paper {i}",
             "abstract": f"Paper number {i} {text}. It has one more sentence {i}.",
             "venue": "ICML", "year": 2024} for i in range(start, start + n)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    return path


def test_reingesting_a_renamed_file_loses_no_paper(settings, tmp_path):
    """Issue 18.1: the renamed copy changes every paper's sources; the rewrite must stay under
    the store's batch limit (here 7 chunks) and delete nothing first."""
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings.model_copy(update={"write_batch_size": 7}))
    a = _tiny_records(tmp_path / "a.jsonl", 40)
    pipeline.ingest(pipeline.load([a])[0], progress=False)
    b = tmp_path / "b.jsonl"
    b.write_text(a.read_text())
    index = pipeline.index()
    generation = index.catalog.generation()
    again = pipeline.ingest(pipeline.load([b])[0], progress=False)
    assert again.updated_papers == 40 and again.embedded_chunks == 0
    # only the catalog holds a paper's sources: no chunk was rewritten, so the lexical index stays as it was
    assert index.catalog.generation() == generation and index.lexical() is not None
    stats = pipeline.index().stats()
    assert stats["papers"] == 40 and stats["chunks"] == 40
    (meta,) = [m for m in pipeline.index().papers().values() if m["source_id"] == "p3"]
    assert meta["sources"] == "a.jsonl; b.jsonl"
    c = tmp_path / "c.jsonl"  # renamed again, and a field every chunk carries changed: the chunks are rewritten
    c.write_text(a.read_text().replace('"venue": "ICML"', '"venue": "ICML", "primary_area": "graph learning"'))
    third = pipeline.ingest(pipeline.load([c])[0], progress=False)
    assert third.updated_papers == 40 and third.embedded_chunks == 0 and index.catalog.generation() == generation + 1
    assert {m["topic"] for _, m in index.all_metadata()} == {"graph learning"} and index.stats()["chunks"] == 40


def test_a_paper_missing_a_later_chunk_is_repaired(indexed):
    """Issue 18.2: completeness is checked by chunk count, so losing chunk 1 is seen and mended."""
    index = indexed.index()
    before = index.count()
    multi = next(pid for pid, m in index.papers().items() if m["n_chunks"] >= 2)
    index.collection.delete(ids=[f"{multi}:1"])
    assert index.incomplete() == {multi: 1}
    result = indexed.ingest(indexed.load()[0], progress=False)
    assert result.repaired_papers == 1 and result.embedded_chunks == 1
    assert index.count() == before and index.incomplete() == {}


def test_verify_repairs_without_the_source_files(indexed, capsys, monkeypatch):
    from ragqa import cli

    index = indexed.index()
    multi = next(pid for pid, m in index.papers().items() if m["n_chunks"] >= 2)
    index.collection.delete(ids=[f"{multi}:1"])
    monkeypatch.setenv("RAGQA_VECTORSTORE_DIR", str(indexed.settings.vectorstore_dir))
    monkeypatch.setenv("RAGQA_EMBED_MODEL", "hash")
    monkeypatch.setenv("RAGQA_DATA_DIR", "/nonexistent")  # the stored chunks are enough
    from ragqa.store.index import PaperIndex

    reads = []
    all_metadata = PaperIndex.all_metadata
    monkeypatch.setattr(PaperIndex, "all_metadata",
                        lambda self, *a, **kw: reads.append(1) or all_metadata(self, *a, **kw))
    code = cli.main(["ingest", "--verify"])
    out = capsys.readouterr().out
    assert code == 0 and "1 incomplete papers" in out and "0 still incomplete" in out
    assert len(reads) == 2  # every chunk read once to find what is missing or orphaned, once to check the repair
    assert index.incomplete() == {}


def test_a_corrected_abstract_under_the_same_id_replaces_the_old_one(settings, tmp_path):
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings)
    a = _tiny_records(tmp_path / "lib.jsonl", 5)
    pipeline.ingest(pipeline.load([a])[0], progress=False)
    _tiny_records(a, 5, text="about graph learning, corrected")
    result = pipeline.ingest(pipeline.load([a])[0], progress=False)
    assert result.new_papers == 5 and result.replaced_papers == 5
    metas = pipeline.index().papers().values()
    assert len(metas) == 5 and all("corrected" in m["text"] for m in metas)


def test_same_id_in_another_library_with_another_title_is_kept(settings, tmp_path):
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings)
    pipeline.ingest(pipeline.load([_tiny_records(tmp_path / "one.jsonl", 3)])[0], progress=False)
    other = tmp_path / "two.jsonl"
    other.write_text("\n".join(json.dumps({"id": f"p{i}", "title": f"Other {i}",
                                           "abstract": f"A different study {i} of proteins."}) for i in range(3)))
    result = pipeline.ingest(pipeline.load([other])[0], progress=False)
    assert result.replaced_papers == 0 and pipeline.index().stats()["papers"] == 6


def test_ingest_embeds_similar_lengths_together_and_each_chunk_keeps_its_own_vector(settings):
    """Texts reach the embedder shortest first within a write batch (less padding per batch); sorting must not
    hand any chunk another chunk's vector."""
    import numpy as np

    from ragqa.models.hashing import HashingEmbedding
    from ragqa.pipeline import Pipeline

    calls: list[list[str]] = []

    class Recording(HashingEmbedding):
        def _get_text_embeddings(self, texts):
            calls.append(list(texts))
            return super()._get_text_embeddings(texts)

    pipeline = Pipeline(settings, ingest_embedder=Recording(embed_batch_size=8))
    pipeline.ingest(pipeline.load()[0], progress=False)
    texts = [t for call in calls for t in call]
    assert len(calls) > 1 and len(texts) == pipeline.index().count() < settings.write_batch_size  # one write batch
    assert [len(t) for t in texts] == sorted(len(t) for t in texts)
    got = pipeline.index().collection.get(include=["embeddings", "documents"])
    plain = HashingEmbedding()
    for doc, vector in zip(got["documents"], got["embeddings"]):
        own = [t for t in texts if t.endswith(doc)]  # the embedded text: the chunk, after its title line
        assert own and any(np.allclose(vector, plain.get_text_embedding(t), atol=1e-6) for t in own)


def test_an_ingest_in_slices_writes_what_one_slice_writes(settings, tmp_path):
    """Papers go in slices (a million never sit in memory as chunks): three-paper slices build the same store,
    and count the same new / updated papers, as one slice."""
    from ragqa.pipeline import Pipeline

    a = _tiny_records(tmp_path / "a.jsonl", 10)
    b = _tiny_records(tmp_path / "b.jsonl", 4, start=8)  # p8, p9 again (another source) and two new
    stores = []
    for name, size in (("one", 20000), ("sliced", 3)):
        pipeline = Pipeline(settings.model_copy(update={"ingest_slice_papers": size,
                                                        "vectorstore_dir": tmp_path / name}))
        first = pipeline.ingest(pipeline.load([a])[0], progress=False)
        second = pipeline.ingest(pipeline.load([b])[0], progress=False)
        assert (first.new_papers, first.embedded_chunks, second.new_papers, second.updated_papers) == (10, 10, 2, 2)
        index = pipeline.index()
        got = index.collection.get(include=["embeddings", "metadatas"])
        chunks = {cid: ([round(x, 6) for x in vec], meta)
                  for cid, vec, meta in zip(got["ids"], got["embeddings"], got["metadatas"])}
        stores.append((chunks, index.papers(), index.catalog.term_frequencies(["graph", "learning", "paper"])))
    assert stores[0] == stores[1] and len(stores[0][0]) == 12


def test_a_vector_index_chroma_could_not_finish_saving_is_reported_and_rebuilt_from_the_catalog(settings, tmp_path):
    """A 1M-paper ingest killed while Chroma saved its HNSW files left a truncated index_metadata.pickle: every read
    then failed with Chroma's traceback. Now one line says so and what to run; `ragqa ingest --verify` drops the vectors
    and embeds every paper again from the catalog, which the kill did not touch. Each step is its own process, as a
    user's are (Chroma first writes that file past 1,000 vectors, hence 1,100 papers)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from ragqa.pipeline import Pipeline

    rows = [{"id": f"p{i}", "title": f"Paper {i}",
             "abstract": f"Paper {i} studies zq{i}x and wv{i}y. It has one more sentence."}
            for i in range(1100)]
    (tmp_path / "lib.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    Pipeline(settings).ingest(Pipeline(settings).load([tmp_path / "lib.jsonl"])[0], progress=False)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAGQA_")}, "HF_HUB_OFFLINE": "1",
           "RAGQA_VECTORSTORE_DIR": str(settings.vectorstore_dir), "RAGQA_EMBED_MODEL": "hash",
           "RAGQA_DATA_DIR": "/nonexistent"}

    def ragqa(*args):
        return subprocess.run([str(Path(sys.executable).with_name("ragqa")), *args], env=env, capture_output=True,
                              text=True, timeout=300)
    query = "work on zq17x and wv17y"  # words only Paper 17 has

    def top(result):  # titles of the papers with the best score: Paper 17 is BM25's only hit, so it gets 1/61, which
        # a paper only the dense list ranks first ties (the hash embedder's vectors are near-equal for these abstracts,
        # and HNSW picks among them differently per build): asserting "1. Paper 17" failed when the tie went the
        # other way
        hits = json.loads(result.stdout)["results"]
        return len(hits), {h["title"] for h in hits if h["score"] == hits[0]["score"]}
    before = ragqa("search", query, "--k", "5", "--json")
    (saved,) = settings.vectorstore_dir.glob("*/index_metadata.pickle")
    saved.write_bytes(saved.read_bytes()[:len(saved.read_bytes()) // 2])
    broken = ragqa("search", query, "--k", "5")
    assert broken.returncode != 0 and "Traceback" not in broken.stderr and len(broken.stderr.strip().splitlines()) == 1
    assert "ragqa ingest --verify" in broken.stderr
    damaged_folder = saved.parent
    repaired = ragqa("ingest", "--verify")
    assert repaired.returncode == 0 and "1100 incomplete papers" in repaired.stdout, repaired.stderr
    assert not damaged_folder.exists()  # Chroma 1.x leaves a dropped collection's folder behind: removed
    assert len(list(settings.vectorstore_dir.glob("*/index_metadata.pickle"))) == 1  # the rebuilt index only
    assert ("every paper is complete (1100 papers, 1100 chunks, each with its vector)"
            in ragqa("ingest", "--verify").stdout)
    after = ragqa("search", query, "--k", "5", "--json")
    assert before.returncode == after.returncode == 0
    assert top(before)[1] >= {"Paper 17"} and top(after)[1] >= {"Paper 17"}
    dense = ragqa("search", query, "--k", "5", "--json", "--mode", "dense")  # the rebuilt vectors answer on their own
    assert dense.returncode == 0 and top(dense)[0] == 5


def test_sigterm_stops_an_ingest_between_writes_and_the_same_command_goes_on(settings, tmp_path):
    """SIGTERM (docker stop, a session's end) used to kill `ragqa ingest` wherever it was, inside Chroma's save of its
    vector index too; now it stops between Python steps with one line, the store stays readable, and the same command
    writes the rest (a shell's background job, as here, inherits SIGINT ignored: SIGTERM is what reaches it)."""
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import time
    from pathlib import Path

    rows = [{"id": f"p{i}", "title": f"Paper {i}",
             "abstract": f"Paper {i} studies zq{i}x and wv{i}y. It has one more sentence."}
            for i in range(3000)]
    (tmp_path / "lib.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    store = tmp_path / "store"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAGQA_")}, "HF_HUB_OFFLINE": "1",
           "RAGQA_VECTORSTORE_DIR": str(store), "RAGQA_EMBED_MODEL": "hash", "RAGQA_DATA_DIR": "/nonexistent",
           "RAGQA_WRITE_BATCH_SIZE": "50"}
    ragqa = str(Path(sys.executable).with_name("ragqa"))
    proc = subprocess.Popen([ragqa, "ingest", "--quiet", str(tmp_path / "lib.jsonl")], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def written():
        try:
            with sqlite3.connect(next(store.glob("*.catalog.sqlite"))) as db:
                return db.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
        except (StopIteration, sqlite3.Error):
            return 0
    deadline = time.time() + 120
    while written() < 200 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "ingest stopped" in err and "Traceback" not in err, (proc.returncode, err[-500:])
    first = written()
    assert 0 < first < 3000
    search = subprocess.run([ragqa, "search", "work on zq7x and wv7y", "--k", "3"], env=env, capture_output=True,
                            text=True)
    assert search.returncode == 0, search.stderr
    again = subprocess.run([ragqa, "ingest", "--quiet", str(tmp_path / "lib.jsonl")], env=env, capture_output=True,
                           text=True)
    assert again.returncode == 0 and f"{3000 - first} new" in again.stdout, again.stdout + again.stderr
    assert "every paper is complete (3000 papers, 3000 chunks, each with its vector)" in subprocess.run(
        [ragqa, "ingest", "--verify"], env=env, capture_output=True, text=True).stdout


def test_verify_reads_the_papers_it_repairs_from_the_catalog_a_slice_at_a_time():
    """`--verify` after a rebuild held all 436,563 records at once (6.7 GB peak): CatalogPapers reads a slice when
    asked."""
    from ragqa.store.repair import CatalogPapers

    class Catalog:
        def __init__(self):
            self.asked = []

        def get(self, ids):
            self.asked.append(list(ids))
            return {pid: (f"paper {pid}", 1) for pid in ids if pid != "gone"}

    catalog = Catalog()
    papers = CatalogPapers(catalog, ["a", "b", "gone", "c", "d"])
    assert len(papers) == 5 and catalog.asked == []
    assert papers[0:2] == ["paper a", "paper b"] and papers[2:4] == ["paper c"] and papers[4] == "paper d"
    assert catalog.asked == [["a", "b"], ["gone", "c"], ["d"]]


def test_searching_an_empty_index_says_to_ingest_without_counting_chroma(settings, monkeypatch):
    """Chroma's count took 5.3 s of a 13 s cold search at 1.9M chunks: emptiness is asked of the catalog."""
    from ragqa.errors import IndexMissingError
    from ragqa.pipeline import Pipeline
    from ragqa.store.index import PaperIndex

    Pipeline(settings).index(create=True)  # a collection and a catalog, no paper
    with pytest.raises(IndexMissingError, match="is empty. Run 'ragqa ingest'"):
        Pipeline(settings).searcher
    pipeline = Pipeline(settings)
    pipeline.ingest(pipeline.load()[0], progress=False)
    monkeypatch.setattr(PaperIndex, "count", lambda self: (_ for _ in ()).throw(AssertionError("counted Chroma")))
    assert Pipeline(settings).searcher is not None


def test_a_reader_loads_the_vector_index_in_a_thread_while_it_starts(indexed, monkeypatch):
    """Chroma loads its HNSW index on the first query (5.5 s at 1.9M chunks) and releases the GIL meanwhile: a searcher
    starts that load beside its own start-up; the load itself is one query, and a failure there stays silent."""
    import threading

    from ragqa.pipeline import Pipeline
    from ragqa.store.index import PaperIndex

    seen = []
    monkeypatch.setattr(PaperIndex, "load_vectors", lambda self: seen.append(threading.current_thread().name))
    Pipeline(indexed.settings).searcher
    for thread in threading.enumerate():
        if thread.name == "ragqa-load-vectors":
            thread.join(10)
    assert seen == ["ragqa-load-vectors"]
    monkeypatch.undo()
    index = indexed.index()
    queried = []
    model = index.collection.get_model()
    monkeypatch.setattr(index, "collection", type("C", (), {"get_model": lambda self: model,
                                                            "query": lambda self, **kw: queried.append(kw) or 1 / 0})())
    index.load_vectors()  # ZeroDivisionError swallowed: the question's query reports failures
    (vector,) = queried[0]["query_embeddings"]  # a unit vector of the collection's dimension: no embedder needed
    assert queried[0]["n_results"] == 1 and len(vector) == model.dimension == 256 and sum(x * x for x in vector) == 1.0
