"""Each guard of a model profile on its own, and the profiles that turn them on."""
from __future__ import annotations

import difflib
import re

import pytest

from ragqa.answer.citations import resolve_citations
from ragqa.answer.guards import (
    CITE_NAMED,
    CITE_SUPPORTED,
    NAME_SUBJECT,
    PROFILES,
    REFUSAL_TO_QUOTES,
    name_subject,
    profile_for,
)
from ragqa.config import Settings
from tests.fakes import ScriptedLLM, labelled_source

_source = labelled_source


SOURCES = [_source(1, "LowRankX", ["We introduce low-rank adapters for fine-tuning large language models."]),
           _source(2, "DiffAug", ["DiffAug augments training images with a single diffusion step."])]


def _markers(text):
    """The source numbers a text cites, in order, repeats kept."""
    return [int(n) for n in re.findall(r"\[(\d+)\]", text)]


_CJK = re.compile(r"[\u4e00-\u9fff]")
_FIRST_PERSON = re.compile(r"\b(?:we|our|us)\b|我们", re.I)


def _edits(before, after):
    """Where `after` differs from `before`, token by token (markers, words, single other characters): [(removed,
    added)]; every other token is as it was, in the same order."""
    a, b = (re.findall(r"\[\d+\]|[A-Za-z0-9'-]+|\S", t) for t in (before, after))
    return [(a[i:j], b[k:m]) for op, i, j, k, m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            if op != "equal"]


def _quote_head(text, answer):
    """What a quote top-up writes after the `answer` and before the opening quotation mark: the words naming whose
    words follow."""
    return text[len(answer):].split('"', 1)[0]


@pytest.mark.parametrize("sentence, expected", [
    ("introduces low-rank adapters for fine-tuning large language models [1].",
     "LowRankX introduces low-rank adapters"),
    ("also proposes adapters for language models [1].", "LowRankX also proposes"),
    ("LowRankX introduces low-rank adapters [1].", None),  # has its subject
    ("transformers are fine-tuned with low-rank adapters [1].", None),  # a noun, not a verb
    ("introduces something.", None),  # cites nothing: no paper to name
])
def test_name_subject(sentence, expected):
    out = name_subject(sentence, {1: "LowRankX"}.get)
    assert (out is None) if expected is None else out.startswith(expected)


def test_small_profile_names_the_subject_and_records_it():
    fired = []
    text, cited, _, _ = resolve_citations("introduces low-rank adapters for fine-tuning large language models [1].",
                                          SOURCES, PROFILES["small"], fired)
    assert text.startswith("LowRankX introduces") and cited == [1] and fired == [NAME_SUBJECT]


def test_strong_profile_leaves_the_sentence_as_written():
    fired = []
    text, cited, _, _ = resolve_citations("introduces low-rank adapters for fine-tuning large language models [1].",
                                          SOURCES, PROFILES["strong"], fired)
    assert text.startswith("introduces") and cited == [1] and fired == []


def test_cite_named_and_cite_supported_are_recorded():
    fired = []
    text, cited, _, dropped = resolve_citations(
        "DiffAug augments images. It augments training images with a diffusion step.",
        SOURCES, PROFILES["small"], fired)
    assert cited == [2] and text.count("[2]") == 2 and not dropped and fired == [CITE_NAMED, CITE_SUPPORTED]


def test_a_sentence_that_only_names_a_paper_is_not_cited_to_it():
    """The 1.5B writes a title cut short, as the prompt shows it, as a sentence of its own: it claims nothing."""
    fired = []
    long_title = _source(3, "Fine-Tuning Enhances Existing Mechanisms: A Case Study",
                         ["Fine-tuning enhances entity tracking."])
    text, cited, _, dropped = resolve_citations(
        "Fine-tuning enhances entity tracking [3]. Fine-Tuning Enhances Existing..", SOURCES + [long_title],
        PROFILES["small"], fired)
    # the claim is kept, cited to its paper; the bare title is dropped, not cited
    assert cited == [3] and _markers(text) == [3] and "entity tracking" in text and "Existing" not in text
    assert len(dropped) == 1 and "Enhances Existing" in dropped[0]
    assert fired == []


def test_without_cite_supported_an_uncited_sentence_is_dropped():
    from ragqa.answer.guards import ModelProfile

    profile = ModelProfile("test", frozenset({CITE_NAMED}))
    text, cited, _, dropped = resolve_citations(
        "DiffAug augments images. It augments training images with a diffusion step.",
        SOURCES, profile, [])
    assert cited == [2] and text.count("[2]") == 1 and len(dropped) == 1


@pytest.mark.parametrize("backend", ["llamacpp", "transformers", "openai"])
def test_auto_profile_is_small_whatever_the_backend(backend):
    # the served deployment runs the packaged 1.5B behind an OpenAI-compatible server: only the user knows the model
    assert profile_for(Settings(llm_backend=backend)).name == "small"
    assert profile_for(Settings(llm_backend=backend, model_profile="strong")).name == "strong"


def _refusing(indexed, profile):
    indexed.use_llms(ScriptedLLM(
        ["The indexed papers do not answer this question."]))
    indexed.settings = indexed.settings.model_copy(update={"model_profile": profile})
    indexed.__dict__.pop("profile", None)
    return indexed


def test_refusal_of_an_accepted_question_small_quotes_strong_abstains(indexed):
    question = "Which graph neural network uses distributed-order fractional calculus?"
    small = _refusing(indexed, "small").ask(question)
    assert not small.abstained and small.mode == "extractive" and small.guards == [REFUSAL_TO_QUOTES]
    strong = _refusing(indexed, "strong").ask(question)
    assert strong.abstained and strong.why == "model refused" and strong.citations == [] and strong.guards == []


def _closest(source, sentences):
    from dataclasses import replace

    return replace(source, closest=tuple(sentences))


def test_quote_top_up_adds_what_a_thin_answer_does_not_state():
    from ragqa.answer.compose import quote_top_up

    s = _closest(_source(1, "GraphMix",
                         ["We propose GraphMix, which mixes subgraphs.", "GraphMix improves accuracy by 2.1 points.",
                          "It helps most with few graphs."]),
                 ["GraphMix improves accuracy by 2.1 points.", "We propose GraphMix, which mixes subgraphs.",
                  "It helps most with few graphs."])
    thin = "GraphMix mixes subgraphs of two graphs [1]."
    out = quote_top_up(thin, [s], [1], "Is there augmentation for graphs?")
    assert out.startswith(thin) and "2.1 points" in out and out.count("mixes subgraphs") == 1  # not restated
    head = _quote_head(out, thin)  # the quote is introduced with its paper's name, in the question's language
    assert out.rstrip().endswith("[1]") and "GraphMix" in head and not _CJK.search(head)
    full = "A [1]. B [1]. C [1]."
    assert quote_top_up(full, [s], [1], "q") == full  # three sentences: nothing added
    assert quote_top_up(thin, [s], [], "q") == thin  # nothing cited: no paper to quote
    chinese = quote_top_up(thin, [s], [1], "有没有图增强方法？")
    assert _CJK.search(_quote_head(chinese, thin)) and "2.1 points" in chinese and _markers(chinese) == [1, 1]


def test_only_the_small_profile_tops_up(indexed):
    from ragqa.answer.guards import QUOTE_TOP_UP

    question = "Which graph neural network uses distributed-order fractional calculus?"
    for profile, expect in (("small", True), ("strong", False)):
        indexed.use_llms(ScriptedLLM(
            ["DRAGON uses distributed-order fractional calculus [1]."]))
        indexed.settings = indexed.settings.model_copy(update={"model_profile": profile})
        indexed.__dict__.pop("profile", None)
        answer = indexed.ask(question)
        assert (QUOTE_TOP_UP in answer.guards) == expect and not answer.abstained and answer.citations
        assert ('"' in answer.text) == expect


def test_untitled_papers_are_never_named_by_their_opening_words():
    from dataclasses import replace

    from ragqa.answer.compose import extractive_answer, quote_top_up

    s = _closest(_source(1, "x",
                         ["Embedders play a central role in machine learning.",
                          "We compare embedders without labels."]),
                 ["We compare embedders without labels.", "Embedders play a central role in machine learning."])
    meta = {"label": "Embedders play a central role in machine learning", "venue": "NeurIPS 2024",
            "text": " ".join(s.evidence)}
    s = replace(s, hit=replace(s.hit, meta=meta))
    quoted, _ = extractive_answer([s], "How can one compare embedders?")
    topped = quote_top_up("It compares embedders [1].", [s], [1], "How can one compare embedders?")
    # what heads each quote (the quote itself may well hold those opening words) names the paper by its venue
    heads = (next(line for line in quoted.splitlines() if '"' in line).split('"', 1)[0],
             _quote_head(topped, "It compares embedders [1]."))
    for head in heads:
        assert "NeurIPS 2024" in head and "central role" not in head and "Embedders" not in head


@pytest.mark.parametrize("sentence, moved", [
    ("In this paper, we present a theoretical analysis [1].", True),
    ("We observe a double descent phenomenon [1].", True),
    ("Our results allow us to scale [2].", True),
    ("我们提出了一种方法 [1]。", True),
    ('It is called "our method" in the abstract [1].', False),  # quoted: as written
    ("Western models answer well [1].", False),  # no first person
])
def test_third_person_guard_turns_an_abstracts_we_into_its_authors(sentence, moved):
    from ragqa.answer.guards import third_person

    out = third_person(sentence)
    if not moved:
        assert out is None
        return
    # each first-person word is replaced by words of its own, none of them first person; the rest is as written
    edits = _edits(sentence, out)
    assert edits and not _FIRST_PERSON.search(out) and _markers(out) == _markers(sentence)
    assert all(_FIRST_PERSON.fullmatch("".join(removed)) and added for removed, added in edits)
    if re.search(r"\bwe\b|我们", sentence, re.I):  # "we" is its authors
        assert re.search(r"\bauthors\b|作者", out, re.I)


def test_third_person_guard_runs_in_the_small_profile_only():
    from ragqa.answer.guards import THIRD_PERSON

    sources = [_source(1, "DiffAug", ["We augment training images with a single diffusion step."])]
    fired = []
    text, cited, _, _ = resolve_citations("We augment training images with a single diffusion step [1].", sources,
                                          PROFILES["small"], fired)
    assert not _FIRST_PERSON.search(text) and cited == [1] and THIRD_PERSON in fired
    assert "augment training images with a single diffusion step [1]" in text
    text, _, _, _ = resolve_citations("We augment training images with a single diffusion step [1].", sources,
                                      PROFILES["strong"])
    assert text.startswith("We augment")


def test_an_echo_of_the_question_is_judged_by_its_source_like_any_sentence():
    """The echo guard is gone: the claim-support check replaced it (variant b, evals/reports/claim-support-20261206/).
    A sentence in the question's words is kept when its source supports it, as this one's does (the echo guard dropped
    it), and dropped when its words are only the question's; no guard is recorded for either."""
    fired: list[str] = []
    question = "Does DiffAug augment training images?"
    text, cited, _, dropped = resolve_citations(
        "Yes, DiffAug does augment training images [2]. "
        "DiffAug augments training images with a single diffusion step [2].",
        SOURCES, PROFILES["small"], fired, question)
    assert _markers(text) == [2, 2] and "does augment" in text and "single diffusion step" in text and cited == [2]
    assert not dropped and fired == []
    question = "Does DiffAug calibrate medical image segmenters?"
    for profile in ("small", "strong"):
        fired = []
        text, cited, _, dropped = resolve_citations("Yes, DiffAug calibrates medical image segmenters [2].", SOURCES,
                                                    PROFILES[profile], fired, question)
        assert text == "" and cited == [] and len(dropped) == 1 and "calibrates" in dropped[0] and fired == []


def _examples():
    from pathlib import Path

    from ragqa.answer.prompting import worked_examples

    return worked_examples(Path(__file__).resolve().parents[2] / "prompts")


def test_worked_examples_are_read_from_the_prompt_files():
    examples = _examples()
    assert {"SparseKV", "GraphMix"} <= set(examples.names)
    assert "减半" in examples.units and "memory" in examples.units


BCOS = ["We propose B-cosification, which transforms existing pre-trained models to become inherently interpretable."]


@pytest.mark.parametrize("sentence, question, leaks", [
    ("B-cosification 通过保留注意力最高的 token 来压缩 Transformer 的 KV 缓存 [1]。", "B-cosification 是怎么做的？",
     True),
    ("在精度不变的情况下，它把内存减半 [1]。", "B-cosification 是怎么做的？", True),
    ("B-cosification 是一种将预训练模型转换为可解释模型的方法 [1]。", "B-cosification 是怎么做的？", False),
    # an example's paper
    ("SparseKV transforms pre-trained models to be inherently interpretable [1].", "How does B-cosification work?",
     True),
    ("B-cosification transforms existing pre-trained models to be inherently interpretable [1].", "How does it work?",
     False),
    ("It halves memory at equal accuracy [1].", "What does B-cosification do?", True),
    # the examples' words are fine where the sources or the question have them
    ("It halves memory at equal accuracy [1].", "Does it halve memory at equal accuracy?", False),
    # a single word of the examples ("keeps") beyond the question's own is no copy
    ("Yes, B-cosification keeps its interpretability [1].", "Does B-cosification keep its interpretability?", False),
])
def test_leaks_example(sentence, question, leaks):
    from ragqa.answer.guards import leaks_example

    assert leaks_example(sentence, _examples(), " ".join(BCOS) + " B-cosification", question) is leaks


def test_example_leak_guard_drops_the_copied_sentence_and_records_it():
    from ragqa.answer.guards import EXAMPLE_LEAK, ModelProfile

    sources = [_source(1, "B-cosification", BCOS)]
    draft = "B-cosification 是一种将预训练模型转换为可解释模型的方法 [1]。在精度不变的情况下，它把内存减半 [1]。"
    for profile in (PROFILES["small"], PROFILES["strong"]):
        fired = []
        text, cited, _, dropped = resolve_citations(draft, sources, profile, fired, "B-cosification 是怎么做的？",
                                                    _examples())
        assert "减半" not in text and "可解释模型" in text and cited == [1] and EXAMPLE_LEAK in fired
        assert len(dropped) == 1 and "减半" in dropped[0]
    off = ModelProfile("off", frozenset())
    text, _, _, _ = resolve_citations(draft, sources, off, [], "B-cosification 是怎么做的？", _examples())
    assert "减半" in text


def test_repeat_guard_drops_a_restated_sentence_only():
    from ragqa.answer.guards import REPEAT, ModelProfile

    sources = [_source(1, "B-cosification", BCOS)]
    draft = ("B-cosification 是一种将预训练模型转换为可解释模型的方法 [1]。它不需要从头训练 [1]。"
             "具体来说，B-cosification 是一种将预训练模型转换为可解释模型的方法 [1]。")
    fired = []
    text, _, _, dropped = resolve_citations(draft, sources, PROFILES["small"], fired, "B-cosification 是怎么做的？")
    assert text.count("可解释模型") == 1 and "不需要从头训练" in text and REPEAT in fired and len(dropped) == 1
    # two different claims about the same paper share words, but neither repeats the other
    english = ("B-cosification transforms existing pre-trained models to be inherently interpretable [1]. "
               "B-cosification models are on par with B-cos models trained from scratch in interpretability [1].")
    fired = []
    text, _, _, dropped = resolve_citations(english, [_source(1, "B-cosification", BCOS + [
        "B-cosification models are on par with B-cos models trained from scratch in interpretability."])],
                                            PROFILES["small"], fired)
    assert not dropped and REPEAT not in fired
    text, _, _, _ = resolve_citations(draft, sources, ModelProfile("off", frozenset()), [],
                                      "B-cosification 是怎么做的？")
    assert text.count("可解释模型") == 2


def test_an_answer_without_any_marker_is_checked_against_every_source():
    fired = []
    text, cited, _, dropped = resolve_citations(
        "It augments training images with a single diffusion step. The 2022 World Cup was won by France.", SOURCES,
        PROFILES["small"], fired)
    # the supported sentence gets the marker of the source holding it; the unsupported one is dropped
    assert cited == [2] and _markers(text) == [2] and "single diffusion step" in text and "World Cup" not in text
    assert len(dropped) == 1 and "World Cup" in dropped[0] and CITE_SUPPORTED in fired


def test_a_chinese_sentence_without_markers_among_several_sources_goes_to_the_one_holding_its_names():
    # labels that are whole titles: the sentence does not name them, so nothing cites them by name (cite_named)
    sources = [_source(1, "Transforming Deep Neural Networks to be Inherently Interpretable",
                       BCOS + ["We also B-cosify a pretrained CLIP model."]),
               _source(2, "A Diffuse-and-Denoise Augmentation",
                       ["DiffAug augments training images with one diffusion step."])]
    text, cited, _, dropped = resolve_citations(
        "是的。此外，作者把 B-cosification 用到预训练的 CLIP 模型上。这种方法很有效。", sources, PROFILES["small"], [])
    assert _markers(text) == [1] and "CLIP 模型" in text and cited == [1]
    assert "是的" not in text and "很有效" not in text
    # no name to tell the two sources apart
    assert len(dropped) == 2 and "是的" in dropped[0] and "很有效" in dropped[1]
