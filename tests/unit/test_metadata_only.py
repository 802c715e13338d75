"""A library as researchers export it (#46 1): every entry of a raw .bib kept, records without an abstract indexed as
metadata-only papers that answer who wrote them, appear in lists and counts, and are never quoted as evidence."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragqa.ask import ask
from ragqa.config import Settings
from ragqa.corpus import load_paths
from ragqa.pipeline import Pipeline
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
    pipeline._llm = pipeline._fast_llm = pipeline._rewrite_llm = ScriptedLLM(["Unused [1]."] * 5)
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
    iclr = ask(pipeline, "How many ICLR papers are there?")  # Adam (ICLR 2015, with abstract) and LoRA (ICLR 2022, bare)
    assert len(iclr.counted) == 2


def test_a_record_completed_by_a_later_import_replaces_the_bare_one(library, tmp_path):
    pipeline, _, _ = library
    path = tmp_path / "lora.jsonl"
    path.write_text('{"id": "lora", "title": "LoRA: Low-Rank Adaptation of Large Language Models", "authors": '
                    '["Edward J. Hu", "Yelong Shen"], "venue": "ICLR 2022", "abstract": "We propose Low-Rank Adaptation, '
                    'which freezes the pretrained weights and injects trainable rank decomposition matrices into each '
                    'layer of the Transformer, cutting the number of trainable parameters by 10,000 times."}\n')
    report, _ = load_paths([path])
    result = pipeline.ingest(report, progress=False, library="other")
    assert result.replaced_papers == 1
    lora = [p for p, _ in pipeline.index().catalog.all().values() if p.title.startswith("LoRA")]
    assert len(lora) == 1 and not lora[0].metadata_only
    assert set(pipeline.index().catalog.library_of([lora[0].paper_id])[lora[0].paper_id]) == {"default", "other"}
