"""The answer's and the question's thresholds live in nested Settings (config.GuardSettings, QuerySettings): their
defaults are the values the code had as constants (the claim-support threshold: unset, the fitted file's), they load
from RAGQA_GUARDS__<NAME> / RAGQA_QUERY__<NAME>, and a value changed there changes the behaviour it names."""
from __future__ import annotations

import pytest

from ragqa.answer.citations import resolve_citations
from ragqa.answer.guards import PROFILES, profile_for
from ragqa.config import GuardSettings, QuerySettings, Settings
from tests.fakes import labelled_source

_source = labelled_source


SOURCES = [_source(1, "DiffAug", ["DiffAug augments training images with a single diffusion step."]),
           _source(2, "GraphMix", ["GraphMix mixes subgraphs of two graphs to augment graph classification data."])]


def _profile(**guards):
    return profile_for(Settings(guards=guards))


def test_defaults_are_the_former_constants():
    """The three share knobs of the support rules are one threshold of the claim-support check that replaced them,
    unset by default: the fitted file's."""
    assert GuardSettings().model_dump() == {
        "leak_share": 0.5, "leak_min_units": 2, "repeat_share": 0.8, "repeat_min_units": 3,
        "claim_support_threshold": None, "top_up_below": 3, "top_up_most": 2, "extractive_papers": 3}
    assert QuerySettings().model_dump() == {"own_name_papers": 2, "spelling_min_papers": 2, "ask_subject": True}
    # the profile the pipeline uses carries Settings.guards, and with the defaults is the packaged one
    assert profile_for(Settings()) == PROFILES["small"] and profile_for(Settings()).knobs == GuardSettings()


def test_nested_values_load_from_the_environment(monkeypatch):
    """The knob read from the environment is the claim-support threshold (it replaced cited_support_share)."""
    monkeypatch.setenv("RAGQA_GUARDS__CLAIM_SUPPORT_THRESHOLD", "0.9")
    monkeypatch.setenv("RAGQA_QUERY__SPELLING_MIN_PAPERS", "4")
    monkeypatch.setenv("RAGQA_QUERY_BACKEND", "onnx")  # a flat name beginning like a nested model's keeps its meaning
    settings = Settings()
    assert settings.guards.claim_support_threshold == 0.9 and settings.guards.repeat_share == 0.8
    assert settings.query.spelling_min_papers == 4 and settings.query_backend == "onnx"
    assert profile_for(settings).knobs.claim_support_threshold == 0.9
    with pytest.raises(ValueError):
        Settings(guards={"repeat_share": 1.5})  # a share is bounded
    with pytest.raises(ValueError):
        Settings(guards={"claim_support_threshold": 1.5})  # so is a probability


def test_a_stricter_claim_support_threshold_drops_a_cited_sentence_the_default_keeps(monkeypatch):
    """The knob is the claim-support check's threshold (it replaced cited_support_share): the sentence's P (about 0.7:
    "lowers memory use" is not its source's) clears the fitted file's and not 0.9."""
    sentence = "DiffAug augments training images with a single diffusion step, which also lowers memory use [1]."
    text, cited, _, dropped = resolve_citations(sentence, SOURCES, profile_for(Settings()))
    assert text == sentence and cited == [1] and not dropped
    monkeypatch.setenv("RAGQA_GUARDS__CLAIM_SUPPORT_THRESHOLD", "0.9")  # through the environment, as deployed
    text, cited, _, dropped = resolve_citations(sentence, SOURCES, profile_for(Settings()))
    assert text == "" and cited == [] and dropped == [sentence]


def test_repeat_share_decides_what_repeats():
    first = "GraphMix mixes subgraphs of two graphs to augment graph classification data [2]."
    again = "In practice, GraphMix mixes subgraphs of two graphs to augment classification data [2]."  # 7 of 8 units
    fired: list[str] = []
    text, _, _, dropped = resolve_citations(f"{first} {again}", SOURCES, _profile(), fired)
    assert text == first and dropped == [again] and "repeat" in fired
    text, _, _, dropped = resolve_citations(f"{first} {again}", SOURCES, _profile(repeat_share=0.95))
    assert text == f"{first} {again}" and not dropped
    text, _, _, dropped = resolve_citations(f"{first} {again}", SOURCES, _profile(repeat_min_units=9))
    assert text == f"{first} {again}" and not dropped


def test_claim_support_threshold_decides_which_uncited_sentence_is_credited():
    """The same threshold decides crediting an uncited sentence (it replaced support_share and support_min_words):
    "needs" is not [1]'s, so its P (about 0.8) clears the fitted file's and not 0.9; the cited sentence is [1]'s own
    words and clears both."""
    draft = "DiffAug augments training images [1]. It needs a single diffusion step for training images."
    text, cited, _, dropped = resolve_citations(draft, SOURCES, _profile())
    assert text.endswith("training images [1].") and text.count("[1]") == 2 and not dropped
    text, _, _, dropped = resolve_citations(draft, SOURCES, _profile(claim_support_threshold=0.9))
    assert text == "DiffAug augments training images [1]." and dropped == ["It needs a single diffusion step for "
                                                                           "training images."]


def test_own_name_papers_decides_when_an_introduced_name_names_its_paper():
    from ragqa.query.method_names import name_key
    from ragqa.retrieval.name_gate import NameLookups

    class Names:  # two indexed papers mention FooNet
        def mentioned_by(self, word, limit):
            return 2

        def own_papers(self, word, n):
            return []

    class Lookups(NameLookups):
        names = Names()

        def __init__(self, settings):
            self.settings = settings
            self._names = {"=" + name_key("FooNet", cased=True): ["p1"]}  # p1's abstract introduces FooNet

        def _spelled(self, typed):
            return []

        def _lowered_names(self):
            return {}

    assert Lookups(Settings())._named_in("What does FooNet do?", None) == ["p1"]
    assert Lookups(Settings(query={"own_name_papers": 1}))._named_in("What does FooNet do?", None) == []


def test_spelling_min_papers_is_the_count_a_correction_needs():
    from ragqa.query.spelling import corrections

    def frequencies(words):
        return {w: {"bottleneck": 3}.get(w, 0) for w in words}

    assert corrections("concept bottlenck models", frequencies) == {"bottlenck": "bottleneck"}
    strict = Settings(query={"spelling_min_papers": 4}).query.spelling_min_papers
    assert corrections("concept bottlenck models", frequencies, min_papers=strict) == {}


def test_compose_counts_are_parameters_with_the_settings_defaults():
    from dataclasses import replace

    from ragqa.answer.compose import extractive_answer, quote_top_up

    sources = [replace(s, closest=tuple(s.evidence)) for s in SOURCES]
    _, cited = extractive_answer(sources, "How is data augmented?")
    assert cited == [1, 2]
    _, cited = extractive_answer(sources, "How is data augmented?",
                                 Settings(guards={"extractive_papers": 1}).guards.extractive_papers)
    assert cited == [1]
    thin = "It augments images [1]."
    assert quote_top_up(thin, sources, [1], "q") != thin
    assert quote_top_up(thin, sources, [1], "q", minimum=Settings(guards={"top_up_below": 1}).guards.top_up_below) \
        == thin
