"""query/subject.py: the LLM's reading of whether the words a question about the collection leaves name a subject."""
from __future__ import annotations

from llama_index.core.base.llms.types import MessageRole

from ragqa.config import Settings
from ragqa.errors import LLMUnavailableError
from ragqa.query.subject import names_subject, subject_messages
from tests.fakes import ScriptedLLM

PROMPTS = Settings().prompts_dir


def test_the_prompt_is_worked_turns_ending_with_the_words():
    turns = subject_messages(PROMPTS, "each one find")
    roles = [t.role for t in turns]
    assert roles[0] == MessageRole.SYSTEM and roles[-1] == MessageRole.USER
    assert all(a != b for a, b in zip(roles[1:], roles[2:]))  # user and assistant alternate
    assert turns[-1].content.endswith("each one find")


def test_only_a_no_means_no_subject():
    assert not names_subject(ScriptedLLM(["NO"]), "each one find", PROMPTS)
    assert not names_subject(ScriptedLLM(["No."]), "each one find", PROMPTS)
    assert names_subject(ScriptedLLM(["YES"]), "tabular data", PROMPTS)
    assert names_subject(ScriptedLLM(["Not sure"]), "tabular data", PROMPTS)  # not a no: the rules' reading stands
    assert names_subject(ScriptedLLM([""]), "tabular data", PROMPTS)


def test_an_llm_that_went_away_leaves_the_rules_reading():
    def gone(prompt):
        raise LLMUnavailableError("The LLM server went away.")
    assert names_subject(ScriptedLLM([gone]), "each one find", PROMPTS)


def test_the_subject_phrase_is_the_part_of_the_words_the_llm_copies():
    """subject_phrase keeps the LLM's reply only when it is a shorter run of the words given, copied; anything else
    (a YES, words of its own, the same words, no LLM) leaves the words as they are."""
    from ragqa.query.subject import subject_phrase

    assert subject_phrase(ScriptedLLM(["overfitting"]), "overfitting reading list", PROMPTS) == "overfitting"
    assert subject_phrase(ScriptedLLM(["Object detection."]), "object detection pls", PROMPTS) == "object detection"
    for reply in ("YES", "regularisation", "overfitting reading list", ""):
        assert subject_phrase(ScriptedLLM([reply]), "overfitting reading list", PROMPTS) == "overfitting reading list"
