"""Claim support (answer/support.py): its features on fixed sentences, names, and the committed model."""
from __future__ import annotations

import json
import math

import pytest

from ragqa.answer.support import (
    DEFAULT_FILE,
    FEATURES,
    ClaimSupport,
    features,
    holds_name,
    load_claim_support,
    names,
    source_text,
)
from ragqa.errors import RagqaError

SOURCE = source_text(
    {"label": "FastSurvival", "title": "FastSurvival: Hidden Mathematical Structures for Cox Regression",
     "venue": "NeurIPS 2024", "year": 2024},
    ["We propose FastSurvival, an optimization method for Cox proportional hazards regression that exploits hidden "
     "mathematical structures of the CPH model.",
     "It converges globally and is much faster than existing solvers, including for sparsity-constrained variants."])
QUESTION = "faster solvers for Cox survival regression?"


@pytest.fixture(scope="module")
def model() -> ClaimSupport:
    return load_claim_support()


def test_weights_file_loads(model):
    assert model.features and set(model.features) <= set(FEATURES)
    assert len(model.coef) == len(model.mean) == len(model.scale) == len(model.features)
    assert 0.0 < model.threshold < 1.0
    assert model.counts["supported"] > model.counts["unsupported"] > 0
    assert "evals.experiments.claim_support" in model.source


def test_named_method_absent_from_source_scores_lower(model):
    held = "FastSurvival exploits hidden mathematical structures of the CPH model to solve Cox regression faster [1]."
    absent = held.replace("FastSurvival", "SurvBoost")
    assert features(held, SOURCE, QUESTION)["missing_names"] == 0
    assert features(absent, SOURCE, QUESTION)["missing_names"] == 1
    assert model.probability(absent, SOURCE, QUESTION) < model.probability(held, SOURCE, QUESTION)


def test_short_acronym_counts_though_it_is_no_content_word(model):
    """Three letters are no content word (share and new words cannot see them): only missing_names differs."""
    held, absent = (f"It exploits hidden mathematical structures of the {n} model [1]." for n in ("CPH", "XYZ"))
    a, b = features(held, SOURCE, QUESTION), features(absent, SOURCE, QUESTION)
    assert {k for k in a if a[k] != b[k]} == {"missing_names"}
    assert model.probability(absent, SOURCE, QUESTION) < model.probability(held, SOURCE, QUESTION)


def test_sentence_copied_from_its_source_is_kept(model):
    copied = ("We propose FastSurvival, an optimization method for Cox proportional hazards regression that exploits "
              "hidden mathematical structures of the CPH model [1].")
    x = features(copied, SOURCE, QUESTION)
    assert x["share"] == x["share_all"] == 1.0 and x["missing_names"] == 0
    assert x["new_share"] == x["question_only_share"] == x["new_words"] == 0.0
    assert model.supported(copied, SOURCE, QUESTION)


def test_claim_the_source_does_not_hold_is_dropped(model):
    invented = ("FastSurvival was evaluated on speech recordings from hospitals and trained with reinforcement "
                "learning [1].")
    assert features(invented, SOURCE, QUESTION)["share_all"] < 0.2
    assert not model.supported(invented, SOURCE, QUESTION)


@pytest.mark.parametrize("question", ["", "faster solvers for Cox survival regression?", "Who won the 2022 World Cup?"])
def test_sentence_sharing_no_word_with_its_source_is_dropped_whatever_the_question(model, question):
    assert not model.supported("The 2022 World Cup was won by France [1].", SOURCE, question)
    assert not model.credited("The 2022 World Cup was won by France.", {1: SOURCE}, question)


def test_negation_the_source_lacks_lowers_p(model):
    said, negated = "FastSurvival converges globally [1].", "FastSurvival does not converge globally [1]."
    assert features(negated, SOURCE, QUESTION)["negation"] == 1.0
    assert features(negated, SOURCE + " It does not converge globally.", QUESTION)["negation"] == 0.0
    assert model.probability(negated, SOURCE, QUESTION) < model.probability(said, SOURCE, QUESTION)


def test_question_words_are_discounted_in_share_not_in_share_all():
    # content words (stemmed): there, faster, solver, surviv, regress; the question has all but "there", the source
    # all but "there" and "surviv" (it writes FastSurvival)
    x = features("Yes, there are faster solvers for Cox survival regression [1].", SOURCE, QUESTION)
    assert x["share"] == 0.0  # "there", its only word not the question's, is not the source's either
    assert x["share_all"] == pytest.approx(3 / 5)
    assert x["new_share"] == pytest.approx(1 / 5) and x["question_only_share"] == pytest.approx(1 / 5)
    assert x["echo"] == pytest.approx(4 / 5)
    assert x["question_in_source"] == pytest.approx(3 / 4)


def test_new_words_count_only_words_neither_question_nor_source_has():
    x = features("Survival analysis needs GPUs [1].", SOURCE, QUESTION)  # analysis, needs, gpus; survival: asked
    assert x["new_words"] == pytest.approx(math.log1p(3))
    assert x["new_share"] == pytest.approx(3 / 4) and x["question_only_share"] == pytest.approx(1 / 4)
    assert features("FastSurvival exploits structures [1].", SOURCE, QUESTION)["new_words"] == 0.0


def test_a_question_without_english_words_leaves_question_in_source_unknown(model):
    sentence = "FastSurvival exploits hidden mathematical structures of the CPH model [1]."
    assert math.isnan(features(sentence, SOURCE, "")["question_in_source"])
    assert math.isnan(features(sentence, SOURCE, "快速的生存回归求解器？")["question_in_source"])
    p = model.probability(sentence, SOURCE, "")
    assert 0.0 < p < 1.0 and p == model.probability(sentence, SOURCE, "快速的生存回归求解器？")


def test_unscored_sentences_are_kept(model):
    assert features("快速生存分析方法利用了隐藏结构。", SOURCE, QUESTION) is None
    assert features("Yes [1].", SOURCE, QUESTION) is None
    assert model.supported("Yes [1].", SOURCE, QUESTION) and model.probability("Yes [1].", SOURCE) is None


def test_credited_picks_the_source_that_holds_the_sentence(model):
    other = source_text({"label": "DiffAug", "venue": "ICLR 2024"},
                        ["We use diffusion models to augment training images for robust image classifiers."])
    sources = {1: other, 2: SOURCE}
    assert model.credited("FastSurvival exploits hidden mathematical structures of the CPH model.", sources,
                          QUESTION) == 2
    assert model.credited("It was evaluated on speech recordings from hospitals with reinforcement learning.",
                          sources, QUESTION) is None


def test_names_and_holding_them():
    assert names("Yes, B-cos networks and GPT-4 beat LoRA, CLIP and ViTs on ImageNet-100 [2]. The Method works.") == {
        "B-cos", "GPT-4", "LoRA", "CLIP", "ViTs", "ImageNet-100"}
    assert holds_name("ViTs", "vision transformers (ViT)")  # either plural
    assert holds_name("LLMs", "large language models")  # an acronym spelled out
    assert holds_name("MHSA", "multi-head self-attention blocks")  # hyphen parts are words
    assert holds_name("DPO", "trained with direct preference optimization")
    assert holds_name("non-CLIP", "models beyond CLIP")  # its named part
    assert not holds_name("DPO", "proximal policy optimization")
    assert not holds_name("SparseKV", "a sparse key-value cache")


def test_from_json_rejects_unknown_features_and_mismatched_weights(tmp_path):
    good = json.loads(DEFAULT_FILE.read_text(encoding="utf-8"))
    with pytest.raises(ValueError):
        ClaimSupport.from_json({**good, "features": ["cosine", *good["features"][1:]]})
    with pytest.raises(ValueError):
        ClaimSupport.from_json({**good, "coef": good["coef"][:-1]})
    (tmp_path / "bad.json").write_text(json.dumps({**good, "coef": []}), encoding="utf-8")
    with pytest.raises(RagqaError):
        load_claim_support(str(tmp_path / "bad.json"))
    with pytest.raises(RagqaError):
        load_claim_support(str(tmp_path / "missing.json"))
