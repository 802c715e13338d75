"""Paper names: by title, method name or authors, never a label's opening words."""
from __future__ import annotations

import pytest

from ragqa.answer.naming import paper_name


@pytest.mark.parametrize("meta, name", [
    ({"title": "Vision Transformers Need Registers", "label": "Vision Transformers Need Registers"},
     "Vision Transformers Need Registers"),
    ({"label": "DiffAug", "authors": "Chandramouli Sastry; Sri Harsha Dumpala"}, "DiffAug"),  # a method name wins
    ({"label": "Understanding the mechanisms of information…", "authors": "Samyadeep Basu"}, "Basu"),
    ({"label": "Understanding the mechanisms of information…", "authors": "Samyadeep Basu; Martin Grayson"},
     "Basu and Grayson"),
    ({"label": "Understanding the mechanisms of information…",
      "authors": "Samyadeep Basu; Martin Grayson; Cecily Morrison"}, "Basu et al."),
    ({"label": "Understanding the mechanisms of information…", "authors": "Samyadeep Basu", "authors_truncated": True},
     "Basu et al."),
    # never its opening words
    ({"label": "Embedders play a central role in machine learning", "authors": ""}, "a paper"),
    ({"label": "Embedders play a central role in machine learning", "authors": "", "venue": "ICLR 2024"},
     "an ICLR 2024 paper"),
])
def test_a_paper_is_named_by_title_method_or_authors(meta, name):
    assert paper_name(meta) == name


LORA = ("An important paradigm of natural language processing consists of large-scale pre-training on general domain "
        "data. As we pre-train larger models, full fine-tuning becomes less feasible. We propose Low-Rank Adaptation, "
        "or LoRA, which freezes the pre-trained model weights and injects trainable rank decomposition matrices.")


@pytest.mark.parametrize("text,title,not_label", [
    (LORA, "LoRA: Low-Rank Adaptation of Large Language Models", "Low-Rank"),
    ("We propose Sample-Wise Activation Patterns, a training-free metric for architecture search.",
     "SWAP-NAS: Sample-Wise Activation Patterns for Ultra-fast NAS", "Sample-Wise"),
])
def test_a_paper_is_never_named_by_a_piece_of_a_hyphenated_phrase(text, title, not_label):
    """'In Low-Rank's words: …' for the uploaded LoRA paper (#46 4): the name is the one its title leads with."""
    from ragqa.answer.naming import paper_name
    from ragqa.text.clean import make_label

    label = make_label(text, title)
    assert label != not_label
    assert paper_name({"label": label, "title": title}) == title.split(":")[0]
