"""A library as researchers export it (#46 1): every entry of a raw .bib kept, records without an abstract indexed as
metadata-only papers that answer who wrote them, appear in lists and counts, and are never quoted as evidence."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragqa.answer.ask import ask
from ragqa.config import Settings
from ragqa.ingest.corpus import load_paths
from ragqa.pipeline import Pipeline
from ragqa.query.request import Filters
from tests.fakes import ScriptedLLM

ROOT = Path(__file__).resolve().parents[2]
BIB = ROOT / "tests" / "data" / "libraries" / "real-world.bib"


@pytest.fixture()
def library(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", vectorstore_dir=tmp_path / "vs", embed_model="hash",
                        model_cache_dir=tmp_path / "cache", min_relevance=0.1,
                        calibration_file=ROOT / "tests" / "data" / "calibration-hash.json")
    pipeline = Pipeline(settings)
    report, errors = load_paths([BIB])
    assert errors == [] and report.skipped == []
    result = pipeline.ingest(report, progress=False)
    pipeline.use_llms(ScriptedLLM(["Unused [1]."] * 5))
    return pipeline, report, result


def test_every_entry_of_a_raw_bib_is_kept_and_papers_are_the_distinct_papers(library):
    pipeline, report, result = library
    assert report.entries == 8  # two papers share the key li2024learning; one has a sloppy author list
    assert [w.source for w in report.warnings] == ["real-world.bib:li2024learning"]
    # Adam twice (with its abstract, and bare under another key): one paper, the bare record merged into it
    assert result.merged_records == 1 and result.papers == 7 and pipeline.index().catalog.count() == 7
    assert result.metadata_only == 4  # Transformer, DDPM, ResNet, LoRA: title, authors, venue and year only
    adam = [p for p, _ in pipeline.index().catalog.all().values() if p.title.startswith("Adam")]
    assert len(adam) == 1 and not adam[0].metadata_only
    assert pipeline.index().stats()["metadata_only"] == 4


def _cited_titles(answer) -> list[str]:
    return [c.title for c in answer.citations]


def test_who_wrote_a_paper_held_without_its_abstract(library):
    pipeline, _, _ = library
    answer = ask(pipeline, "Who wrote Attention Is All You Need?")
    assert not answer.abstained and _cited_titles(answer) == ["Attention Is All You Need"]
    assert "Vaswani" in answer.text and "Shazeer" in answer.text


def test_a_paper_without_its_abstract_is_never_evidence_for_what_it_says(library):
    pipeline, _, _ = library
    answer = ask(pipeline, "What does Denoising Diffusion Probabilistic Models propose?")
    assert not answer.abstained and answer.mode == "record" and answer.why == "no abstract"
    assert _cited_titles(answer) == ["Denoising Diffusion Probabilistic Models"]
    assert all("Denoising Diffusion Probabilistic Models" not in ev for c in answer.citations for ev in c.evidence)
    assert pipeline._llm.prompts == []  # the model never saw a title as if it were the paper's text


def test_papers_without_an_abstract_appear_in_lists_and_counts(library):
    pipeline, _, _ = library
    listed = ask(pipeline, "Which NeurIPS papers are in the library?")
    assert sorted(_cited_titles(listed)) == ["Attention Is All You Need", "Denoising Diffusion Probabilistic Models"]
    assert listed.counted and len(listed.counted) == 2
    counted = ask(pipeline, "How many papers are in the library?")
    assert len(counted.counted) == 7 and re.search(r"\b7\b", counted.text)
    # Adam (ICLR 2015, with abstract) and LoRA (ICLR 2022, bare)
    iclr = ask(pipeline, "How many ICLR papers are there?")
    assert len(iclr.counted) == 2


def test_a_record_completed_by_a_later_import_replaces_the_bare_one(library, tmp_path):
    pipeline, _, _ = library
    path = tmp_path / "lora.jsonl"
    path.write_text('{"id": "lora", "title": "LoRA: Low-Rank Adaptation of Large Language Models", "authors": '
                    '["Edward J. Hu", "Yelong Shen"], "venue": "ICLR 2022", "abstract": "We propose Low-Rank '
                    'Adaptation, which freezes the pretrained weights and injects trainable rank decomposition '
                    'matrices into each layer of the Transformer, cutting the number of trainable parameters by 10,000 '
                    'times."}\n')
    report, _ = load_paths([path])
    result = pipeline.ingest(report, progress=False, library="other")
    assert result.replaced_papers == 1
    lora = [p for p, _ in pipeline.index().catalog.all().values() if p.title.startswith("LoRA")]
    assert len(lora) == 1 and not lora[0].metadata_only
    assert set(pipeline.index().catalog.library_of([lora[0].paper_id])[lora[0].paper_id]) == {"default", "other"}


ABSTRACT = ("We study {} with a method that we describe in enough words to be an abstract of a paper, and we report "
            "results.")
SOURCES = {  # one ICLR 2024 paper per format, its venue as that source writes it
    "a.jsonl": '{{"id": "j1", "title": "Paper J", "abstract": "{a}", "venue": "ICLR 2024", "year": 2024}}\n',
    "b.bib": "@inproceedings{{b1, title={{Paper B}}, author={{Doe, Jane}}, year={{2024}}, abstract={{{a}}},\n"
             "  booktitle={{The Twelfth International Conference on Learning Representations}}}}\n",
    "c.ris": "TY  - CONF\nTI  - Paper R\nAU  - Roe, Rick\nAB  - {a}\nPY  - 2024///\n"
             "T2  - International Conference on Learning Representations\nER  - \n",
    "d.json": '[{{"id": "c1", "type": "paper-conference", "title": "Paper C", "abstract": "{a}", '
              '"container-title": "International Conference on Learning Representations", '
              '"issued": {{"date-parts": [[2024, 5]]}}, "author": [{{"family": "Coe", "given": "Cy"}}]}}]\n',
    "e.jsonl": '{{"id": "2401.00001", "title": "Paper X", "authors": "Ann Xu", "abstract": "{a}", '
               '"journal-ref": "Published as a conference paper at ICLR 2024", "categories": "cs.LG", '
               '"versions": [{{"created": "Mon, 1 Jan 2024 00:00:00 GMT"}}]}}\n',
    "f.json": '[{{"id": "or1", "forum": "or1", "content": {{"title": {{"value": "Paper O"}}, "abstract": {{"value": '
              '"{a}"}}, "authors": {{"value": ["Olga O"]}}, "venue": {{"value": "ICLR 2024 poster"}}, '
              '"venueid": {{"value": "ICLR.cc/2024/Conference"}}}}}}]\n',
}


def test_venue_filters_and_counts_agree_across_every_import_format(tmp_path):
    """The same conference written six ways (JSONL, BibTeX, RIS, CSL-JSON, arXiv, OpenReview) is one venue (#46 2)."""
    files = []
    for name, text in SOURCES.items():
        files.append(tmp_path / name)
        files[-1].write_text(text.format(a=ABSTRACT.format(name)), encoding="utf-8")
    report, errors = load_paths(files)
    assert errors == [] and report.skipped == [] and len(report.papers) == 6
    assert {p.sources[0]: p.venue for p in report.papers} == {name: "ICLR 2024" for name in SOURCES}
    settings = Settings(data_dir=tmp_path / "data", vectorstore_dir=tmp_path / "vs", embed_model="hash",
                        model_cache_dir=tmp_path / "cache")
    pipeline = Pipeline(settings)
    pipeline.ingest(report, progress=False)
    searcher = pipeline.searcher
    searcher.refresh()
    assert searcher.venues() == ["ICLR 2024"]
    assert searcher.counts("venue", None) == {"ICLR 2024": 6}
    assert len(searcher.admitted(searcher.check_filters(Filters(venue="iclr 2024")))) == 6
    assert len(searcher.admitted(searcher.check_filters(Filters(year=2024)))) == 6
