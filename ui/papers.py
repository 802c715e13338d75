"""The Papers tab: browse the index by words and facets (counts per facet), click a paper to read its
full record, and hand a question about it to the chat. Filtering lives in ragqa/retrieval/retrieve.py."""
from __future__ import annotations

import html
import json
from dataclasses import replace

import gradio as gr

from ragqa.errors import RagqaError
from ragqa.ingest.paper import without_abstract
from ragqa.query.request import Filters
from ui.choices import ANY, LIVE, chosen
from ui.render import facet_summary, paper_record

HEADERS = ["Paper", "Venue", "Status", "Library", "Topic", "Authors", "Abstract (start)"]
LINK_FIELDS = ("url", "proceedings_url", "virtual_site", "pdf")  # as ragqa/ingest/export.py, first one present wins
NO_RECORD = '<div class="rq-status">Click a paper in the table to see its full record.</div>'


def _words(meta: dict) -> str:
    return " ".join(str(meta.get(k) or "") for k in ("label", "title", "authors", "topic", "text")).lower()


def _start(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def paper_row(meta: dict) -> list[str]:
    """One row of the table (all values text), in HEADERS order."""
    return [meta.get("title") or meta.get("label") or "", meta.get("venue") or "", meta.get("status") or "",
            (meta.get("libraries") or "").replace("; ", ", "), meta.get("topic") or "",
            (meta.get("authors") or "").replace("; ", ", "),
            "(no abstract)" if without_abstract(meta) else _start(meta.get("text") or "")]


SHOWN = 500  # rows the table holds; the rest are counted, and found with words or facets


def papers_table(pipeline, query: str = "", venue: str = ANY, author: str = "", status: str = ANY,
                 library: str = ANY, topic: str = "", year=ANY) -> tuple[list[list[str]], str]:
    """Rows for the Papers tab (the first SHOWN by venue and title) and a Markdown summary with counts per facet.
    A facet's counts are over the papers the other filters admit, so each shows what choosing a value would give.
    Words, filters and counts are look-ups (full-text tables, postings): only the rows shown are read."""
    try:
        searcher = pipeline.searcher
        total = len(searcher.paper_meta())
        year = chosen(year)
        picked = Filters(venue=chosen(venue), author=(author or "").strip() or None, status=chosen(status),
                         library=chosen(library), topic=(topic or "").strip() or None,
                         year=int(year) if year is not None and str(year).strip().isdigit() else None)
        words = searcher.with_words(query or "")

        def admitted(filters: Filters) -> set[str] | None:
            sets = sorted((s for s in (searcher.admitted(filters), words) if s is not None), key=len)
            return set(sets[0]).intersection(*sets[1:]) if sets else None

        shown = admitted(picked)
        facets = {
            "Venue": searcher.counts("venue", admitted(replace(picked, venue=None))),
            "Year": searcher.counts("year", admitted(replace(picked, year=None))),
            "Status": searcher.counts("status", admitted(replace(picked, status=None))),
            "Library": searcher.counts("library", admitted(replace(picked, library=None))),
        }
        ids, facets["Topic"] = searcher.index.catalog.browse(shown, SHOWN)
        metas = searcher.paper_meta().many(ids)
    except RagqaError as exc:
        return [], html.escape(str(exc))
    rows = [paper_row(metas[pid]) for pid in ids if pid in metas]
    return rows, facet_summary(total, len(rows), facets, matched=total if shown is None else len(shown))


def paper_for_row(pipeline, row: list | None) -> tuple[str, dict] | None:
    """(paper_id, record) of the paper a table row shows, found by the row's values: the page may have
    sorted the table, so a row's position says nothing. None when no indexed paper shows that row."""
    if not row:
        return None
    row = ["" if v is None else str(v) for v in row]
    # title and venue name the candidates (an index look-up); a stale cell elsewhere in the row still finds a unique one
    titled = list(pipeline.searcher.paper_meta().many(pipeline.searcher.index.catalog.shown_as(row[0], row[1])).items())
    exact = [(pid, m) for pid, m in titled if paper_row(m) == row]
    return exact[0] if exact else titled[0] if len(titled) == 1 else None


def paper_links(meta: dict) -> list[tuple[str, str]]:
    """(label, address) of the paper's web page and DOI, when its record has them (http(s) only)."""
    try:
        extra = json.loads(meta.get("extra") or "{}")
    except ValueError:
        extra = {}
    links = [("Paper", extra[k]) for k in LINK_FIELDS if extra.get(k)][:1]
    if extra.get("doi"):
        links.append((f"DOI {extra['doi']}", f"https://doi.org/{extra['doi']}"))
    return [(label, url.strip()) for label, url in links if url.strip().lower().startswith(("http://", "https://"))]


def question_about(meta: dict) -> str:
    """The chat question the "Ask about this paper" button writes, naming the paper."""
    title = (meta.get("title") or "").strip()
    if title:
        return f'What does "{title}" propose and find?'
    return (f'What does the paper beginning "{_start(meta.get("text") or meta.get("label") or "", 80)}" '
            'propose and find?')


class PapersTab:
    """The tab's components (built inside gr.Blocks, in a gr.Tabs) and its handlers."""

    def __init__(self, pipeline, choices: dict[str, list[str]]):
        self.pipeline = pipeline
        with gr.Tab("Papers", id="papers"):
            with gr.Row():
                self.search = gr.Textbox(placeholder="Filter by words in title, authors, topic or abstract",
                                         show_label=False, elem_id="rq-paper-search", scale=2)
                self.author = gr.Textbox(placeholder="Author (full name or surname)", show_label=False,
                                         elem_id="rq-paper-author")
                self.topic = gr.Textbox("", placeholder="Topic area or keyword (e.g. computer vision)",
                                        show_label=False, elem_id="rq-paper-topic")
            with gr.Row():
                self.venue = gr.Dropdown(choices["venue"], value=ANY, label="Venue", elem_id="rq-paper-venue", **LIVE)
                self.year = gr.Dropdown(choices["year"], value=ANY, label="Year", elem_id="rq-paper-year", **LIVE)
                self.status = gr.Dropdown(choices["status"], value=ANY, label="Status", elem_id="rq-paper-status",
                                          **LIVE)
                self.library = gr.Dropdown([ANY, *choices["library"]], value=ANY, label="Library",
                                           elem_id="rq-paper-library", **LIVE)
            rows, summary = papers_table(pipeline)
            self.counts = gr.Markdown(summary, elem_id="rq-paper-counts")
            with gr.Row():
                with gr.Column(scale=3):
                    self.table = gr.Dataframe(value=rows, headers=HEADERS, interactive=False, wrap=True,
                                              elem_id="rq-papers", datatype="str",
                                              column_widths=["26%", "8%", "7%", "8%", "12%", "17%", "22%"])
                with gr.Column(scale=1, min_width=300):
                    self.record = gr.HTML(NO_RECORD, elem_id="rq-paper-record")
                    self.ask = gr.Button("Ask about this paper", variant="primary", visible=False,
                                         elem_id="rq-ask-paper")
            # the paper_id shown in the record panel (inside the Tab: a Tabs child is a tab)
            self.picked = gr.State(None)

    @property
    def filters(self) -> list:
        return [self.search, self.venue, self.author, self.status, self.library, self.topic, self.year]

    def wire(self, tabs: gr.Tabs, question: gr.Textbox, chat_tab: str) -> None:
        """Filters redraw the table; a click on a row shows the record; the button fills the chat's question."""
        self.search.change(self.show, self.filters, [self.table, self.counts], api_name="papers")
        for box in self.filters[1:]:
            box.change(self.show, self.filters, [self.table, self.counts], api_name=False)
        self.chat_tab = chat_tab
        self.table.select(self.pick, None, [self.record, self.ask, self.picked], api_name=False)
        self.ask.click(self.ask_about, self.picked, [tabs, question], api_name=False).then(
            None, None, None, api_name=False, js="() => { document.querySelector('#rq-question textarea')?.focus(); }")

    def show(self, query, venue, author, status, library, topic, year):
        return papers_table(self.pipeline, query, venue, author, status, library, topic, year)

    def pick(self, evt: gr.SelectData):
        """The clicked row's paper: its record, and the ask button."""
        try:
            found = paper_for_row(self.pipeline, evt.row_value)
        except RagqaError as exc:
            found, message = None, str(exc)
        else:
            message = "That paper is no longer in the index. Change a filter to refresh the table."
        if found is None:
            return paper_record(None, message=message), gr.update(visible=False), None
        pid, meta = found
        return paper_record(meta, paper_links(meta)), gr.update(visible=True), pid

    def ask_about(self, paper_id):
        """Switch to the chat with a question naming the paper in the box, ready to send."""
        try:
            meta = self.pipeline.searcher.paper_meta().get(paper_id) if paper_id else None
        except RagqaError as exc:
            gr.Warning(str(exc))
            return gr.update(), gr.update()
        if meta is None:
            gr.Warning("Choose a paper in the table first.")
            return gr.update(), gr.update()
        return gr.Tabs(selected=self.chat_tab), question_about(meta)
