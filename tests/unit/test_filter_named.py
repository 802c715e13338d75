"""#44 2: a filter that admits no more papers than an explain answer cites names those that answer the question: all
of them when it names no subject besides the filter, those near its subject when it names one; each one named is
cited (quoted when the model left it out)."""
from __future__ import annotations

from dataclasses import replace as with_points

from ragqa.answer.ask import ask
from tests.fakes import ScriptedLLM

VARDI = {"Benign Overfitting and Grokking in ReLU Networks for XOR Cluster Data",
         "Provable Tempered Overfitting of Minimal Nets and Typical Nets"}


def _pipeline(indexed, subject: str):
    """The model cites only the grokking paper; the subject check answers `subject`; nothing clears the answer point."""
    def reply(prompt):
        if "Words left:" in prompt:
            return subject
        return "It shows benign overfitting and grokking in ReLU networks [1]."
    indexed.use_llms(ScriptedLLM([reply]))
    indexed.__dict__["calibration"] = with_points(indexed.calibration, answer_threshold=1.1, list_threshold=1.1)
    return indexed


def test_both_papers_a_filter_names_are_cited_though_the_model_cites_one(indexed):
    answer = ask(_pipeline(indexed, "NO"), "Gal Vardi's work: what is the upshot?")
    assert not answer.abstained and {c.title for c in answer.citations} == VARDI
    assert "quote-named" in answer.guards


def test_a_subject_names_only_the_filters_papers_near_it(indexed):
    answer = ask(_pipeline(indexed, "YES"), "Which of Gal Vardi's papers is about grokking?")
    assert not answer.abstained
    assert [c.title for c in answer.citations] == [
        "Benign Overfitting and Grokking in ReLU Networks for XOR Cluster Data"]


def test_request_words_beside_the_subject_do_not_hide_a_filters_papers(indexed):
    """"has Gal Vardi got anything on overfitting in my reading list": the words left ("overfitting reading list") put
    neither paper near them; the subject check reads a subject, and the words the LLM copies as it ("overfitting") put
    both his papers (both on overfitting) near it: both named, not a refusal."""
    def reply(prompt):
        if "nothing else" in prompt and "Words left:" in prompt:
            return "overfitting"
        if "Words left:" in prompt:
            return "YES"
        return "It shows benign overfitting and grokking in ReLU networks [1]."
    indexed.use_llms(ScriptedLLM([reply]))
    indexed.__dict__["calibration"] = with_points(indexed.calibration, answer_threshold=1.1, list_threshold=1.1)
    answer = ask(indexed, "has Gal Vardi got anything on overfitting in my reading list")
    assert not answer.abstained and {c.title for c in answer.citations} == VARDI
