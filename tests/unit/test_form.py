"""The answer-form model (query/form.py): hashed features, a fixed model's decisions, the committed model on list
phrasings the wording rules miss and on one-paper questions; Chinese questions keep the rules."""
from __future__ import annotations

import pytest

from ragqa.errors import RagqaError
from ragqa.query.form import FormModel, features, load_form
from ragqa.query.intent import EXPLAIN, LIST, classify


def test_features_are_stable_hashed_and_normalised():
    row = features("Which papers study RL?")
    assert row == features("which papers study rl?")  # case folded, the same buckets in every process
    assert sum(v * v for v in row.values()) == pytest.approx(1.0)
    assert features("") == {}


def test_a_fixed_model_decides_at_its_point_and_never_for_chinese():
    words = features("anything")
    model = FormModel({k: 10.0 for k in words}, -5.0, 0.5)
    assert model.asks_for_a_list("anything") and not model.asks_for_a_list("nothing at all here")
    assert not model.asks_for_a_list("anything 有没有")  # Chinese: the rules decide
    assert FormModel.from_json(model.to_json()) == model
    with pytest.raises(ValueError):
        FormModel.from_json({**model.to_json(), "buckets": 8})


def test_a_missing_model_file_says_how_to_make_one(tmp_path):
    with pytest.raises(RagqaError, match="form_model --write"):
        load_form(str(tmp_path / "none.json"))


COMMITTED = load_form(str(__import__("pathlib").Path(__file__).resolve().parents[2] / "ragqa/calibration/form.json"))


@pytest.mark.parametrize("question", [
    "I am looking for ICML 2024 work on graph transformers",
    "neurips 2024 stuff about protein design?",
    "Do I have anything about speech recognition?",
    "optimal transport — got anything?",
])
def test_list_wordings_the_rules_miss_are_lists(question):
    assert classify(question) == EXPLAIN and classify(question, COMMITTED) == LIST


@pytest.mark.parametrize("question", [
    "How does the proposed sampler reduce the number of steps?", "What dataset did they use to evaluate the method?",
    "Why does fine-tuning fail to change model capabilities?", "What is the main limitation of switch SAEs?",
    "这篇论文的主要贡献是什么？", "Which layer stores the factual knowledge?",
])
def test_one_paper_questions_stay_explain(question):
    assert classify(question, COMMITTED) == EXPLAIN
