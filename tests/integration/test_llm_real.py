"""The real default LLM (Qwen2.5-Coder-1.5B, llama.cpp) and an OpenAI-compatible server backend."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import free_port, wait_for_port

pytestmark = pytest.mark.integration


def _require(settings, name):
    from ragqa.errors import ModelError
    from ragqa.models.weights import check_gguf

    try:
        return check_gguf(settings, name)
    except ModelError as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("question,expect", [
    ("Which graph neural network lets the order of its fractional derivative be a learned distribution?", "DRAGON"),
    ("Is there work on making sparse autoencoders cheaper to train at very large widths?", "Mudide"),
    ("What does the LoRA paper recommend for rank?", None),
])
def test_default_model_answers_with_valid_citations(real_pipeline, question, expect):
    _require(real_pipeline.settings, real_pipeline.settings.llm_model)
    from ragqa.answer.ask import ask

    answer = ask(real_pipeline, question)
    retrieved = {h.paper_id for h in answer.retrieved}
    assert all(c.paper_id in retrieved for c in answer.citations)
    if expect is None:
        assert answer.abstained and not answer.citations
        return
    assert not answer.abstained and answer.citations
    cited = " ".join(c.label + " " + " ".join(c.authors) for c in answer.citations)
    assert expect in cited
    for n in set(int(x) for x in re.findall(r"\[(\d+)\]", answer.text)):
        assert n in {c.n for c in answer.citations}  # every marker in the text resolves


@pytest.fixture(scope="module")
def openai_server(real_pipeline):
    path = _require(real_pipeline.settings, real_pipeline.settings.fast_llm_model)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(path),
                             "--model_alias", "qwen-small",
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_for_port(port, proc, 120):
        proc.kill()
        pytest.fail("llama_cpp.server did not start")
    yield f"http://127.0.0.1:{port}/v1"
    proc.terminate()
    proc.wait(timeout=30)


def test_openai_compatible_server_backend_streams(real_pipeline, openai_server):
    from ragqa.answer.ask import stream_answer
    from ragqa.pipeline import Pipeline

    settings = real_pipeline.settings.model_copy(update={"llm_backend": "openai", "openai_base_url": openai_server,
                                                         "llm_model": "qwen-small", "fast_llm_model": "qwen-small"})
    pipeline = Pipeline(settings, embedder=real_pipeline.embedder)
    events = list(stream_answer(pipeline, "Which graph neural network uses distributed-order fractional calculus?"))
    tokens = [e for e in events if e.kind == "token"]
    answer = events[-1].answer
    assert len(tokens) >= 3  # streamed over HTTP
    assert answer.model and not answer.abstained
    retrieved = {h.paper_id for h in answer.retrieved}
    assert answer.citations and all(c.paper_id in retrieved for c in answer.citations)


def _check_citations(answer):
    retrieved = {h.paper_id for h in answer.retrieved}
    assert all(c.paper_id in retrieved for c in answer.citations)
    for n in set(int(x) for x in re.findall(r"\[(\d+)\]", answer.text)):
        assert n in {c.n for c in answer.citations}  # every marker in the text resolves


@pytest.mark.parametrize("question", [
    "Which papers propose new ways to evaluate interpretability methods?",  # the UI's own example
    "Which papers study sparse autoencoders?",
    "有没有研究扩散模型的论文？",
])
def test_list_questions_get_one_cited_line_per_paper(real_pipeline, question):
    _require(real_pipeline.settings, real_pipeline.settings.llm_model)
    from ragqa.answer.ask import ask

    answer = ask(real_pipeline, question)
    assert answer.form == "list" and not answer.abstained and answer.mode == "list"
    items = [line for line in answer.text.splitlines() if line.startswith("- ")]
    assert len(items) == len(answer.citations) >= 2
    texts = {h.paper_id: " ".join((h.meta.get("text") or "").split()) for h in answer.retrieved}
    for item, citation in zip(items, answer.citations):
        match = re.match(r"^- \*\*(.+?)\*\*(?: \(.*?\))?: (.+) \[(\d+)\]$", item)
        assert match and int(match.group(3)) == citation.n  # each item cites its own paper, once
        # never named by its abstract's opening words
        assert not citation.abstract.startswith(match.group(1).rstrip("…"))
        assert match.group(2) in texts[citation.paper_id]  # a sentence of that paper's abstract
    _check_citations(answer)


def test_count_question_states_the_number_it_lists(real_pipeline):
    _require(real_pipeline.settings, real_pipeline.settings.llm_model)
    from ragqa.answer.ask import ask

    answer = ask(real_pipeline, "How many papers study sparse autoencoders?")
    assert answer.form == "count" and not answer.abstained
    # the number stated counts the papers listed above the weaker matches; the weaker ones are counted apart
    strong, _, weaker = answer.text.partition("Weaker matches")
    assert answer.text.split()[0] == str(sum(line.startswith("- ") for line in strong.splitlines()))
    n_weaker = sum(line.startswith("- ") for line in weaker.splitlines())
    assert n_weaker == 0 or " weaker match" in answer.text.splitlines()[0]
    assert len(answer.citations) == sum(line.startswith("- ") for line in answer.text.splitlines())


@pytest.mark.parametrize("question, expect", [
    ("What is DRAGON and how does it work?", "DRAGON"),  # names an indexed method
    ("What is DiffAug and how does it make classifiers more robust?", "DiffAug"),
])
def test_explain_questions_answer_from_the_named_paper(real_pipeline, question, expect):
    _require(real_pipeline.settings, real_pipeline.settings.llm_model)
    from ragqa.answer.ask import ask

    answer = ask(real_pipeline, question)
    assert answer.form == "explain" and not answer.abstained and answer.mode in ("llm", "extractive")
    assert any(expect in c.label or expect in c.abstract for c in answer.citations)
    _check_citations(answer)


@pytest.mark.parametrize("question", [
    "Who won the 2022 World Cup?",
    "What is a good recipe for sourdough bread?",
])
def test_off_topic_questions_abstain_before_the_llm(real_pipeline, question):
    from ragqa.answer.ask import ask

    answer = ask(real_pipeline, question)
    assert answer.abstained and answer.why == "not answerable" and not answer.citations


def test_a_translation_between_two_answers_leaves_the_second_as_without_it():
    """#45: one model serves translations and answers; its prefix cache puts the answer prompt's KV state back after
    a translation, and the second answer is token for token the one given with no translation between (the same
    prefix state, the same suffix read)."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    from ragqa.config import Settings
    from ragqa.models.llm import load_llm

    settings = Settings(model_cache_dir=Settings().model_cache_dir)
    _require(settings, settings.fast_llm_model)
    system = "You answer questions about research papers, citing sources. " + " ".join(
        f"Rule {i}: cite every claim with the number of its source; never invent a number." for i in range(40))

    def answer(llm, question):
        messages = [ChatMessage(role=MessageRole.SYSTEM, content=system),
                    ChatMessage(role=MessageRole.USER, content=question)]
        return llm.chat(messages, max_tokens=12).message.content

    shared = load_llm(settings, settings.fast_llm_model)
    plain = load_llm(settings, settings.fast_llm_model)
    shared._prefixes.path = plain._prefixes.path = None  # memory only: no state of other runs
    for llm in (shared, plain):
        answer(llm, "What is LoRA? One sentence.")
    shared.complete("Translate into English: 扩散模型的采样质量为什么会下降？", max_tokens=16)
    assert answer(shared, "What is DPO? One sentence.") == answer(plain, "What is DPO? One sentence.")
    assert shared._prefixes.loads == 1  # put back, not read again
