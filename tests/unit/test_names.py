"""The name index: full-text look-ups written by every catalog write, spelling variants, an old catalog's migration."""
from __future__ import annotations

import json
import sqlite3

from ragqa.ingest.corpus import load_paths
from ragqa.ingest.paper import LoadReport
from ragqa.query.names import NameIndex, parts
from ragqa.store.catalog import Catalog


def _papers(tmp_path, rows):
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return load_paths([path])[0].papers


ROWS = [
    {"id": "a", "title": "Scaling GPT4 Evaluations", "authors": ["Ada Lovelace"],
     "abstract": "We compare ResNet50 features with a transformer. Results hold across many seeds and several "
                 "datasets."},
    {"id": "b", "title": "A study of adapters", "authors": ["Alan Turing", "Grace Hopper"],
     "abstract": "In this work we propose SpecDec, a speculative decoder. It verifies draft tokens with the large "
                 "model."},
]


def test_spellings_of_a_name_all_match(settings, tmp_path):
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings)
    pipeline.ingest(LoadReport(papers=_papers(tmp_path, ROWS)), progress=False)
    names = pipeline.searcher.names
    for spelled in ("GPT-4", "GPT4", "gpt 4", "ResNet-50", "resnet50", "SpecDec", "specdecs", "Hopper", "Grace Hopper",
                    # the last word's s added or dropped
                    "Scaling GPT4 Evaluation", "draft token", "Speculative Decoders"):
        assert names.mentions(spelled), spelled
    for absent in ("GPT-5", "ResNet-18", "SpecDecoder", "Lamport", "draft tokenizer"):
        assert not names.mentions(absent), absent
    assert names.introduces("SpecDec")  # "we propose SpecDec" in its abstract
    assert names.introduces("GPT-4")  # in a title
    assert names.introduces("Turing")  # an author's surname: "the Turing paper"
    assert not names.introduces("ResNet-50")  # only compared with, never introduced
    assert parts("SVD-style") == ["svd"] and parts("GPT-4o") == ["gpt", "4", "o"]


def test_the_index_follows_ingest_update_and_removal(settings, tmp_path):
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings)
    pipeline.ingest(LoadReport(papers=_papers(tmp_path, ROWS[:1])), progress=False, library="one")
    assert not pipeline.searcher.names.mentions("SpecDec")
    pipeline.ingest(LoadReport(papers=_papers(tmp_path, ROWS[1:])), progress=False, library="two")
    assert pipeline.searcher.names.mentions("SpecDec") and pipeline.searcher.names.mentions("Turing")
    pipeline.remove_library("two")
    assert not pipeline.searcher.names.mentions("SpecDec") and not pipeline.searcher.names.mentions("Turing")
    assert pipeline.searcher.names.mentions("GPT-4")


def test_a_catalog_from_before_the_name_index_is_indexed_on_open(tmp_path):
    path = tmp_path / "catalog.sqlite"
    catalog = Catalog(path)
    papers = _papers(tmp_path, ROWS)
    catalog.upsert(papers, {p.paper_id: 1 for p in papers})
    db = sqlite3.connect(path)  # take the name index away, as a catalog written by an earlier version had none
    for trigger in ("names_insert", "names_delete", "names_update", "author_names_insert", "author_names_delete"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE names")
    db.execute("DROP TABLE author_names")
    db.commit()
    db.close()
    names = NameIndex(Catalog(path), lambda: {})
    assert names.mentions("SpecDec") and names.mentions("Lovelace") and names.introduces("SpecDec")
