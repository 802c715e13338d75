"""Evidence: sentence splitting at abbreviations and fitting sources into the prompt budget."""
from __future__ import annotations

import pytest

from ragqa.answer.evidence import fit_budget
from ragqa.answer.prompting import render_sources
from ragqa.text.sentences import split_sentences
from tests.fakes import fake_sources as _sources


def test_prompt_budget_is_respected(settings):
    settings.prompt_budget = 200
    sources = _sources(n=4, sentences=8)
    from ragqa.answer.evidence import count_tokens

    fitted = fit_budget(sources, settings)
    assert count_tokens(render_sources(fitted, settings)) <= 200
    assert fitted[0].n == 1 and len(fitted[0].evidence) >= 1


def test_evidence_sentences_do_not_end_at_abbreviations():
    text = ("Prior work (Smith et al. (2023)) is slow. We speed up encoders, e.g. BERT, by 3x. "
            "See Fig. 2 for results; it beats pruning vs. distillation! Code is public.")
    assert split_sentences(text) == ["Prior work (Smith et al. (2023)) is slow.",
                                     "We speed up encoders, e.g. BERT, by 3x.",
                                     "See Fig. 2 for results; it beats pruning vs. distillation!", "Code is public."]


def test_a_quote_comes_from_the_papers_own_part_before_its_background():
    from ragqa.text.sentences import own_part_first

    sentences = ["Data valuation plays a crucial role in machine learning.", "Existing methods are slow.",
                 "We propose GMV, a training-free valuation method.", "GMV is 10x faster than Shapley sampling."]
    # the authors' words, the rest of their part, background
    assert own_part_first([0, 3, 1, 2], sentences) == [2, 3, 0, 1]
    # no own part: as ranked
    assert own_part_first([1, 0], ["A background sentence.", "No authors speak here."]) == [1, 0]


def test_sentences_glued_by_a_lost_space_are_split():
    from ragqa.text.sentences import split_sentences

    assert split_sentences("We study dirty samples.The code is available at https://github.com/a/b. See Fig. 2.") == [
        "We study dirty samples.", "The code is available at https://github.com/a/b.", "See Fig. 2."]
    assert (split_sentences("Results on github.com/x and e.g. BERT hold.")
            == ["Results on github.com/x and e.g. BERT hold."])


@pytest.mark.parametrize("sentence, available", [
    ("Our code is available at https://github.com/ubc-tea/GMValuator.", True),
    ("The code will be released.", True),
    ("Code: github.com/microsoft/BatchPrompt", True),
    ("Datasets and code are publicly available.", True),
    # says what the paper does, and mentions a link in passing
    ("We develop VFLAIR (available at https://github.com/x/y), an extensible and lightweight framework that supports "
     "many models, datasets and attacks, and benchmark eleven defenses on it across thirteen tasks.", False),
    ("We release a dataset of 10k proofs and show that fine-tuning on it doubles accuracy.", False),
])
def test_available_at(sentence, available):
    from ragqa.text.sentences import available_at

    assert available_at(sentence) is available


def test_a_code_link_is_quoted_last():
    from ragqa.text.sentences import own_part_first

    sentences = ["LLMs estimate densities in context.", "Our codebase is publicly available at https://github.com/a/b.",
                 "We find their trajectories follow a low-dimensional path."]
    assert own_part_first([1, 2, 0], sentences)[-1] == 1
