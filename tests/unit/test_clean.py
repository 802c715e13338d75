"""LaTeX/markdown cleaning, hyphenation repair and display labels."""
from __future__ import annotations

import pytest

from ragqa.text.clean import clean_text, corpus_vocabulary, dehyphenate, make_label


@pytest.mark.parametrize("raw,expected", [
    ("the value $q^\\pi$ of", "the value q^π of"),
    ("a \\emph{VQA-Constraints} test-bed", "a VQA-Constraints test-bed"),
    ("$\\text{\\textit{concentrability}}$ holds", "concentrability holds"),
    ("the *lazy regime* and _shared space_", "the lazy regime and shared space"),
    ("**M**ulti-**Q**uery", "Multi-Query"),
    ("our [code](https://x.org/y) is", "our code is"),
    ("see [https://x.org](https://x.org)", "see https://x.org"),
    ("\\url{https://github.com/a/b}", "https://github.com/a/b"),
    ("improves by **6.16\\%**", "improves by 6.16%"),
    ("state- of-the-art", "state-of-the-art"),
    ("LLMs.To overcome", "LLMs. To overcome"),
    ("rates $\\tilde{O}(\\sqrt{T})$ hold", "rates Õ(√(T)) hold"),
])
def test_clean_text(raw, expected):
    assert clean_text(raw) == expected


def test_clean_keeps_plain_text_and_snake_case():
    text = "We use snake_case_names and 5 * 3 = 15 in a sentence."
    assert clean_text(text) == text


def test_dehyphenate_joins_line_wrap_artifacts_only():
    vocab = corpus_vocabulary(["neural networks are networks", "self-supervised learning", "net-works"])
    assert dehyphenate("deep neural net-works", vocab) == "deep neural networks"
    assert dehyphenate("self-supervised pre-training", vocab) == "self-supervised pre-training"


@pytest.mark.parametrize("text,label", [
    ("We introduce the Distributed-order fRActional Graph Operating Network (DRAGON), a novel GNN.", "DRAGON"),
    ("In this work we propose JKOnet*, a model for diffusion.", "JKOnet*"),
    ("We present InterpBench, a collection of semi-synthetic transformers.", "InterpBench"),
    ("Embedders play a central role in machine learning, projecting objects into vectors.",
     "Embedders play a central role in machine learning"),
])
def test_make_label(text, label):
    assert make_label(text) == label


def test_a_hyphenated_compound_word_is_no_method_name():
    text = ("We propose a Region-Aware medical MLLM, MedRegA, which is the first bilingual generalist medical AI "
            "system.")
    assert make_label(text, title="Interpretable Bilingual Multimodal LLM for Biomedical Tasks") == "MedRegA"
    # the title uses it as a name: it is one
    assert (make_label("We propose Tree-Planner, which plans tasks.", title="Tree-Planner: Efficient Task Planning")
            == "Tree-Planner")
    assert make_label("We propose OC-Flow, a guidance method.", title="Training Free Guided Flow-Matching") == "OC-Flow"


def test_label_prefers_title_and_clips():
    assert make_label("whatever", title="A Title") == "A Title"
    assert len(make_label("word " * 100)) <= 61


def test_a_titled_paper_is_labelled_by_the_name_its_abstract_gives_its_method():
    text = "We revisit convolutions and attention. We verify the proposed integration scheme, named GLMix: it is fast."
    assert make_label(text, "Revisiting the Integration of Convolution and Attention for Vision Backbone") == "GLMix"
    # the title's own leading name stays; a compound of words is no name
    assert make_label(text, "SAS: Structured Activation Sparsification").startswith("SAS: Structured")
    compound = "We study linearity, a property called Cross-Task linearity, in fine-tuned models."
    assert make_label(compound, "On the Emergence of Cross-Task Linearity").startswith("On the Emergence")
