"""Experiment (data for a check, not a stage): every sentence the answer model writes, with the sources it was given
and what the claim-support rules of ragqa/answer/citations.py did with it, to be labelled by reading (supported,
unsupported, no claim) and used to calibrate those rules (`_supported`: a cited sentence's check; `supporting_source`:
an uncited sentence's credited source). The sentences labelled on 2026-12-06 were recorded under the word-share rules
and the echo guard that the fitted check (ragqa/answer/support.py) has since replaced; `cited_share` and
`uncited_shares` still record those rules' shares.

Runs the real answer pipeline (as `ragqa eval answers`: default Settings, the local qwen2.5-1.5b, the main store, the
rewrite cache) over the questions of the given sets, with `ragqa.answer.explain.resolve_citations` wrapped: each call
records the question the model was asked, the row, the model's raw text, every numbered source (n, paper id, label,
title, venue, year, the evidence sentences shown to the model) and, for each sentence of `split_answer_sentences`, its
markers, whether resolve_citations kept or dropped it (dropped: its cleaned form is in the returned `dropped` list),
the rule that dropped it (traced from the calls resolve_citations makes) and the two shares the rules threshold.

One JSON line per sentence, grouped by `answer_id` (dataset:row id); a rerun skips the answers already written
(`--fresh` starts over). The labels (`support`, `supporting_n`, `why`, `labeller`) are added to the same file by hand.

Usage: python -m evals.experiments.claim_sentences [--datasets A.jsonl B.jsonl ...] [--lang en zh] [--limit N]
       [--out evals/datasets/claim_sentences.jsonl] [--fresh]
Summary of a labelled file: python -m evals.experiments.claim_sentences --summary [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATASETS = [ROOT / "evals" / "datasets" / f"{name}.jsonl" for name in
            ("seed_questions", "answer_questions", "heldout_mixed")]
OUT = ROOT / "evals" / "datasets" / "claim_sentences.jsonl"
LABELS = ("supported", "unsupported", "no_claim")


def norm(sentence: str) -> str:
    """A sentence as resolve_citations' cleaning and cite_named leave it comparable: markers, brackets, spaces and
    punctuation gone ("[D4S] is …" and "D4S is … [1]." compare equal)."""
    from ragqa.answer.citations import _MARKER

    return re.sub(r"[\W_]+", "", _MARKER.sub(" ", sentence)).lower()


def cited_share(sentence: str, cited: list, question: str) -> float | None:
    """The share `_supported` thresholded before the fitted check (its formula, without the threshold): None for
    Chinese or wordless."""
    from ragqa.answer.citations import _MARKER
    from ragqa.answer.support import stems
    from ragqa.text.clean import CJK
    from ragqa.text.sentences import content_words

    if CJK.search(sentence) or not cited:
        return None
    words = stems(content_words(_MARKER.sub(" ", sentence)))
    if not words:
        return None
    words = (words - stems(set(re.findall(r"[a-z0-9][\w'-]*", question.lower())))) or words
    names = " ".join(s.hit.meta.get("label") or "" for s in cited if " " not in (s.hit.meta.get("label") or ""))
    found = stems(content_words(" ".join(" ".join(s.evidence) for s in cited) + " " + names))
    return round(len(words & found) / len(words), 4)


def uncited_shares(sentence: str, sources: list) -> dict[int, list]:
    """Per source, [share, shared words] of an English sentence's content words in its label + evidence (what
    `supporting_source` compared before the fitted check, unstemmed)."""
    from ragqa.answer.citations import _MARKER
    from ragqa.text.clean import CJK
    from ragqa.text.sentences import content_words

    if CJK.search(sentence):
        return {}
    words = content_words(_MARKER.sub(" ", sentence))
    if not words:
        return {}
    out = {}
    for s in sources:
        found = len(words & content_words(" ".join(s.evidence) + " " + (s.hit.meta.get("label") or "")))
        out[s.n] = [round(found / len(words), 4), found]
    return out


class Recorder:
    """Wraps resolve_citations (in ragqa.answer.explain) and the checks it calls (in ragqa.answer.citations), and
    keeps one record per call."""

    TRACED = ("leaks_example", "_supported", "ungrounded_figures", "supporting_source")

    def __init__(self):
        import ragqa.answer.citations as citations
        import ragqa.answer.explain as explain

        self.citations, self.explain = citations, explain
        self.calls: list[dict] = []
        self.trace: list[tuple[str, str, object]] | None = None
        self.original = explain.resolve_citations
        self.checks = {name: getattr(citations, name) for name in self.TRACED}

    def install(self) -> None:
        for name, fn in self.checks.items():
            setattr(self.citations, name, self._traced(name, fn))
        self.explain.resolve_citations = self._resolve

    def uninstall(self) -> None:
        for name, fn in self.checks.items():
            setattr(self.citations, name, fn)
        self.explain.resolve_citations = self.original

    def _traced(self, name, fn):
        def call(*args, **kwargs):
            result = fn(*args, **kwargs)
            if self.trace is not None:
                self.trace.append((name, args[0] if args and isinstance(args[0], str) else "", result))
            return result
        return call

    def _resolve(self, text, sources, profile=None, fired=None, question="", examples=None):
        fired = fired if fired is not None else []
        before = len(fired)
        self.trace = []
        try:
            result = self.original(text, sources, profile, fired, question, examples)
        finally:
            trace, self.trace = self.trace, None
        self.calls.append({"text": text, "sources": list(sources), "asked": question, "result": result,
                           "fired": fired[before:], "trace": trace})
        return result


def drop_rule(key: str, trace: list[tuple[str, str, object]]) -> str:
    """Which check dropped the sentence whose normalised form is `key`: the failing traced check on it, else repeat."""
    for name, arg, result in trace:
        if not arg or norm(arg) != key:
            continue
        if name == "leaks_example" and result:
            return "example-leak"
        if name == "_supported" and result is False:
            return "cited-share"
        if name == "ungrounded_figures" and result:
            return "grounded-numbers"
        if name == "supporting_source" and result is None:
            return "uncited-support"
    return "repeat"


def sentence_rows(call: dict, base: dict) -> list[dict]:
    from ragqa.answer.citations import parse_markers, split_answer_sentences

    text, sources, asked = call["text"], call["sources"], call["asked"]
    answer_text, cited, invalid, dropped = call["result"]
    by_n = {s.n: s for s in sources}
    sentences = split_answer_sentences(text)
    keys = [norm(s) for s in sentences]
    # a dropped form counted against the last sentences that have it (the repeat guard drops the later copies)
    left = Counter(norm(d) for d in dropped)
    is_dropped = [False] * len(sentences)
    for i in range(len(sentences) - 1, -1, -1):
        if left[keys[i]] > 0:
            is_dropped[i], left[keys[i]] = True, left[keys[i]] - 1
    unmatched = []  # dropped forms no sentence of the raw text has (none expected)
    for d in dropped:
        if left[norm(d)] > 0:
            unmatched.append(d)
            left[norm(d)] -= 1
    shown = [{"n": s.n, "paper_id": s.hit.paper_id, "label": s.hit.meta.get("label") or "",
              "title": s.hit.meta.get("title") or "", "venue": s.hit.meta.get("venue") or "",
              "year": s.hit.meta.get("year") or None, "evidence": list(s.evidence)} for s in sources]
    rows = []
    for i, sentence in enumerate(sentences):
        numbers = [n for _, ns in parse_markers(sentence) for n in ns]
        valid = [n for n in dict.fromkeys(numbers) if n in by_n]
        has_words = bool(keys[i])
        rows.append({
            **base, "sentence_index": i, "n_sentences": len(sentences), "sentence": sentence,
            "markers": numbers, "decision": "dropped" if is_dropped[i] else ("kept" if has_words else "empty"),
            "drop_rule": drop_rule(keys[i], call["trace"]) if is_dropped[i] else None,
            "cited_share": cited_share(sentence, [by_n[n] for n in valid], asked) if valid else None,
            "uncited_shares": uncited_shares(sentence, sources) if not numbers else None,
            "asked": asked, "raw_text": text, "sources": shown,
            "resolved": {"answer": answer_text, "cited": cited, "invalid": invalid, "dropped": dropped,
                         "unmatched_dropped": unmatched},
            "fired": call["fired"],
        })
    return rows


def load_questions(path: Path, answer_questions) -> list:
    """A dataset (evals/dataset.py's format), or any JSONL of {"id", "question", "history"?} (the new-user question
    files of evals/experiments/, whose gold papers are titles and whose kinds are their own): language from the
    script, gold and kind kept as written."""
    from ragqa.errors import QueryError
    from ragqa.text.clean import CJK

    from ..dataset import EvalQuestion

    try:
        return answer_questions([path], None)
    except QueryError:
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
        return [EvalQuestion(str(r["id"]), r["question"], tuple(map(str, r.get("gold") or ())), "single",
                             "zh" if CJK.search(r["question"]) else "en", tuple(r.get("history") or ()),
                             kind=str(r.get("kind") or "")) for r in rows]


def collect(args) -> int:
    from ragqa.answer.conversation import Conversation
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from ragqa.query.request import Filters

    from ..cli import REWRITE_CACHE, _answer_questions

    questions = []
    for path in args.datasets:  # each set's ids prefixed by its name; a repeat across sets asked once
        for q in load_questions(path, _answer_questions):
            questions.append(replace(q, id=f"{path.stem}:{q.id}"))
    seen = set()
    if args.out.exists() and not args.fresh:  # asked in an earlier run, perhaps under another set's id
        seen = {(r["question"], tuple(r["history"])) for r in map(json.loads, filter(
            str.strip, args.out.read_text("utf-8").splitlines()))}
    unique = []
    for q in questions:
        if (q.question, q.history) not in seen and (not args.lang or q.lang in args.lang):
            seen.add((q.question, q.history))
            unique.append(q)
    questions = unique[: args.limit]
    if args.fresh and args.out.exists():
        args.out.unlink()
    done = set()
    if args.out.exists():
        done = {json.loads(line)["row_id"] for line in args.out.read_text("utf-8").splitlines() if line.strip()}
    # rows asked before with no LLM answer are asked again (they write nothing): cheap, no LLM call
    todo = [q for q in questions if q.id not in done]
    print(f"{len(questions)} questions, {len(questions) - len(todo)} already written", file=sys.stderr)
    pipeline = Pipeline(Settings())
    pipeline.rewrite_cache = REWRITE_CACHE
    pipeline.warm_up()
    recorder = Recorder()
    recorder.install()
    written = no_llm = 0
    try:
        for i, q in enumerate(todo, 1):
            recorder.calls.clear()
            start = time.time()
            answer = pipeline.ask(q.question, Filters(**q.filters), Conversation.of(q.history) if q.history else None)
            base = {"answer_id": q.id, "row_id": q.id, "dataset": q.id.split(":", 1)[0], "lang": q.lang,
                    "type": q.type, "kind": q.kind, "gold": list(q.gold), "question": q.question,
                    "history": list(q.history), "mode": answer.mode, "coverage": answer.coverage,
                    "model": answer.model}
            rows = []
            for k, call in enumerate(recorder.calls):
                call_base = {**base, "answer_id": q.id if k == 0 else f"{q.id}#{k}"}
                rows += sentence_rows(call, call_base)
            if not recorder.calls:
                no_llm += 1
            with args.out.open("a", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            written += len(rows)
            print(f"[{i}/{len(todo)}] {q.id} {answer.mode} {len(rows)} sentences {time.time() - start:.1f}s",
                  file=sys.stderr, flush=True)
    finally:
        recorder.uninstall()
    print(f"{written} sentences written to {args.out}; {no_llm} questions with no model answer", file=sys.stderr)
    return 0


def summary(path: Path) -> dict:
    """Counts by label and language, and the rules' decisions against the labels."""
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    labelled = [r for r in rows if r.get("support") in LABELS]
    claims = [r for r in labelled if r["support"] != "no_claim" and r["decision"] in ("kept", "dropped")]

    def table(subset):
        return {f"{d}/{s}": sum(r["decision"] == d and r["support"] == s for r in subset)
                for d in ("kept", "dropped") for s in ("supported", "unsupported")}
    return {
        "sentences": len(rows), "answers": len({r["answer_id"] for r in rows}), "labelled": len(labelled),
        "by_label": dict(Counter(r["support"] for r in labelled)),
        "by_lang": {lang: dict(Counter(r["support"] for r in labelled if r["lang"] == lang))
                    for lang in sorted({r["lang"] for r in labelled})},
        "by_decision": dict(Counter(f"{r['decision']}/{r['support']}" for r in labelled)),
        "confusion": table(claims),
        "confusion_cited": table([r for r in claims if r["markers"]]),
        "confusion_uncited": table([r for r in claims if not r["markers"]]),
        "confusion_by_lang": {lang: table([r for r in claims if r["lang"] == lang])
                              for lang in sorted({r["lang"] for r in claims})},
        "drop_rules": {rule: dict(Counter(r["support"] for r in labelled if r["drop_rule"] == rule))
                       for rule in sorted({r["drop_rule"] for r in labelled if r["drop_rule"]})},
        # each rule's share alone, over every English claim it would see (whatever the other guards did): at each
        # threshold, how many supported / unsupported sentences pass
        "cited_share_sweep": sweep([(r["cited_share"], r["support"]) for r in claims
                                    if r["markers"] and r["cited_share"] is not None]),
        "uncited_best_share_sweep": sweep([(max(v[0] for v in r["uncited_shares"].values()), r["support"])
                                           for r in claims if not r["markers"] and r["uncited_shares"]]),
    }


def sweep(pairs: list[tuple[float, str]]) -> dict[str, str]:
    """threshold -> "supported passing/all, unsupported passing/all"."""
    sup = [x for x, label in pairs if label == "supported"]
    uns = [x for x, label in pairs if label == "unsupported"]
    return {f"{t:.2f}": f"supported {sum(x >= t for x in sup)}/{len(sup)}, "
                        f"unsupported {sum(x >= t for x in uns)}/{len(uns)}"
            for t in (0.0, 0.2, 0.25, 0.3, 0.34, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", type=Path, nargs="+", default=DATASETS)
    p.add_argument("--lang", nargs="*", default=None, help="only these languages (default: all)")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--fresh", action="store_true", help="delete --out first")
    p.add_argument("--summary", action="store_true", help="print the labelled file's counts instead of collecting")
    args = p.parse_args(argv)
    if args.summary:
        print(json.dumps(summary(args.out), indent=1, ensure_ascii=False))
        return 0
    return collect(args)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
