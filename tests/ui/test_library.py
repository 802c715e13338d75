"""The Library tab end to end in headless Chromium: upload a .bib on a topic no bundled paper covers,
see the report, ask what only the new papers answer (no restart), download the cited papers as
BibTeX; then the chat's library selector, the Papers tab's library facet, errors as one line, and
removal with a confirmation step. This module has its own index (tests/ui/conftest.py)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.ui.conftest import new_chat

pytestmark = pytest.mark.integration
SHOTS = Path(os.environ.get("RAGQA_SCREENSHOT_DIR", "/tmp/ragqa-screenshots"))
LIBRARY = "protein-folding"
# made-up methods on protein folding: no bundled paper shares these words (hashing embedder)
BIB = (Path(__file__).resolve().parents[1] / "data" / "libraries" / "protein-folding.bib").read_text(encoding="utf-8")
NEW_TITLES = ("FoldWeave", "Chaperone Diffusion for Misfolded Protein Recovery")
CITEKEYS = {"FoldWeave": "quill2025foldweave",
            "Chaperone Diffusion for Misfolded Protein Recovery": "brandt2025chaperone"}
QUESTION = "Which method folds protein chains from amino acid sequences with braided residue contact maps?"


@pytest.fixture(scope="module")
def bib_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("upload") / f"{LIBRARY}.bib"
    path.write_text(BIB, encoding="utf-8")
    return path


def _tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def _choose(page, elem_id: str, option: str) -> None:
    """Pick an option of a Gradio dropdown."""
    page.click(f"#{elem_id} input")
    page.get_by_role("option", name=option, exact=True).click()


def test_upload_shows_the_report(page, bib_file):
    _tab(page, "Library")
    page.wait_for_function("document.querySelector('#rq-libraries').innerText.includes('default')", timeout=30_000)
    page.set_input_files("#rq-upload input[type=file]", str(bib_file))
    page.wait_for_function(f"document.querySelector('#rq-lib-name textarea, #rq-lib-name input').value === '{LIBRARY}'",
                           timeout=30_000)
    page.click("#rq-ingest")
    page.wait_for_function("document.querySelector('#rq-ingest-report').innerText.includes('papers indexed')",
                           timeout=60_000)
    report = page.inner_text("#rq-ingest-report")
    # the record without an abstract is kept as its record (#46 1), and the report says so
    assert f"Library {LIBRARY}: 3 papers indexed (3 new" in report and "1 without an abstract" in report
    assert "Read 3 records" in report and "Skipped records" not in report
    page.wait_for_function(f"document.querySelector('#rq-libraries').innerText.includes('{LIBRARY}')", timeout=30_000)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "library.png"), full_page=True)


def test_chat_answers_from_the_new_papers_and_downloads_them(page, tmp_path):
    _tab(page, "Chat")
    page.fill("#rq-question textarea", QUESTION)
    page.click("#rq-send")
    page.wait_for_selector("#rq-sources .rq-card.cited", timeout=60_000)
    cited = page.inner_text("#rq-sources .rq-card.cited >> nth=0")
    title = next((t for t in NEW_TITLES if t in cited), None)
    assert title, f"the first cited paper is not one of the uploaded ones: {cited[:200]}"
    page.wait_for_function("!document.querySelector('#rq-dl-answer').disabled", timeout=30_000)
    with page.expect_download(timeout=30_000) as download:
        page.click("#rq-dl-answer")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    bib = path.read_text(encoding="utf-8")
    assert path.suffix == ".bib" and f"{{{CITEKEYS[title]}," in bib and title.split(":")[0] in bib


def test_library_selector_restricts_the_chat(page):
    new_chat(page)
    _choose(page, "rq-library", LIBRARY)
    page.fill("#rq-question textarea", "graph neural network with distributed-order fractional derivatives")
    page.click("#rq-send")
    page.wait_for_function("document.querySelector('#rq-sources').innerText.includes('retrieval ')", timeout=60_000)
    sources = page.inner_text("#rq-sources")
    assert "DRAGON" not in sources  # a bundled paper, outside the chosen library
    _choose(page, "rq-library", "all")


def test_an_api_client_can_choose_the_new_library(ui_url):
    from gradio_client import Client

    job = Client(ui_url, verbose=False).submit(QUESTION, [], "Any", "Any", "Any", LIBRARY, 10, False,
                                               api_name="/respond")
    chat, sources, _, _ = job.result()
    assert 'class="rq-card cited"' in sources and any(t in sources for t in NEW_TITLES)
    assert "DRAGON" not in sources


def test_papers_tab_filters_by_library(page):
    _tab(page, "Papers")
    _choose(page, "rq-paper-library", LIBRARY)
    page.wait_for_function("document.querySelector('#rq-paper-counts').innerText.includes('showing 3')", timeout=30_000)
    table = page.inner_text("#rq-papers")
    assert all(t in table for t in NEW_TITLES) and "(no abstract)" in table  # the bare record, marked so
    assert f"{LIBRARY}: 3" in page.inner_text("#rq-paper-counts")
    _choose(page, "rq-paper-library", "Any")


def test_errors_are_one_line(page, tmp_path):
    _tab(page, "Library")
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    page.set_input_files("#rq-upload input[type=file]", str(bad))
    page.wait_for_function("document.querySelector('#rq-lib-name textarea, #rq-lib-name input').value === 'broken'",
                           timeout=30_000)
    page.click("#rq-ingest")
    page.wait_for_function("document.querySelector('#rq-ingest-report').innerText.includes('Nothing to index')",
                           timeout=30_000)
    report = page.inner_text("#rq-ingest-report")
    assert "broken.json: invalid JSON" in report and "/tmp" not in report
    page.fill("#rq-lib-name textarea, #rq-lib-name input", "all")
    page.click("#rq-ingest")
    page.wait_for_function("document.querySelector('#rq-ingest-report .rq-error') && "
                           "document.querySelector('#rq-ingest-report').innerText.includes('means every library')",
                           timeout=30_000)
    assert page.locator(".toast-body.error").count() == 0  # no generic Gradio error toast


def test_remove_library_asks_first(page):
    _tab(page, "Library")
    _choose(page, "rq-remove-name", LIBRARY)
    page.click("#rq-remove")
    page.wait_for_selector("#rq-remove-confirm", state="visible", timeout=30_000)
    assert "3 papers that no other library holds" in page.inner_text("#rq-remove-status")
    page.click("#rq-remove-cancel")
    page.wait_for_selector("#rq-remove-confirm", state="hidden", timeout=30_000)
    assert LIBRARY in page.inner_text("#rq-libraries")
    _choose(page, "rq-remove-name", LIBRARY)
    page.click("#rq-remove")
    page.click("#rq-remove-confirm")
    page.wait_for_function("document.querySelector('#rq-remove-status').innerText.includes('Removed library')",
                           timeout=30_000)
    page.wait_for_function(f"!document.querySelector('#rq-libraries').innerText.includes('{LIBRARY}')", timeout=30_000)
    _tab(page, "Chat")
    page.click("#rq-library input")
    assert page.get_by_role("option", name=LIBRARY, exact=True).count() == 0
    page.keyboard.press("Escape")
    page.fill("#rq-question textarea", QUESTION)
    page.click("#rq-send")
    page.wait_for_function("document.querySelector('#rq-sources').innerText.includes('retrieval ')", timeout=60_000)
    assert not any(t in page.inner_text("#rq-sources") for t in NEW_TITLES)


def test_an_upload_that_fails_half_way_says_what_it_added(indexed, tmp_path, monkeypatch):
    """A failed upload used to look like nothing happened while the papers written before the failure were in the
    library; the error now says how many were added and how to finish or undo."""
    import gradio as gr

    from ragqa.errors import StoreFailedError
    from ragqa.store.index import PaperIndex
    from ui.app import AppState
    from ui.library import LibraryTab

    rows = [{"id": f"h{i}", "title": f"Half way {i}",
             "abstract": f"We study failures half way through uploads, case {i}. " * 4}
            for i in range(6)]
    path = tmp_path / "half.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    monkeypatch.setattr(indexed.settings, "ingest_slice_papers", 2)
    real, calls = PaperIndex._ingest_slice, []

    def failing(self, *args, **kwargs):  # the disk fills up on the third slice
        calls.append(1)
        if len(calls) == 3:
            raise StoreFailedError("The vector store failed (disk full).")
        return real(self, *args, **kwargs)
    monkeypatch.setattr(PaperIndex, "_ingest_slice", failing)
    state = AppState()
    state.set("Ready", ready=True)
    with gr.Blocks(), gr.Tabs():
        tab = LibraryTab(indexed, state, {"library": []})
    *_, (message, _) = list(tab.add_library(str(path), "half"))
    assert "disk full" in message and "4 papers were added to library &#x27;half&#x27;" in message
