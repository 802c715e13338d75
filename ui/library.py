"""The Library tab: add an uploaded citation file to the index as a named library (staged messages,
then a report of what was read, indexed and skipped), list the libraries, remove one after a
confirmation. Parsing and indexing live in ragqa/ (Pipeline.load, ingest, remove_library)."""
from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import gradio as gr

from ragqa.errors import QueryError, RagqaError
from ui.choices import ALL, ANY
from ui.render import error_line, ingest_report, status_line

UPLOAD_TYPES = [".bib", ".ris", ".json", ".jsonl", ".csv", ".txt"]
_LIBRARY_NAME = re.compile(r"\w[\w .-]{0,63}")


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


class LibraryTab:
    """The tab's components (built inside gr.Blocks, in a gr.Tabs) and its handlers; `state` is the
    app's AppState (an upload waits for start-up; the status line's paper count follows changes)."""

    def __init__(self, pipeline, state, choices: dict[str, list[str]]):
        self.pipeline, self.state = pipeline, state
        with gr.Tab("Library", id="library"):
            gr.Markdown("Add papers from a citation or listing file (.bib, .ris, .json, .jsonl, .csv, .txt) as a named "
                        "library. The chat searches every library, or the one chosen beside its Ask button.")
            with gr.Row():
                self.upload = gr.File(label="Citation file", file_types=UPLOAD_TYPES, type="filepath",
                                      elem_id="rq-upload")
                with gr.Column():
                    self.name = gr.Textbox(label="Library name", placeholder="default: the file name",
                                           elem_id="rq-lib-name")
                    self.add = gr.Button("Add to the index", variant="primary", elem_id="rq-ingest")
            self.report = gr.HTML("", elem_id="rq-ingest-report")
            gr.Markdown("### Libraries")
            self.libraries = gr.Dataframe(value=[], headers=["Library", "Papers", "Only in this library"],
                                          interactive=False, elem_id="rq-libraries",
                                          datatype=["str", "number", "number"])
            with gr.Row():
                self.remove_name = gr.Dropdown(choices["library"], value=None, label="Library to remove",
                                               elem_id="rq-remove-name")
                self.remove = gr.Button("Remove library…", variant="stop", elem_id="rq-remove")
            with gr.Row(visible=False) as self.confirm_row:
                self.confirm = gr.Button("Yes, remove it", variant="stop", elem_id="rq-remove-confirm")
                self.cancel = gr.Button("Cancel", elem_id="rq-remove-cancel")
            self.remove_status = gr.HTML("", elem_id="rq-remove-status")
            self.pending = gr.State(None)  # the library the confirmation button removes

    def wire(self, after: dict) -> None:
        """Upload, add, remove (two steps); `after` (event kwargs) refreshes every index-dependent choice."""
        removal = [self.confirm_row, self.remove_status, self.pending]
        self.upload.upload(library_name_for, self.upload, self.name, api_name=False)
        self.add.click(self.add_library, [self.upload, self.name], [self.report, self.upload], api_name="add_library",
                       concurrency_id="index-writes", concurrency_limit=1).then(**after)
        self.remove.click(self.ask_remove, self.remove_name, removal, api_name=False)
        self.confirm.click(self.confirm_remove, self.pending, removal, api_name="remove_library",
                           concurrency_id="index-writes", concurrency_limit=1).then(**after)
        self.cancel.click(self.cancel_remove, None, removal, api_name=False)

    def announce(self) -> None:
        """The status line's paper count, after an upload or a removal."""
        try:
            papers = self.pipeline.index().catalog.count()
        except RagqaError:
            return
        if self.state.ready:
            self.state.set(f"Ready — {papers} papers indexed, model {self.pipeline.settings.llm_model}.")

    def add_library(self, path, name):
        """Read the uploaded file, index it as library `name`; staged messages, then the report.
        -> (report, the upload: cleared once indexed, kept to retry with another name)."""
        if not path:
            yield error_line("Choose a file to upload first."), gr.update()
            return
        if not self.state.ready:
            yield error_line(f"Not ready yet: {self.state.message}"), gr.update()
            return
        folder = str(Path(path).parent) + os.sep
        filename = Path(path).name
        before = None  # papers the library held before this upload's first write
        try:
            name = check_library_name(name or library_name_for(filename))
            yield status_line(f"Reading {filename}…"), gr.update()
            report, errors = self.pipeline.load([Path(path)])
            errors = [e.replace(folder, "") for e in errors]
            if not report.papers:
                yield ingest_report(name, filename, report, errors, None), gr.update()
                return
            yield status_line(f"Read {len(report.papers)} papers from {filename}; embedding and indexing them "
                              f"into library '{name}'…"), gr.update()
            before = self._held(name)
            result = self.pipeline.ingest(report, progress=False, library=name)
        except RagqaError as exc:
            added = self._held(name) - before if before is not None else 0
            if added > 0:  # ingest keeps what it wrote, so the same upload goes on where it stopped: say so
                self.announce()
                exc = (f"{exc} {added} papers were added to library '{name}' before it failed: upload the file "
                       "again to finish (what is written is skipped), or remove the library.")
            yield error_line(str(exc).replace(folder, "")), gr.update()
            return
        self.announce()
        yield ingest_report(name, filename, report, errors, result), None  # cleared: the next upload starts afresh

    def _held(self, name: str) -> int:
        """Papers in library `name` (0 when there is no index yet)."""
        try:
            return self.pipeline.index(create=False).catalog.libraries().get(name, 0)
        except RagqaError:
            return 0

    def ask_remove(self, name):
        """First step of a removal: say what would go, and show the confirmation buttons."""
        if not name:
            return gr.update(visible=False), error_line("Choose a library to remove."), None
        try:
            rows = {row[0]: row for row in library_rows(self.pipeline)}
        except RagqaError as exc:
            return gr.update(visible=False), error_line(str(exc)), None
        if name not in rows:
            return gr.update(visible=False), error_line(f"No library {name!r}."), None
        _, n, only = rows[name]
        return (gr.update(visible=True),
                status_line(f"Remove library '{name}' ({n} papers)? {only} papers that no other library holds leave "
                            f"the index; {n - only} stay in their other libraries. This cannot be undone."), name)

    def confirm_remove(self, name):
        try:
            papers, chunks = self.pipeline.remove_library(name or "")
        except RagqaError as exc:
            return gr.update(visible=False), error_line(str(exc)), None
        self.announce()
        return gr.update(visible=False), status_line(f"Removed library '{name}': {papers} papers ({chunks} chunks) "
                                                     "left the index."), None

    def cancel_remove(self):
        return gr.update(visible=False), status_line("Nothing removed."), None
