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
