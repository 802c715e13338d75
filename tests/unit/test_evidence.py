"""Evidence: sentence splitting at abbreviations and fitting sources into the prompt budget."""
from __future__ import annotations

from ragqa.evidence import fit_budget, split_sentences
from ragqa.prompting import render_sources
from tests.fakes import fake_sources as _sources


def test_prompt_budget_is_respected(settings):
    settings.prompt_budget = 200
    sources = _sources(n=4, sentences=8)
    from ragqa.evidence import count_tokens

    fitted = fit_budget(sources, settings)
    assert count_tokens(render_sources(fitted, settings)) <= 200
    assert fitted[0].n == 1 and len(fitted[0].evidence) >= 1


def test_evidence_sentences_do_not_end_at_abbreviations():
    text = ("Prior work (Smith et al. (2023)) is slow. We speed up encoders, e.g. BERT, by 3x. "
            "See Fig. 2 for results; it beats pruning vs. distillation! Code is public.")
    assert split_sentences(text) == ["Prior work (Smith et al. (2023)) is slow.", "We speed up encoders, e.g. BERT, by 3x.",
                                     "See Fig. 2 for results; it beats pruning vs. distillation!", "Code is public."]


def test_a_quote_comes_from_the_papers_own_part_before_its_background():
    from ragqa.evidence import own_part_first

    sentences = ["Data valuation plays a crucial role in machine learning.", "Existing methods are slow.",
                 "We propose GMV, a training-free valuation method.", "GMV is 10x faster than Shapley sampling."]
    assert own_part_first([0, 3, 1, 2], sentences) == [2, 3, 0, 1]  # the authors' words, the rest of their part, background
    assert own_part_first([1, 0], ["A background sentence.", "No authors speak here."]) == [1, 0]  # no own part: as ranked
