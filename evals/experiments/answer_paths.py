"""Experiment (a probe, not a stage): the path every question of evals/datasets/ takes through `ask` (answer form,
mode, why, coverage, abstained, cited papers, how many counted, notes; with --text the answer's text), with a
scripted LLM (no model: it answers with the first sentence of the first source, cited [1]) and Chinese searched
untranslated (--translate: translated by the real LLM, cached), so the run is deterministic and fast. Run it before
and after a change to the answer path; the questions whose path changed are printed. The written_* sets
(calibration questions over other corpora) are left out.

    python -m evals.experiments.answer_paths --out /tmp/before.json
    python -m evals.experiments.answer_paths --out /tmp/after.json --compare /tmp/before.json

With --subject-llm the subject check and the subject phrase of questions about the collection (query/subject.py) ask
the real LLM (its replies kept in evals/datasets/.cache/rewrites.jsonl), everything else as above; each check is
printed with its reply.
"""
from __future__ import annotations

import argparse
import glob
import json
from pathlib import Path
from typing import Any, Sequence

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, CompletionResponse, LLMMetadata, MessageRole
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM

from evals.fake_llm import scripted_answer
from ragqa.answer.ask import ask
from ragqa.config import Settings
from ragqa.pipeline import Pipeline

DATASETS = Path(__file__).resolve().parent.parent / "datasets"


class _Scripted(CustomLLM):
    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True, model_name="scripted")

    @staticmethod
    def _reply(messages: Sequence[ChatMessage]) -> str:
        return scripted_answer([{"content": str(messages[-1].content)}] if messages else [])

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=scripted_answer([{"content": prompt}]))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
        text = scripted_answer([{"content": prompt}])

        def gen():
            yield CompletionResponse(text=text, delta=text)
        return gen()

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self._reply(messages)))

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any):
        text = self._reply(messages)

        def gen():
            yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=text)
        return gen()


def _packaged_llm(settings: Settings):
    """The packaged LLM behind the evaluations' completion cache, loaded on the first miss only."""
    from evals.cli import REWRITE_CACHE
    from ragqa.models.completion_cache import CachedCompletions
    from ragqa.models.llm import load_llm

    return CachedCompletions(lambda: load_llm(settings, settings.llm_model), REWRITE_CACHE, settings.llm_model)


def _real_subject_check(settings: Settings, real=None) -> None:
    """scope.names_subject and scope.subject_phrase ask the packaged LLM (cached; `real`: that one), and print each
    question they were asked about."""
    from ragqa.answer import scope

    real = real if real is not None else _packaged_llm(settings)
    check = scope.names_subject

    def logged(_llm, words: str, prompts_dir) -> bool:
        reply = check(real, words, prompts_dir)
        print(f"subject check: {words!r} -> {reply}", flush=True)
        return reply

    def phrase(_llm, words: str, prompts_dir) -> str:
        reply = read(real, words, prompts_dir)
        print(f"subject phrase: {words!r} -> {reply!r}", flush=True)
        return reply
    read = scope.subject_phrase
    scope.names_subject, scope.subject_phrase = logged, phrase


def paths(text: bool = False, subject_llm: bool = False, exclude: frozenset[str] = frozenset(),
          translate: bool = False) -> dict[str, dict]:
    """dataset:id -> the path its question took (`text`: and the answer's text, for a change meant to keep it); the sets
    named in `exclude` are left out. `translate`: Chinese questions translated (and follow-ups rewritten) by the real
    LLM, as `ask` does, not searched untranslated."""
    llm, settings = _Scripted(), Settings(translate_queries=translate)
    real = _packaged_llm(settings) if subject_llm or translate else None  # one model copy for both
    # translations and follow-up rewrites by the packaged model (its completions cached: the first run translates
    # every Chinese question, later runs read them), else by the script
    pipeline = Pipeline(settings, llm=llm, fast_llm=llm, rewrite_llm=real if translate else None)
    if subject_llm:
        _real_subject_check(settings, real)
    out: dict[str, dict] = {}
    for path in sorted(glob.glob(str(DATASETS / "*.jsonl"))):
        if "written_" in Path(path).name or Path(path).stem in exclude:
            continue
        for i, line in enumerate(open(path, encoding="utf-8")):
            row = json.loads(line)
            a = ask(pipeline, row["question"], history=row.get("history"))
            out[f"{Path(path).stem}:{row.get('id', i)}"] = {
                "form": a.form, "mode": a.mode, "why": a.why, "coverage": a.coverage, "abstained": a.abstained,
                "cited": [c.paper_id for c in a.citations], "counted": len(a.counted or []), "notes": a.notes,
                "text": a.text if text else None}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path, default=None)
    parser.add_argument("--text", action="store_true", help="record and compare each answer's text too")
    parser.add_argument("--subject-llm", action="store_true", help="the subject check asks the real LLM")
    parser.add_argument("--translate", action="store_true",
                        help="Chinese questions translated and follow-ups rewritten by the real LLM (cached)")
    parser.add_argument("--exclude", nargs="*", default=["claim_sentences"],
                        help="datasets (file stems) left out: a held-out set not yet run, sentences (no questions)")
    args = parser.parse_args()
    now = paths(args.text, args.subject_llm, frozenset(args.exclude), args.translate)
    args.out.write_text(json.dumps(now, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.compare:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        changed = [k for k in now if now[k] != before.get(k)]
        for k in changed:
            print(k, "\n  before:", before.get(k), "\n  after: ", now[k])
        print(f"{len(changed)} of {len(now)} questions took another path")
    else:
        print(f"{len(now)} questions written to {args.out}")


if __name__ == "__main__":
    main()
