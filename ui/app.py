"""The Gradio chat UI: build_app(pipeline) -> gr.Blocks. Nothing starts at import; launch() serves it.

A chat panel streams cited answers beside a sources panel; a Papers tab browses the index.
Models are shared by all sessions and loaded once; the page reports loading and indexing.
"""
from __future__ import annotations

import html
import threading

import gradio as gr

from ragqa.errors import RagqaError
from ragqa.retrieve import Filters
from ui.render import CSS, answer_markdown, sources_panel

ANY = "Any"
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


def _choices(pipeline) -> tuple[list[str], list[str], list[str]]:
    try:
        s = pipeline.searcher
        return [ANY, *s.venues()], [ANY, *map(str, s.years())], [ANY, *s.topics()]
    except RagqaError:
        return [ANY], [ANY], [ANY]


def _filters(venue, year, topic) -> Filters:
    return Filters(venue=None if venue in (None, ANY) else venue,
                   year=None if year in (None, ANY, "") else int(year),
                   topic=None if topic in (None, ANY) else topic)


def papers_table(pipeline, query: str = "", venue: str = ANY) -> tuple[list[list[str]], str]:
    """Rows for the Papers tab and a Markdown count per venue and topic (all values are text)."""
    try:
        meta = pipeline.searcher.paper_meta()
    except RagqaError as exc:
        return [], html.escape(str(exc))
    needle = (query or "").lower().strip()
    rows, venues, topics = [], {}, {}
    for m in meta.values():
        venues[m.get("venue") or "?"] = venues.get(m.get("venue") or "?", 0) + 1
        if m.get("topic"):
            topics[m["topic"]] = topics.get(m["topic"], 0) + 1
        if venue not in (None, ANY) and m.get("venue") != venue:
            continue
        hay = " ".join(str(m.get(k) or "") for k in ("label", "title", "authors", "topic", "text")).lower()
        if needle and needle not in hay:
            continue
        rows.append([m.get("title") or m.get("label"), m.get("venue") or "", m.get("topic") or "",
                     (m.get("authors") or "").replace("; ", ", "), (m.get("text") or "")[:300]])
    rows.sort(key=lambda r: (r[1], r[0]))
    counts = " · ".join(f"{html.escape(v)}: {n}" for v, n in sorted(venues.items()))
    top_topics = " · ".join(f"{html.escape(t)}: {n}" for t, n in sorted(topics.items(), key=lambda x: -x[1])[:12])
    summary = f"**{len(meta)} papers** — {counts}" + (f"\n\nTopics: {top_topics}" if top_topics else "")
    summary += f"\n\nShowing {len(rows)}."
    return rows, summary


def build_app(pipeline, state: AppState | None = None) -> gr.Blocks:
    """The whole UI around an existing Pipeline (models shared by every session)."""
    from ragqa.ask import stream_answer

    state = state or AppState()
    if state.message == "Starting…":
        state.set("Ready.", ready=True)
    venues, years, topics = _choices(pipeline)

    def respond(question, chat, conv, venue, year, topic, k, fast):
        chat = list(chat or [])
        conv = dict(conv or {"history": [], "cited": []})
        question = (question or "").strip()
        if not question:
            gr.Warning("Type a question first.")
            yield chat, conv, gr.update(), ""
            return
        chat.append({"role": "user", "content": html.escape(question)})
        if not state.ready:
            chat.append({"role": "assistant", "content": html.escape(f"Not ready yet: {state.message}")})
            yield chat, conv, gr.update(), ""
            return
        chat.append({"role": "assistant", "content": "_Searching the indexed papers…_"})
        yield chat, conv, sources_panel(status="Searching…"), ""
        try:
            if not pipeline.llm_loaded(fast):
                chat[-1]["content"] = "_Loading the language model (first question only)…_"
                yield chat, conv, gr.update(), ""
            streamed, sources, result = "", [], None
            for event in stream_answer(pipeline, question, _filters(venue, year, topic), history=conv["history"],
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
                    conv["history"] = [*conv["history"], question][-6:]
                    conv["cited"] = [c.paper_id for c in answer.citations] or conv["cited"]
                    t = answer.timings
                    status = (f"retrieval {t['retrieve_s']} s · first token {t['first_token_s']} s · total {t['total_s']} s · {answer.model}"
                              + (f" · {'; '.join(answer.notes)}" if answer.notes else ""))
                    yield chat, conv, sources_panel(answer, sources, result.hits if result else [], status), ""
        except RagqaError as exc:
            chat[-1]["content"] = f"⚠️ {html.escape(str(exc))}"
            yield chat, conv, gr.update(), ""

    def new_chat():
        return [], {"history": [], "cited": []}, sources_panel(), ""

    def status_text():
        return f"**Status:** {html.escape(state.message)}"

    def refresh_choices():
        v, y, t = _choices(pipeline)
        return gr.update(choices=v), gr.update(choices=y), gr.update(choices=t)

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
                    gr.Examples(EXAMPLES, inputs=question, label="Examples")
                with gr.Column(scale=2):
                    sources = gr.HTML(sources_panel(), label="Sources", elem_id="rq-sources")
            with gr.Accordion("Filters and retrieval settings", open=False):
                with gr.Row():
                    venue = gr.Dropdown(venues, value=ANY, label="Venue", elem_id="rq-venue")
                    year = gr.Dropdown(years, value=ANY, label="Year")
                    topic = gr.Dropdown(topics, value=ANY, label="Topic")
                with gr.Row():
                    k = gr.Slider(3, 50, value=pipeline.settings.judge_k, step=1, label="Papers considered (k)")
                    fast = gr.Checkbox(False, label=f"Fast model ({pipeline.settings.fast_llm_model})")
        with gr.Tab("Papers"):
            with gr.Row():
                search_box = gr.Textbox(placeholder="Filter by words in title, authors, topic or abstract", show_label=False,
                                        elem_id="rq-paper-search")
                paper_venue = gr.Dropdown(venues, value=ANY, label="Venue")
            rows, summary = papers_table(pipeline)
            counts = gr.Markdown(summary)
            table = gr.Dataframe(value=rows, headers=["Paper", "Venue", "Topic", "Authors", "Abstract (start)"],
                                 interactive=False, wrap=True, elem_id="rq-papers", datatype="str")
        conv = gr.State({"history": [], "cited": []})
        inputs = [question, chatbot, conv, venue, year, topic, k, fast]
        outputs = [chatbot, conv, sources, question]
        send.click(respond, inputs, outputs, api_name="respond")
        question.submit(respond, inputs, outputs, api_name=False)
        clear.click(new_chat, None, outputs, api_name="new_chat")
        search_box.change(lambda q, v: papers_table(pipeline, q, v), [search_box, paper_venue], [table, counts], api_name="papers")
        paper_venue.change(lambda q, v: papers_table(pipeline, q, v), [search_box, paper_venue], [table, counts], api_name=False)
        timer = gr.Timer(2.0)
        timer.tick(status_text, None, status, api_name=False, show_progress="hidden")
        app.load(refresh_choices, None, [venue, year, topic], api_name=False)
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
