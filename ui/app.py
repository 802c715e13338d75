"""The Gradio chat UI: build_app(pipeline) -> gr.Blocks. Nothing starts at import; launch() serves it.

A chat panel streams cited answers beside a sources panel (the cited papers download as BibTeX,
CSL-JSON or Markdown) and, for group answers ("which venue has the most orals?"), a bar chart
(ui/charts.py); a Papers tab browses the index by facet and shows a clicked paper's record
(ui/papers.py); a Library tab adds an uploaded citation file as a named library and removes
libraries (ui/library.py). Models are shared by all sessions and loaded once; the page reports
loading and indexing. Parsing, indexing, answering and export live in ragqa/.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

import gradio as gr

from ragqa.answer.conversation import Conversation
from ragqa.errors import ModelError, QueryError, RagqaError
from ragqa.query.request import Filters
from ui.charts import chart_component, group_chart
from ui.choices import ALL, ANY, LIVE, chosen, index_choices
from ui.library import LibraryTab, library_rows
from ui.papers import PapersTab, papers_table
from ui.render import CSS, answer_markdown, inert, sources_panel

FORMATS = {"BibTeX": ("bibtex", ".bib"), "CSL-JSON": ("csl-json", ".json"), "Markdown": ("markdown", ".md")}
EXAMPLES = [
    "Is there work on making sparse autoencoders cheaper at huge widths?",
    "Which papers propose new ways to evaluate interpretability methods?",
    "有没有研究图神经网络中分数阶微分方程的论文？",
    "Which ICLR 2025 papers study large language models?",
    "Which venue has the most oral papers?",
]
CHAT = "chat"  # the Chat tab's id (the Papers tab's ask button switches to it)


class AppState:
    """Process-wide readiness shown on the page (index build and model loading run in background)."""

    def __init__(self):
        self.message = "Starting…"
        self.ready = False
        self.ready_line = ""  # the Ready message, once start-up is done
        self.model_down = False  # the language model could not be reached at the last try
        self.lock = threading.Lock()

    def set(self, message: str, ready: bool | None = None) -> None:
        with self.lock:
            self.message = message
            if ready is not None:
                self.ready = ready

    def model(self, ready_line: str, failure: ModelError | None = None) -> None:
        """Ready, with the language model answering (failure None) or not: search and the Papers tab work either way,
        and each question tries the model again, so a server that comes back needs no restart."""
        self.ready_line, self.model_down = ready_line, failure is not None
        self.set(ready_line if failure is None else
                 f"{ready_line.rstrip('.')}, but the language model is unavailable: {failure} "
                 "Each question tries it again.",
                 ready=True)

    def wait(self, seconds: float = 900, poll: float = 0.5):
        """Yield the start-up message whenever it changes, until ready, failed ("Error: …") or timed out."""
        import time

        shown, deadline = None, time.monotonic() + seconds
        while not self.ready and not self.message.startswith("Error") and time.monotonic() < deadline:
            if self.message != shown:
                shown = self.message
                yield shown
            time.sleep(poll)


def _filters(venue, year, topic, library=ALL) -> Filters:
    year = chosen(year)
    if year is not None and not str(year).strip().isdigit():
        raise QueryError(f"Year {year!r} is not a year. Choose one from the list, e.g. 2024.")
    return Filters(venue=chosen(venue), year=None if year is None else int(year), topic=chosen(topic),
                   library=chosen(library))


def write_export(papers: list, fmt: str, stem: str, folder: Path) -> Path:
    """`papers` as one citation file (fmt: bibtex / csl-json / markdown) under `folder`, in a subfolder
    named by the content: the same papers and format give the same file, whoever asks."""
    from ragqa.ingest.export import export_papers

    text = export_papers(papers, fmt)
    suffix = next(s for f, s in FORMATS.values() if f == fmt)
    path = folder / hashlib.sha1(text.encode("utf-8")).hexdigest()[:16] / f"{stem}{suffix}"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.name}.{threading.get_ident()}.part")
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)  # another session asking for the same file never reads half of it
    return path


def stored_in_order(pipeline, paper_ids: list[str]) -> list:
    """The catalogued Paper records for these ids, in the given order (ids no longer indexed are left out)."""
    ids = list(dict.fromkeys(paper_ids))
    found = {p.paper_id: p for p in pipeline.index().stored_papers(ids)}
    return [found[i] for i in ids if i in found]


def new_conversation() -> dict:
    # chat: the Conversation (earlier questions, the papers follow-ups refer to); last / all: downloads;
    # parsed: the last question, when filters were read from it (what "Undo" asks again)
    return {"chat": Conversation(cited=[]), "last": [], "all": [], "parsed": None}


def build_app(pipeline, state: AppState | None = None) -> gr.Blocks:
    """The whole UI around an existing Pipeline (models shared by every session)."""
    state = state or AppState()
    if state.message == "Starting…":
        state.set("Ready.", ready=True)
    choices = index_choices(pipeline)
    exports = Path(tempfile.mkdtemp(prefix="ragqa-export-"))  # downloads live while the app serves
    atexit.register(shutil.rmtree, exports, ignore_errors=True)

    active: set[str] = set()  # sessions with a question being answered: one at a time each, so none starves the rest
    active_lock = threading.Lock()

    def respond(question, chat, conv, venue, year, topic, library, k, fast, request: gr.Request = None,
                auto_filters=True):
        """One question at a time per browser session; Gradio's queue (and its position display)
        orders the sessions."""
        session = getattr(request, "session_hash", None)
        with active_lock:
            busy = session is not None and session in active
            if not busy and session is not None:
                active.add(session)
        if busy:
            chat = [*(chat or []), {"role": "user", "content": inert((question or "").strip())},
                    {"role": "assistant",
                     "content": "Your previous question is still being answered; ask this one when it is done."}]
            yield chat, conv, gr.update(), question, gr.update(), gr.update()
            return
        try:
            yield from _respond(question, chat, conv, venue, year, topic, library, k, fast, auto_filters)
        finally:
            with active_lock:
                active.discard(session)

    def undo(chat, conv, venue, year, topic, library, k, fast, request: gr.Request = None):
        """Ask the last question again without the filters read from it (as if it came first again)."""
        conv = {**new_conversation(), **(conv or {})}
        question = conv.get("parsed")
        if not question:
            yield chat, conv, gr.update(), "", gr.update(), gr.update(visible=False)
            return
        conv = {**conv, "chat": conv["chat"].without_last()}
        yield from respond(question, chat, conv, venue, year, topic, library, k, fast, request, auto_filters=False)

    def _respond(question, chat, conv, venue, year, topic, library, k, fast, auto_filters=True):
        """Stream one answer: -> (chat, conversation, sources panel, question box, chart, undo button) per update."""
        chat = list(chat or [])
        conv = {**new_conversation(), **(conv or {})}
        undo_shown = gr.update()

        def shown(sources=None, chart=None):  # None: that panel stays as it is
            return (chat, conv, gr.update() if sources is None else sources, "",
                    gr.update() if chart is None else chart, undo_shown)

        question = (question or "").strip()
        if not question:
            gr.Warning("Type a question first.")
            yield shown()
            return
        conv["last"] = []
        chat.append({"role": "user",
                     "content": inert(question)
                         + ("" if auto_filters else " <i>(no filters read from the question)</i>")})
        if not state.ready:  # the question waits for start-up instead of being lost (#18.7)
            chat.append({"role": "assistant", "content": ""})
            for message in state.wait():
                chat[-1]["content"] = inert(f"Your question is queued until start-up finishes: {message}")
                yield shown()
            if not state.ready:
                chat[-1]["content"] = inert(f"Not ready: {state.message}")
                yield shown()
                return
            chat.pop()
        chat.append({"role": "assistant", "content": "_Searching the indexed papers…_"})
        yield shown(sources_panel(status="Searching…"), group_chart(None))
        try:
            if not pipeline.llm_loaded(fast):
                chat[-1]["content"] = "_Loading the language model (first question only)…_"
                yield shown()
            streamed, sources, result = "", [], None
            for event in pipeline.stream(question, _filters(venue, year, topic, library), conv["chat"], k=int(k),
                                         fast=bool(fast), auto_filters=auto_filters):
                if event.kind == "retrieved":
                    result, sources = event.result, event.sources or []
                    chat[-1]["content"] = "_Writing the answer…_" if sources else "_Checking…_"
                    yield shown(sources_panel(sources=sources, retrieved=result.hits, status="Answer in progress…"))
                elif event.kind == "token":
                    streamed += event.delta
                    chat[-1]["content"] = inert(streamed)
                    yield shown()
                else:
                    answer = event.answer
                    chat[-1]["content"] = answer_markdown(answer)
                    cited = [c.paper_id for c in answer.citations]
                    # the turn is recorded in conv["chat"]
                    conv["parsed"] = question if answer.read_from_question else None
                    undo_shown = gr.update(visible=bool(conv["parsed"]))
                    conv["last"], conv["all"] = cited, list(dict.fromkeys(conv["all"] + cited))
                    t = answer.timings
                    status = (f"retrieval {t['retrieve_s']} s · first token {t['first_token_s']} s · total "
                              f"{t['total_s']} s · {answer.model}"
                              + (f" · {'; '.join(answer.notes)}" if answer.notes else "")
                              + (f" · repairs: {', '.join(answer.guards)}" if answer.guards else ""))
                    yield shown(sources_panel(answer, sources, result.hits if result else [], status),
                                group_chart(answer))
            if answer.mode == "llm" and state.model_down:
                state.model(state.ready_line)  # the model answered again
        except RagqaError as exc:
            chat[-1]["content"] = f"⚠️ {inert(str(exc))}"  # (a half-streamed answer is replaced, never kept)
            if isinstance(exc, ModelError) and state.ready_line:
                state.model(state.ready_line, exc)
            yield shown()

    def downloads(conv, fmt_label):
        """The two download buttons: the latest answer's cited papers and every paper cited in this chat."""
        fmt, suffix = FORMATS.get(fmt_label) or FORMATS["BibTeX"]
        out = []
        for key, stem, what in (("last", "ragqa-cited", "Cited papers"),
                                ("all", "ragqa-conversation", "All cited in this chat")):
            try:
                papers = stored_in_order(pipeline, (conv or {}).get(key) or [])
                path = write_export(papers, fmt, stem, exports) if papers else None
            except RagqaError as exc:
                gr.Warning(str(exc))
                papers, path = [], None
            label = f"{what} ({len(papers)}, {suffix})" if papers else f"{what} ({suffix})"
            out.append(gr.update(value=str(path) if path else None, label=label, interactive=bool(path)))
        return out

    def new_chat():
        return [], new_conversation(), sources_panel(), "", group_chart(None), gr.update(visible=False)

    def status_text():
        return f"**Status:** {inert(state.message)}"

    def refresh(venue_v, year_v, topic_v, chat_lib, p_query, p_venue, p_author, p_status, p_lib, p_topic, p_year):
        """Every choice that depends on the index (after a page load, an upload or a removal)."""
        c = index_choices(pipeline)
        chat_libs, paper_libs = [ALL, *c["library"]], [ANY, *c["library"]]

        def keep(value, options, default=ANY):
            return value if value in options else default

        try:
            libraries = library_rows(pipeline)
        except RagqaError:
            libraries = []
        p_venue, p_status, p_lib = keep(p_venue, c["venue"]), keep(p_status, c["status"]), keep(p_lib, paper_libs)
        p_year = keep(p_year, c["year"])
        return (gr.update(choices=c["venue"], value=keep(venue_v, c["venue"])),
                gr.update(choices=c["year"], value=keep(year_v, c["year"])),
                gr.update(choices=c["topic"], value=keep(topic_v, c["topic"])),
                gr.update(choices=chat_libs, value=keep(chat_lib, chat_libs, ALL)),
                gr.update(choices=c["venue"], value=p_venue), gr.update(choices=c["status"], value=p_status),
                gr.update(choices=paper_libs, value=p_lib), gr.update(choices=c["library"], value=None), libraries,
                *papers_table(pipeline, p_query, p_venue, p_author, p_status, p_lib, p_topic, p_year),
                gr.update(choices=c["year"], value=p_year))

    with gr.Blocks(title="ragqa — cited answers from ML papers") as app:
        gr.Markdown("## ragqa — ask the indexed ML papers\n"
                    "Answers cite the papers they rest on; every citation is checked.")
        status = gr.Markdown(status_text(), elem_id="rq-status")
        with gr.Tabs() as tabs:
            with gr.Tab("Chat", id=CHAT):
                with gr.Row():
                    with gr.Column(scale=3):
                        chatbot = gr.Chatbot(height=480, label="Conversation", elem_id="rq-chat", sanitize_html=True,
                                             buttons=["copy"])
                        question = gr.Textbox(placeholder="Ask about the papers… (Enter to send)", show_label=False,
                                              elem_id="rq-question", lines=1)
                        with gr.Row():
                            send = gr.Button("Ask", variant="primary", elem_id="rq-send")
                            clear = gr.Button("New chat", elem_id="rq-new")
                            unparse = gr.Button("Undo the filters read from the question", visible=False, size="sm",
                                                elem_id="rq-undo-filters")
                            library = gr.Dropdown([ALL, *choices["library"]], value=ALL, label="Library",
                                                  elem_id="rq-library", scale=2, **LIVE)
                        gr.Examples(EXAMPLES, inputs=question, label="Examples")
                    with gr.Column(scale=2):
                        chart = chart_component()  # group answers only ("which venue has the most orals?")
                        sources = gr.HTML(sources_panel(), label="Sources", elem_id="rq-sources")
                        with gr.Row():
                            fmt = gr.Radio(list(FORMATS), value="BibTeX", label="Download format",
                                           elem_id="rq-dl-format")
                        with gr.Row():
                            dl_answer = gr.DownloadButton("Cited papers (.bib)", interactive=False, size="sm",
                                                          elem_id="rq-dl-answer")
                            dl_conv = gr.DownloadButton("All cited in this chat (.bib)", interactive=False, size="sm",
                                                        elem_id="rq-dl-conv")
                with gr.Accordion("Filters and retrieval settings", open=False):
                    with gr.Row():
                        venue = gr.Dropdown(choices["venue"], value=ANY, label="Venue", elem_id="rq-venue", **LIVE)
                        year = gr.Dropdown(choices["year"], value=ANY, label="Year", **LIVE)
                        topic = gr.Dropdown(choices["topic"], value=ANY, label="Topic", **LIVE)
                    with gr.Row():
                        k = gr.Slider(3, 50, value=pipeline.settings.judge_k, step=1, label="Papers considered (k)")
                        fast = gr.Checkbox(False, label=f"Fast model ({pipeline.settings.fast_llm_model})")
            papers = PapersTab(pipeline, choices)
            library_tab = LibraryTab(pipeline, state, choices)
        conv = gr.State(new_conversation())
        inputs = [question, chatbot, conv, venue, year, topic, library, k, fast]
        # the API's /respond returns (chat, sources, question box, chart, undo button): the State is not exposed, and
        # new outputs go last so clients that read the first ones by position keep working
        outputs = [chatbot, conv, sources, question, chart, unparse]
        to_downloads = dict(fn=downloads, inputs=[conv, fmt], outputs=[dl_answer, dl_conv], api_name=False)
        send.click(respond, inputs, outputs, api_name="respond").then(**to_downloads)
        question.submit(respond, inputs, outputs, api_name=False).then(**to_downloads)
        clear.click(new_chat, None, outputs, api_name="new_chat").then(**to_downloads)
        unparse.click(undo, inputs[1:], outputs, api_name="undo_filters").then(**to_downloads)
        fmt.change(downloads, [conv, fmt], [dl_answer, dl_conv], api_name="downloads")
        papers.wire(tabs, question, CHAT)
        refresh_io = dict(fn=refresh, inputs=[venue, year, topic, library, *papers.filters],
                          outputs=[venue, year, topic, library, papers.venue, papers.status, papers.library,
                                   library_tab.remove_name, library_tab.libraries, papers.table, papers.counts,
                                   papers.year],
                          api_name=False)
        library_tab.wire(after=refresh_io)
        timer = gr.Timer(2.0)
        timer.tick(status_text, None, status, api_name=False, show_progress="hidden")
        app.load(**refresh_io)
    app.queue(default_concurrency_limit=4)
    return app


def prepare(pipeline, state: AppState) -> None:
    """Background start-up: build the bundled index if missing, then load the models."""
    try:
        index = pipeline.index(create=True)
        if index.count() == 0:
            state.set("Building the index of the bundled papers (first run, about a minute)…")
            pipeline.ingest(pipeline.load()[0], progress=False)
        state.set("Loading the embedding model…")
        pipeline.warm_up(llm=False)
        stats = pipeline.index().stats()
        from ragqa.models.load_times import loading_message

        state.set(f"{loading_message(pipeline.settings, pipeline.settings.llm_model)} {stats['papers']} papers "
                  "indexed.")
    except RagqaError as exc:
        state.set(f"Error: {exc}", ready=False)
        return
    ready = f"Ready — {stats['papers']} papers indexed, model {pipeline.settings.llm_model}."
    try:
        pipeline.warm_up_llm()
        state.model(ready)
    except ModelError as exc:
        state.model(ready, exc)


def check_exposure(host: str, ui_auth: str | None, insecure: bool = False) -> tuple[str, str] | None:
    """The login for `serve`, or None on loopback. A malformed RAGQA_UI_AUTH, or a non-loopback
    address without one (unless insecure), is a RagqaError: nobody gets an open server by accident."""
    import ipaddress

    from ragqa.errors import RagqaError

    if ui_auth is not None:
        user, sep, password = ui_auth.partition(":")
        if not sep or not user or not password:
            raise RagqaError("RAGQA_UI_AUTH must be 'user:password' with both parts non-empty.")
        return user, password
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not insecure:
        raise RagqaError(f"Refusing to serve on {host} without a login. Set RAGQA_UI_AUTH=user:password, "
                         "or pass --insecure-no-auth to serve everyone who can reach it.")
    return None


def check_port(host: str, port: int) -> None:
    """The port is free on `host`, or a RagqaError that says what to do: Gradio's own failure came after the model
    threads had started, as a traceback and a C++ 'terminate called' at exit."""
    import errno
    import socket

    bare = host.strip("[]")  # an IPv6 address as a URL writes it, [::1]
    try:
        with socket.create_server((bare, port), family=socket.AF_INET6 if ":" in bare else socket.AF_INET):
            pass
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise RagqaError(f"Cannot serve on {host}:{port} ({os.strerror(exc.errno)}): another server (a ragqa "
                             "serve?) holds the port. Stop it, or choose another port: "
                             f"ragqa serve --port {port + 1}.") from None
        raise RagqaError(f"Cannot serve on {host}:{port} ({os.strerror(exc.errno) if exc.errno else exc}): this "
                         "machine has no such address. Use 127.0.0.1 (this machine only), ::1, or an address of "
                         "one of its interfaces.") from None


def served_settings(settings):
    """The server embeds uploads with the model it embeds questions with, the int8 ONNX MiniLM (its vectors at cosine
    >= 0.999 to torch's: evals/bench_embed.py), unless RAGQA_EMBED_BACKEND says otherwise: torch never loads in the
    server (~400 MB resident: evals/bench_serve_memory.py)."""
    from ragqa.models.weights import embed_backend

    if settings.embed_backend == "auto" and embed_backend(settings, queries=True) == "onnx":
        return settings.model_copy(update={"embed_backend": "onnx"})
    return settings


def launch(host: str = "127.0.0.1", port: int = 7860, insecure: bool = False) -> int:
    """`ragqa serve`: start the server at once, prepare index and models in the background."""
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline

    settings = served_settings(Settings())
    auth = check_exposure(host, settings.ui_auth, insecure)
    check_port(host, port)  # before the models start loading in the background
    pipeline = Pipeline(settings)
    state = AppState()
    state.set("Preparing…", ready=False)
    app = build_app(pipeline, state)
    threading.Thread(target=prepare, args=(pipeline, state), daemon=True).start()
    if auth is None and insecure:
        print(f"warning: serving on {host} without a login (--insecure-no-auth)")
    from ui.login import Login

    app.launch(server_name=host.strip("[]"), server_port=port, auth=Login(*auth) if auth else None, css=CSS,
               footer_links=["api"], show_error=False)
    return 0
