"""Which embedding backend each role gets: questions and evidence sentences vs chunks at ingest."""
from __future__ import annotations

import pytest

from ragqa.config import Settings
from ragqa.models import weights as models
from ragqa.models.hashing import HashingEmbedding
from ragqa.pipeline import Pipeline


@pytest.mark.parametrize("installed, query, expected", [
    (True, "auto", "onnx"), (False, "auto", "auto"), (True, "same", "auto"), (True, "torch", "torch"),
    (False, "onnx", "onnx"),
])
def test_query_backend_resolves(monkeypatch, installed, query, expected):
    monkeypatch.setattr(models, "_onnx_installed", lambda: installed)
    settings = Settings(query_backend=query)
    assert models.embed_backend(settings, queries=True) == expected
    assert models.embed_backend(settings) == "auto"  # ingest keeps embed_backend


def test_other_models_use_one_backend_for_both(monkeypatch):
    monkeypatch.setattr(models, "_onnx_installed", lambda: True)
    assert models.embed_backend(Settings(embed_model="/some/st-model", embed_backend="torch"), queries=True) == "torch"


def test_one_given_embedder_does_both_roles_and_two_stay_apart():
    one, two = HashingEmbedding(), HashingEmbedding()
    assert Pipeline(Settings(), embedder=one).ingest_embedder is one
    pipeline = Pipeline(Settings(), embedder=one, ingest_embedder=two)
    assert pipeline.embedder is one and pipeline.ingest_embedder is two


def test_one_backend_loads_once(monkeypatch):
    loaded = []
    monkeypatch.setattr(models, "load_embedder",
                        lambda settings, queries=False: loaded.append(queries) or HashingEmbedding())
    pipeline = Pipeline(Settings(embed_model="hash"))
    assert pipeline.ingest_embedder is pipeline.embedder and loaded == [True]


def test_bm25s_loads_without_numba_or_scipy_and_both_still_import_later():
    import subprocess
    import sys

    code = ("import sys; from ragqa.store.lexical import _bm25s; b = _bm25s(); s = 'numba' in sys.modules; "
            "t = 'scipy.sparse' in sys.modules; import numba, scipy.sparse; "
            "print(s, b.NUMBA_AVAILABLE, numba.__name__, t, b.SCIPY_AVAILABLE, scipy.sparse.csc_matrix.__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-400:]
    assert done.stdout.split() == ["False", "False", "numba", "False", "False", "csc_matrix"]


def test_bf16_is_chosen_where_the_cpu_computes_in_bf16():
    """AMX Xeons (amx_bf16) and Zen 4 EPYCs (avx512_bf16) embed twice as fast in bf16; elsewhere it is emulated."""
    from ragqa.models.weights import cpu_has_bf16

    assert cpu_has_bf16("flags : fpu avx512f avx512_vnni avx512_bf16 vaes")
    assert cpu_has_bf16("flags : fpu avx512f amx_bf16 amx_tile")
    assert not cpu_has_bf16("flags : fpu avx512f avx512_vnni")
    assert not cpu_has_bf16("flags : fpu avx2 xavx512_bf16x")  # a flag, not part of another word


def test_rewrites_are_cached_per_model_and_prompt(tmp_path):
    """#45 4: a dataset's translations and rewrites are computed once per model and prompt; a changed prompt or
    model misses; a warm cache never loads the model."""
    from ragqa.models.completion_cache import CachedCompletions

    loads, prompts = [], []

    class Counting:
        def complete(self, prompt, **kwargs):
            prompts.append(prompt)
            return type("R", (), {"text": prompt.upper()})()

    def load():
        loads.append(1)
        return Counting()

    path = tmp_path / "rewrites.jsonl"
    first = CachedCompletions(load, path, "model-a")
    assert first.complete("translate: 你好", max_tokens=80).text == "TRANSLATE: 你好"
    warm = CachedCompletions(load, path, "model-a")
    assert warm.complete("translate: 你好", max_tokens=80).text == "TRANSLATE: 你好"
    assert (len(loads), len(prompts), warm.hits, warm.misses) == (1, 1, 1, 0)  # the warm cache loaded no model
    CachedCompletions(load, path, "model-b").complete("translate: 你好", max_tokens=80)  # another model: a miss
    warm.complete("translate (v2): 你好", max_tokens=80)  # another prompt template: a miss
    assert len(prompts) == 3
    path.write_text(path.read_text() + '{"key": "cut', encoding="utf-8")  # a line cut by a killed run is ignored
    assert CachedCompletions(load, path, "model-a").complete("translate: 你好", max_tokens=80).text


def test_chat_turns_are_cached_as_completions_are(tmp_path):
    """The subject check's chat turns are kept too: the same turns hit; a changed turn misses."""
    from llama_index.core.base.llms.types import ChatMessage

    from ragqa.models.completion_cache import CachedCompletions
    from tests.fakes import ScriptedLLM

    llm = ScriptedLLM([lambda prompt: prompt.split()[-1]])
    turns = [ChatMessage(role="system", content="reply with the last word"), ChatMessage(role="user", content="a b")]
    path = tmp_path / "rewrites.jsonl"
    assert CachedCompletions(lambda: llm, path, "m").chat(turns, max_tokens=16).message.content == "b"
    warm = CachedCompletions(lambda: llm, path, "m")
    assert warm.chat(turns, max_tokens=16).message.content == "b" and (warm.hits, len(llm.prompts)) == (1, 1)
    warm.chat([turns[0], ChatMessage(role="user", content="a c")], max_tokens=16)
    assert (warm.misses, len(llm.prompts)) == (1, 2)


def test_a_cache_that_cannot_be_written_still_answers_and_says_so_once(tmp_path, capsys):
    from ragqa.models.completion_cache import CachedCompletions

    class Echo:
        def complete(self, prompt, **kwargs):
            return type("R", (), {"text": prompt.upper()})()

    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    cache = CachedCompletions(lambda: Echo(), blocked / "rewrites.jsonl", "m")  # its folder is a file: not writable
    assert cache.complete("a").text == "A" and cache.complete("b").text == "B" and cache.complete("a").text == "A"
    assert capsys.readouterr().err.count("Not keeping completions") == 1 and cache.hits == 1


def test_the_pipeline_serves_rewrites_from_its_cache_with_one_model(tmp_path):
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from tests.fakes import ScriptedLLM

    llm = ScriptedLLM(["What is LoRA?"])
    pipeline = Pipeline(Settings(llm_backend="llamacpp"), llm=llm, fast_llm=llm)
    pipeline.rewrite_cache = tmp_path / "rewrites.jsonl"
    assert pipeline.translate("LoRA 是什么？") == "What is LoRA?"
    again = Pipeline(Settings(llm_backend="llamacpp"), llm=ScriptedLLM(["other"]), fast_llm=ScriptedLLM(["other"]))
    again.rewrite_cache = pipeline.rewrite_cache
    assert again.translate("LoRA 是什么？") == "What is LoRA?" and again._cached_rewrites.hits == 1


def test_one_model_instance_serves_translation_rewrite_and_answer(monkeypatch):
    """#45 1: translation and follow-up rewriting use the answering model's weights, loaded once per process."""
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from tests.fakes import ScriptedLLM

    loads = []

    def load(settings, name):
        loads.append(name)
        return ScriptedLLM(["What is LoRA?"])

    monkeypatch.setattr("ragqa.models.llm.load_llm", load)
    pipeline = Pipeline(Settings(llm_backend="llamacpp", rewrite_with_fast_model=False))
    assert pipeline.translate("LoRA 是什么？") == "What is LoRA?"
    assert pipeline.rewrite_llm() is pipeline.llm() and len(loads) == 1


def _state(tokens, data=b"kv"):
    import numpy as np

    from ragqa.models.prefix_cache import SeqState

    return SeqState(np.array(tokens, dtype=np.intc), data)


def test_the_prefix_cache_returns_the_state_sharing_the_longest_prefix(tmp_path):
    """Kept per kind of prompt (its first tokens): a translation does not push out the answer prompt's state."""
    from ragqa.models.prefix_cache import DISK_MIN_TOKENS, FAMILY_TOKENS, PrefixCache

    cache = PrefixCache(None, "m")
    answer = list(range(DISK_MIN_TOKENS + 100))
    translation = [9999] * FAMILY_TOKENS + [1, 2, 3]
    cache[answer] = _state(answer, b"answer")
    cache[translation] = _state(translation, b"translation")
    assert cache[answer[:600] + [7, 7]].data == b"answer" and cache[translation[:-1] + [5]].data == b"translation"
    with pytest.raises(KeyError):
        cache[[-1, -2]]


def test_the_answer_prompts_state_is_written_once_per_prompt_version(tmp_path):
    from ragqa.models.prefix_cache import DISK_MIN_TOKENS, PrefixCache

    fixed = list(range(DISK_MIN_TOKENS))
    first, second = fixed + [1] * 50, fixed + [2] * 60
    PrefixCache(tmp_path, "m")[first] = _state(first, b"one")
    assert PrefixCache(tmp_path, "m")[second].data == b"one"  # a new process starts from it
    PrefixCache(tmp_path, "m")[second] = _state(second, b"two")  # shares less than the whole first prompt: written
    third = PrefixCache(tmp_path, "m")
    third[fixed + [3] * 70] = _state(fixed + [3] * 70, b"three")  # shares the fixed part: not written again
    assert PrefixCache(tmp_path, "m")[fixed + [4]].data == b"two"
    changed = [5] + fixed[1:] + [1]  # the prompt file changed at its start: written
    PrefixCache(tmp_path, "m")[changed] = _state(changed, b"new prompt")
    assert PrefixCache(tmp_path, "m")[changed].data == b"new prompt"
    assert PrefixCache(tmp_path, "other model")._read_disk() is None


def test_the_server_embeds_uploads_without_torch():
    """#45 1: the served UI embeds a Library upload with the int8 ONNX MiniLM it embeds questions with, unless the
    user chose a backend; the LLM's weights are read into memory, not mapped (one resident copy)."""
    from ragqa.config import Settings
    from ragqa.models.weights import _onnx_installed
    from ui.app import served_settings

    if not _onnx_installed():
        pytest.skip("the int8 ONNX MiniLM is not installed")
    assert served_settings(Settings()).embed_backend == "onnx"
    assert served_settings(Settings(embed_backend="torch")).embed_backend == "torch"
    assert Settings().llm_mmap is False


def test_a_model_load_is_timed_and_announced_with_the_last_time(tmp_path, monkeypatch, capsys):
    """#45 3: before the LLM loads, the CLI says on a terminal what is loading and about how long it took here the
    last time (a pipe gets only the answer, an error stays one line: tests/unit/test_cli.py)."""
    from ragqa.cli_answer import _stream_to_terminal
    from ragqa.config import Settings
    from ragqa.models import load_times
    from ragqa.pipeline import Pipeline
    from tests.fakes import ScriptedLLM

    settings = Settings(model_cache_dir=tmp_path)
    assert "first time" in load_times.loading_message(settings, "qwen2.5-1.5b")
    monkeypatch.setattr("ragqa.models.llm.load_llm", lambda s, name: ScriptedLLM(["x"]))
    Pipeline(settings).llm()
    seconds = load_times.expected(settings, settings.llm_model)
    assert seconds is not None and "as last time" in load_times.loading_message(settings, settings.llm_model)

    class Unloaded:
        def __init__(self):
            self.settings = settings

        def llm_loaded(self, fast=False):
            return False

        def stream(self, *args, **kwargs):
            from ragqa.answer.context import Event
            from ragqa.answer.records import Answer

            yield Event("done", answer=Answer("q", "An answer [1].", False, "llm"))

    monkeypatch.setattr("sys.stderr.isatty", lambda: True)  # said on a terminal, erased when the answer starts
    _stream_to_terminal(Unloaded(), "q", None)
    out, err = capsys.readouterr()
    assert f"Loading the language model {settings.llm_model}" in err and out.count("An answer [1].") == 1
    assert err.index("Loading") < err.index("\x1b[K")


def test_a_cache_folder_that_cannot_be_written_costs_only_the_warm_start(tmp_path):
    from ragqa.models.prefix_cache import DISK_MIN_TOKENS, PrefixCache

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    cache = PrefixCache(blocked / "states", "m")  # mkdir under a file fails
    prompt = list(range(DISK_MIN_TOKENS + 1))
    cache[prompt] = _state(prompt, b"kv")  # no exception: kept in memory only
    assert cache[prompt].data == b"kv" and not (blocked / "states").exists()
