"""The Gradio chat UI: build_app(pipeline) -> gr.Blocks. Nothing starts at import; launch() serves it.

A chat panel streams cited answers beside a sources panel (the cited papers download as BibTeX,
CSL-JSON or Markdown); a Papers tab browses the index by facet; a Library tab adds an uploaded
citation file as a named library and removes libraries. Models are shared by all sessions and
loaded once; the page reports loading and indexing. Parsing, indexing and export live in ragqa/.
"""
from __future__ import annotations

import hashlib
import html
import os
import re
import tempfile
import threading
from collections import Counter
from dataclasses import replace
from pathlib import Path

import gradio as gr

from ragqa.errors import QueryError, RagqaError
from ragqa.retrieve import Filters
from ui.render import CSS, answer_markdown, error_line, facet_summary, ingest_report, sources_panel, status_line

ANY = "Any"
ALL = "all"  # the chat's library selector: every library
FORMATS = {"BibTeX": ("bibtex", ".bib"), "CSL-JSON": ("csl-json", ".json"), "Markdown": ("markdown", ".md")}
UPLOAD_TYPES = [".bib", ".ris", ".json", ".jsonl", ".csv", ".txt"]
# choices change with the index (uploads, removals), and an API client never gets the page's refreshed
# choices: any value reaches the handler, and an unknown one gets the filter's own one-line error
LIVE = {"allow_custom_value": True}
_LIBRARY_NAME = re.compile(r"\w[\w .-]{0,63}")
EXAMPLES = [
    "Is there work on making sparse autoencoders cheaper at huge widths?",
    "Which papers propose new ways to evaluate interpretability methods?",
    "有没有研究图神经网络中分数阶微分方程的论文？",
    "Which ICLR 2025 papers study large language models?",
]


class AppState:
    """Process-wide readiness shown on the page (index build and model loading run in background)."""

    def __init__(self):
        self.message = "Starting…"
        self.ready = False
        self.lock = threading.Lock()

    def set(self, message: str, ready: bool | None = None) -> None:
        with self.lock:
            self.message = message
            if ready is not None:
                self.ready = ready

    def wait(self, seconds: float = 900, poll: float = 0.5):
        """Yield the start-up message whenever it changes, until ready, failed ("Error: …") or timed out."""
        import time

        shown, deadline = None, time.monotonic() + seconds
        while not self.ready and not self.message.startswith("Error") and time.monotonic() < deadline:
            if self.message != shown:
                shown = self.message
                yield shown
            time.sleep(poll)


def _choices(pipeline) -> dict[str, list[str]]:
    """Dropdown choices from the index: venues, years, topics, statuses (with "Any") and libraries."""
    try:
        s = pipeline.searcher
        return {"venue": [ANY, *s.venues()], "year": [ANY, *map(str, s.years())], "topic": [ANY, *s.topics()],
                "status": [ANY, *sorted(s.statuses())], "library": s.libraries()}
    except RagqaError:
        return {"venue": [ANY], "year": [ANY], "topic": [ANY], "status": [ANY], "library": []}


def _chosen(value) -> str | None:
    return None if value in (None, "", ANY, ALL) else value


def _filters(venue, year, topic, library=ALL) -> Filters:
    year = _chosen(year)
    if year is not None and not str(year).strip().isdigit():
        raise QueryError(f"Year {year!r} is not a year. Choose one from the list, e.g. 2024.")
    return Filters(venue=_chosen(venue), year=None if year is None else int(year), topic=_chosen(topic),
                   library=_chosen(library))


def _words(meta: dict) -> str:
    return " ".join(str(meta.get(k) or "") for k in ("label", "title", "authors", "topic", "text")).lower()


def papers_table(pipeline, query: str = "", venue: str = ANY, author: str = "", status: str = ANY,
                 library: str = ANY) -> tuple[list[list[str]], str]:
    """Rows for the Papers tab (all values text) and a Markdown summary with counts per facet. A facet's
    counts are over the papers the other filters admit, so each shows what choosing a value would give."""
    try:
        searcher = pipeline.searcher
        total = len(searcher.paper_meta())
    except RagqaError as exc:
        return [], html.escape(str(exc))
    needle = (query or "").lower().strip()
    chosen = Filters(venue=_chosen(venue), author=(author or "").strip() or None, status=_chosen(status),
                     library=_chosen(library))

    def select(filters: Filters) -> list[dict]:
        return [m for m in searcher.matching(filters).values() if not needle or needle in _words(m)]

    shown = select(chosen)
    facets = {
        "Venue": Counter(m.get("venue") or "?" for m in select(replace(chosen, venue=None))),
        "Status": Counter(m["status"] for m in select(replace(chosen, status=None)) if m.get("status")),
        "Library": Counter(name for m in select(replace(chosen, library=None))
                           for name in (m.get("libraries") or "").split("; ") if name),
        "Topic": Counter(m["topic"] for m in shown if m.get("topic")),
    }
    rows = [[m.get("title") or m.get("label"), m.get("venue") or "", m.get("status") or "",
             (m.get("libraries") or "").replace("; ", ", "), m.get("topic") or "",
             (m.get("authors") or "").replace("; ", ", "), _start(m.get("text") or "")] for m in shown]
    rows.sort(key=lambda r: (r[1], r[0]))
    return rows, facet_summary(total, len(rows), facets)


def _start(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def library_rows(pipeline) -> list[list]:
    """[library, papers, papers no other library holds] per library."""
    catalog = pipeline.index().catalog
    only = Counter(names[0] for names in catalog.library_of().values() if len(names) == 1)
    return [[name, n, only[name]] for name, n in catalog.libraries().items()]


def library_name_for(filename: str | None) -> str:
    """The default library name for an uploaded file: 'My refs (2).bib' -> 'My-refs-2'."""
    return re.sub(r"[^\w.-]+", "-", Path(filename or "").stem).strip("-.")[:64]


def check_library_name(name: str | None) -> str:
    """A usable library name (trimmed), else a QueryError saying what to type."""
    name = (name or "").strip()
    if not name:
        raise QueryError("Name the library (the file name is the default), e.g. 'protein-folding'.")
    if name.lower() in (ALL, ANY.lower()):
        raise QueryError(f"'{name}' means every library in the library choices. Choose another name.")
    if not _LIBRARY_NAME.fullmatch(name):
        raise QueryError(f"Library name {name!r}: use letters, digits, spaces, '.', '-' or '_' (at most 64 characters, "
                         "starting with a letter or digit).")
    return name


def write_export(papers: list, fmt: str, stem: str, folder: Path) -> Path:
    """`papers` as one citation file (fmt: bibtex / csl-json / markdown) under `folder`, in a subfolder
    named by the content: the same papers and format give the same file, whoever asks."""
    from ragqa.export import export_papers

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
    # history: earlier questions; cited: the papers follow-ups refer to; last / all: downloads
    return {"history": [], "cited": [], "last": [], "all": []}


def build_app(pipeline, state: AppState | None = None) -> gr.Blocks:
    """The whole UI around an existing Pipeline (models shared by every session)."""
    from ragqa.ask import stream_answer

    state = state or AppState()
    if state.message == "Starting…":
        state.set("Ready.", ready=True)
    choices = _choices(pipeline)
    exports = Path(tempfile.mkdtemp(prefix="ragqa-export-"))

    def respond(question, chat, conv, venue, year, topic, library, k, fast):
        chat = list(chat or [])
        conv = {**new_conversation(), **(conv or {})}
        question = (question or "").strip()
        if not question:
            gr.Warning("Type a question first.")
            yield chat, conv, gr.update(), ""
            return
        conv["last"] = []
        chat.append({"role": "user", "content": html.escape(question)})
        if not state.ready:  # the question waits for start-up instead of being lost (#18.7)
            chat.append({"role": "assistant", "content": ""})
            for message in state.wait():
                chat[-1]["content"] = html.escape(f"Your question is queued until start-up finishes: {message}")
                yield chat, conv, gr.update(), ""
            if not state.ready:
                chat[-1]["content"] = html.escape(f"Not ready: {state.message}")
                yield chat, conv, gr.update(), ""
                return
            chat.pop()
        chat.append({"role": "assistant", "content": "_Searching the indexed papers…_"})
        yield chat, conv, sources_panel(status="Searching…"), ""
        try:
            if not pipeline.llm_loaded(fast):
                chat[-1]["content"] = "_Loading the language model (first question only)…_"
                yield chat, conv, gr.update(), ""
            streamed, sources, result = "", [], None
            for event in stream_answer(pipeline, question, _filters(venue, year, topic, library), history=conv["history"],
                                       k=int(k), cited_before=conv["cited"], fast=bool(fast)):
                if event.kind == "retrieved":
                    result, sources = event.result, event.sources or []
                    chat[-1]["content"] = "_Writing the answer…_" if sources else "_Checking…_"
                    yield chat, conv, sources_panel(sources=sources, retrieved=result.hits, status="Answer in progress…"), ""
                elif event.kind == "token":
                    streamed += event.delta
                    chat[-1]["content"] = html.escape(streamed)
                    yield chat, conv, gr.update(), ""
                else:
                    answer = event.answer
                    chat[-1]["content"] = answer_markdown(answer)
                    cited = [c.paper_id for c in answer.citations]
                    conv["history"] = [*conv["history"], question][-6:]
                    conv["cited"] = cited or conv["cited"]
                    conv["last"], conv["all"] = cited, list(dict.fromkeys(conv["all"] + cited))
                    t = answer.timings
                    status = (f"retrieval {t['retrieve_s']} s · first token {t['first_token_s']} s · total {t['total_s']} s · {answer.model}"
                              + (f" · {'; '.join(answer.notes)}" if answer.notes else ""))
                    yield chat, conv, sources_panel(answer, sources, result.hits if result else [], status), ""
        except RagqaError as exc:
            chat[-1]["content"] = f"⚠️ {html.escape(str(exc))}"
            yield chat, conv, gr.update(), ""

    def downloads(conv, fmt_label):
        """The two download buttons: the latest answer's cited papers and every paper cited in this chat."""
        fmt, suffix = FORMATS.get(fmt_label) or FORMATS["BibTeX"]
        out = []
        for key, stem, what in (("last", "ragqa-cited", "Cited papers"), ("all", "ragqa-conversation", "All cited in this chat")):
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
        return [], new_conversation(), sources_panel(), ""

    def status_text():
        return f"**Status:** {html.escape(state.message)}"

    def show_papers(query, venue, author, status, library):
        return papers_table(pipeline, query, venue, author, status, library)

    def refresh(venue_v, year_v, topic_v, chat_lib, p_query, p_venue, p_author, p_status, p_lib):
        """Every choice that depends on the index (after a page load, an upload or a removal)."""
        c = _choices(pipeline)
        chat_libs, paper_libs = [ALL, *c["library"]], [ANY, *c["library"]]

        def keep(value, options, default=ANY):
            return value if value in options else default

        try:
            libraries = library_rows(pipeline)
        except RagqaError:
            libraries = []
        p_venue, p_status, p_lib = keep(p_venue, c["venue"]), keep(p_status, c["status"]), keep(p_lib, paper_libs)
        return (gr.update(choices=c["venue"], value=keep(venue_v, c["venue"])),
                gr.update(choices=c["year"], value=keep(year_v, c["year"])),
                gr.update(choices=c["topic"], value=keep(topic_v, c["topic"])),
                gr.update(choices=chat_libs, value=keep(chat_lib, chat_libs, ALL)),
                gr.update(choices=c["venue"], value=p_venue), gr.update(choices=c["status"], value=p_status),
                gr.update(choices=paper_libs, value=p_lib), gr.update(choices=c["library"], value=None), libraries,
                *papers_table(pipeline, p_query, p_venue, p_author, p_status, p_lib))

    def announce():
        """The status line's paper count, after an upload or a removal."""
        try:
            papers = pipeline.index().catalog.count()
        except RagqaError:
            return
        if state.ready:
            state.set(f"Ready — {papers} papers indexed, model {pipeline.settings.llm_model}.")

    def add_library(path, name):
        """Read the uploaded file, index it as library `name`; staged messages, then the report.
        -> (report, the upload: cleared once indexed, kept to retry with another name)."""
        if not path:
            yield error_line("Choose a file to upload first."), gr.update()
            return
        if not state.ready:
            yield error_line(f"Not ready yet: {state.message}"), gr.update()
            return
        folder = str(Path(path).parent) + os.sep
        filename = Path(path).name
        try:
            name = check_library_name(name or library_name_for(filename))
            yield status_line(f"Reading {filename}…"), gr.update()
            report, errors = pipeline.load([Path(path)])
            errors = [e.replace(folder, "") for e in errors]
            if not report.papers:
                yield ingest_report(name, filename, report, errors, None), gr.update()
                return
            yield status_line(f"Read {len(report.papers)} papers from {filename}; embedding and indexing them "
                              f"into library '{name}'…"), gr.update()
            result = pipeline.ingest(report, progress=False, library=name)
        except RagqaError as exc:
            yield error_line(str(exc).replace(folder, "")), gr.update()
            return
        announce()
        yield ingest_report(name, filename, report, errors, result), None  # cleared: the next upload starts afresh

    def ask_remove(name):
        """First step of a removal: say what would go, and show the confirmation buttons."""
        if not name:
            return gr.update(visible=False), error_line("Choose a library to remove."), None
        try:
            rows = {row[0]: row for row in library_rows(pipeline)}
        except RagqaError as exc:
            return gr.update(visible=False), error_line(str(exc)), None
        if name not in rows:
            return gr.update(visible=False), error_line(f"No library {name!r}."), None
        _, n, only = rows[name]
        return (gr.update(visible=True),
                status_line(f"Remove library '{name}' ({n} papers)? {only} papers that no other library holds leave the "
                            f"index; {n - only} stay in their other libraries. This cannot be undone."), name)

    def confirm_remove(name):
        try:
            papers, chunks = pipeline.remove_library(name or "")
        except RagqaError as exc:
            return gr.update(visible=False), error_line(str(exc)), None
        announce()
        return gr.update(visible=False), status_line(f"Removed library '{name}': {papers} papers ({chunks} chunks) left the index."), None

    def cancel_remove():
        return gr.update(visible=False), status_line("Nothing removed."), None

    with gr.Blocks(title="ragqa — cited answers from ML papers") as app:
        gr.Markdown("## ragqa — ask the indexed ML papers\nAnswers cite the papers they rest on; every citation is checked.")
        status = gr.Markdown(status_text(), elem_id="rq-status")
        with gr.Tab("Chat"):
            with gr.Row():
                with gr.Column(scale=3):
                    chatbot = gr.Chatbot(height=480, label="Conversation", elem_id="rq-chat", sanitize_html=True,
                                         buttons=["copy"])
                    question = gr.Textbox(placeholder="Ask about the papers… (Enter to send)", show_label=False,
                                          elem_id="rq-question", lines=1)
                    with gr.Row():
                        send = gr.Button("Ask", variant="primary", elem_id="rq-send")
                        clear = gr.Button("New chat", elem_id="rq-new")
                        library = gr.Dropdown([ALL, *choices["library"]], value=ALL, label="Library", elem_id="rq-library",
                                              scale=2, **LIVE)
                    gr.Examples(EXAMPLES, inputs=question, label="Examples")
                with gr.Column(scale=2):
                    sources = gr.HTML(sources_panel(), label="Sources", elem_id="rq-sources")
                    with gr.Row():
                        fmt = gr.Radio(list(FORMATS), value="BibTeX", label="Download format", elem_id="rq-dl-format")
                    with gr.Row():
                        dl_answer = gr.DownloadButton("Cited papers (.bib)", interactive=False, size="sm", elem_id="rq-dl-answer")
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
        with gr.Tab("Papers"):
            with gr.Row():
                search_box = gr.Textbox(placeholder="Filter by words in title, authors, topic or abstract", show_label=False,
                                        elem_id="rq-paper-search", scale=2)
                paper_author = gr.Textbox(placeholder="Author (full name or surname)", show_label=False,
                                          elem_id="rq-paper-author")
            with gr.Row():
                paper_venue = gr.Dropdown(choices["venue"], value=ANY, label="Venue", elem_id="rq-paper-venue", **LIVE)
                paper_status = gr.Dropdown(choices["status"], value=ANY, label="Status", elem_id="rq-paper-status", **LIVE)
                paper_library = gr.Dropdown([ANY, *choices["library"]], value=ANY, label="Library", elem_id="rq-paper-library",
                                            **LIVE)
            rows, summary = papers_table(pipeline)
            counts = gr.Markdown(summary, elem_id="rq-paper-counts")
            table = gr.Dataframe(value=rows, headers=["Paper", "Venue", "Status", "Library", "Topic", "Authors", "Abstract (start)"],
                                 interactive=False, wrap=True, elem_id="rq-papers", datatype="str",
                                 column_widths=["26%", "8%", "7%", "8%", "12%", "17%", "22%"])
        with gr.Tab("Library"):
            gr.Markdown("Add papers from a citation or listing file (.bib, .ris, .json, .jsonl, .csv, .txt) as a named "
                        "library. The chat searches every library, or the one chosen beside its Ask button.")
            with gr.Row():
                upload = gr.File(label="Citation file", file_types=UPLOAD_TYPES, type="filepath", elem_id="rq-upload")
                with gr.Column():
                    lib_name = gr.Textbox(label="Library name", placeholder="default: the file name", elem_id="rq-lib-name")
                    add = gr.Button("Add to the index", variant="primary", elem_id="rq-ingest")
            report = gr.HTML("", elem_id="rq-ingest-report")
            gr.Markdown("### Libraries")
            libraries = gr.Dataframe(value=[], headers=["Library", "Papers", "Only in this library"], interactive=False,
                                     elem_id="rq-libraries", datatype=["str", "number", "number"])
            with gr.Row():
                remove_name = gr.Dropdown(choices["library"], value=None, label="Library to remove", elem_id="rq-remove-name")
                remove = gr.Button("Remove library…", variant="stop", elem_id="rq-remove")
            with gr.Row(visible=False) as confirm_row:
                confirm = gr.Button("Yes, remove it", variant="stop", elem_id="rq-remove-confirm")
                cancel = gr.Button("Cancel", elem_id="rq-remove-cancel")
            remove_status = gr.HTML("", elem_id="rq-remove-status")
        conv = gr.State(new_conversation())
        pending = gr.State(None)
        inputs = [question, chatbot, conv, venue, year, topic, library, k, fast]
        outputs = [chatbot, conv, sources, question]
        to_downloads = dict(fn=downloads, inputs=[conv, fmt], outputs=[dl_answer, dl_conv], api_name=False)
        send.click(respond, inputs, outputs, api_name="respond").then(**to_downloads)
        question.submit(respond, inputs, outputs, api_name=False).then(**to_downloads)
        clear.click(new_chat, None, outputs, api_name="new_chat").then(**to_downloads)
        fmt.change(downloads, [conv, fmt], [dl_answer, dl_conv], api_name="downloads")
        paper_inputs = [search_box, paper_venue, paper_author, paper_status, paper_library]
        search_box.change(show_papers, paper_inputs, [table, counts], api_name="papers")
        for box in paper_inputs[1:]:
            box.change(show_papers, paper_inputs, [table, counts], api_name=False)
        refresh_io = dict(fn=refresh, inputs=[venue, year, topic, library, *paper_inputs],
                          outputs=[venue, year, topic, library, paper_venue, paper_status, paper_library, remove_name,
                                   libraries, table, counts], api_name=False)
        upload.upload(library_name_for, upload, lib_name, api_name=False)
        add.click(add_library, [upload, lib_name], [report, upload], api_name="add_library", concurrency_id="index-writes",
                  concurrency_limit=1).then(**refresh_io)
        remove.click(ask_remove, remove_name, [confirm_row, remove_status, pending], api_name=False)
        confirm.click(confirm_remove, pending, [confirm_row, remove_status, pending], api_name="remove_library",
                      concurrency_id="index-writes", concurrency_limit=1).then(**refresh_io)
        cancel.click(cancel_remove, None, [confirm_row, remove_status, pending], api_name=False)
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
        state.set("Loading the embedding model and the language model…")
        pipeline.warm_up()
        stats = pipeline.index().stats()
        state.set(f"Ready — {stats['papers']} papers indexed, model {pipeline.settings.llm_model}.", ready=True)
    except RagqaError as exc:
        state.set(f"Error: {exc}", ready=False)


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


def launch(host: str = "127.0.0.1", port: int = 7860, insecure: bool = False) -> int:
    """`ragqa serve`: start the server at once, prepare index and models in the background."""
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline

    settings = Settings()
    auth = check_exposure(host, settings.ui_auth, insecure)
    pipeline = Pipeline(settings)
    state = AppState()
    state.set("Preparing…", ready=False)
    app = build_app(pipeline, state)
    threading.Thread(target=prepare, args=(pipeline, state), daemon=True).start()
    if auth is None and insecure:
        print(f"warning: serving on {host} without a login (--insecure-no-auth)")
    app.launch(server_name=host, server_port=port, auth=auth, css=CSS, footer_links=["api"], show_error=False)
    return 0
