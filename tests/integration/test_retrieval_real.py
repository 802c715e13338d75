"""The real all-MiniLM-L6-v2 over the bundled corpus: paraphrased questions find their paper."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

# (question written without the abstract's wording, start of the gold paper's label)
PARAPHRASED = [
    ("graph network whose derivative order is a learned mixture over many real-valued orders", "DRAGON"),
    ("learning the energy potential of a population's dynamics from snapshots, avoiding bilevel optimisation",
     "JKOnet*"),
    ("a benchmark of small transformers with known circuits for checking mechanistic interpretability tools",
     "InterpBench"),
    ("using a diffusion model to create extra training images for image classifiers", "DiffAug"),
    ("steering a pretrained flow matching generator toward a goal without any retraining", "OC-Flow"),
    ("evaluating agents that operate mobile phone apps", "SPA-Bench"),
    ("reinforcement learning agents that mix logic-based and neural policies", "BlendRL"),
    ("scoring how much each training example is worth using a generative model", "GMValuator"),
    ("measuring sparse autoencoder quality on board-game language models where the true features are known",
     "Measuring Progress in Dictionary Learning"),
    ("mixture-of-experts style sparse autoencoders that scale to very wide dictionaries cheaply",
     "Efficient Dictionary Learning with Switch Sparse Autoencoders"),
    ("self-driving system that combines fast heuristics with slow reasoning by a language model", "LeapAD"),
]


@pytest.mark.parametrize("question,label", PARAPHRASED)
def test_paraphrase_finds_gold_in_top3(real_pipeline, question, label):
    result = real_pipeline.search(question, k=3, translate=False)
    labels = [h.meta["label"] for h in result.hits]
    assert any(n.startswith(label) for h in result.hits for n in (h.meta["label"], h.meta.get("title") or "")), labels


def test_off_corpus_question_scores_below_threshold(real_pipeline):
    off = real_pipeline.search("Who won the 2022 football World Cup?", k=3, translate=False)
    on = real_pipeline.search("fractional calculus in graph neural networks", k=3, translate=False)
    threshold = real_pipeline.settings.min_relevance
    assert off.top_relevance < threshold <= on.top_relevance
