"""End to end in headless Chromium (Debian's package) driven by Playwright: ask, see the streamed
answer with a citation and a source card, take screenshots; an abstract with markup stays inert."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.ui.conftest import new_chat

pytestmark = pytest.mark.integration
SHOTS = Path(os.environ.get("RAGQA_SCREENSHOT_DIR", "/tmp/ragqa-screenshots"))


def test_ask_in_browser_streams_answer_with_citation_and_card(page):
    page.fill("#rq-question textarea", "graph neural network with distributed-order fractional derivatives")
    page.click("#rq-send")
    page.wait_for_selector("#rq-sources .rq-card.cited", timeout=60_000)
    page.wait_for_function("document.querySelector('#rq-chat').innerText.includes('[1]')", timeout=60_000)
    chat = page.inner_text("#rq-chat")
    assert "DRAGON" in chat and "[1]" in chat
    card = page.inner_text("#rq-sources .rq-card.cited")
    assert "NeurIPS 2024" in card and "Kai Zhao" in card
    assert page.locator("#rq-sources mark").count() >= 1
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "chat.png"), full_page=True)


def test_markup_in_abstract_and_question_is_inert(page):
    page.evaluate("window.__pwned = 0")
    page.fill("#rq-question textarea",
              "XSSNet markup injection <img src=x onerror=\"window.__pwned=3\"> <script>window.__pwned=4</script>")
    page.click("#rq-send")
    page.wait_for_function("document.querySelector('#rq-sources').innerText.includes('XSSNet')", timeout=60_000)
    page.wait_for_timeout(1500)
    assert page.evaluate("window.__pwned") == 0
    sources = page.inner_text("#rq-sources")
    assert "<script>window.__pwned=1</script>" in sources  # shown as text
    assert page.locator("#rq-sources img").count() == 0 and page.locator("#rq-chat img[src='x']").count() == 0


def test_papers_tab(page):
    page.get_by_role("tab", name="Papers").click()
    page.wait_for_selector("#rq-papers", timeout=30_000)
    page.wait_for_function("document.body.innerText.includes('96 papers')", timeout=30_000)
    page.screenshot(path=str(SHOTS / "papers.png"), full_page=True)
    page.fill("#rq-paper-search textarea", "fractional")
    page.wait_for_function("document.querySelector('#rq-papers')"
                           ".innerText.includes('Fractional Graph Operating Network')", timeout=30_000)
    assert "Fractional Graph Operating Network" in page.inner_text("#rq-papers")



def _tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def test_group_answer_draws_a_bar_chart(page):
    _tab(page, "Chat")
    new_chat(page)  # a first question, not a follow-up of the earlier tests'
    assert page.locator("#rq-chart").is_hidden()  # only group answers have a chart
    page.fill("#rq-question textarea", "Which venue has the most oral papers?")
    page.click("#rq-send")
    page.wait_for_selector("#rq-chart svg, #rq-chart canvas", state="visible", timeout=60_000)
    page.wait_for_function("document.querySelector('#rq-chart').textContent.includes('ICLR 2024')", timeout=30_000)
    chart = page.locator("#rq-chart")
    assert "Papers per venue" in chart.inner_text()
    box = chart.bounding_box()
    assert box and box["height"] > 150 and box["width"] > 200
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "chart.png"), full_page=True)
    page.fill("#rq-question textarea", "graph neural network with distributed-order fractional derivatives")
    page.click("#rq-send")
    page.wait_for_selector("#rq-chart", state="hidden", timeout=60_000)  # an explain answer has none


def test_paper_record_and_ask_about_it(page, ui_pipeline):
    from ui.papers import question_about

    title = "Distributed-Order Fractional Graph Operating Network"
    pid, meta = next((pid, m) for pid, m in ui_pipeline.searcher.paper_meta().items() if m.get("title") == title)
    _tab(page, "Papers")
    page.fill("#rq-paper-search textarea", "fractional")
    page.wait_for_function(f"document.querySelector('#rq-papers').innerText.includes('{title}')", timeout=30_000)
    assert page.locator("#rq-ask-paper").is_hidden()
    # the cell, not its sizing copy
    page.locator("#rq-papers").get_by_text(title, exact=True).filter(visible=True).first.click()
    page.wait_for_selector(f"#rq-paper-record .rq-record[data-paper='{pid}']", timeout=30_000)
    record = page.inner_text("#rq-paper-record")
    assert meta["text"][:120] in " ".join(record.split()) or meta["text"][:120] in record  # the full abstract
    assert meta["title"] in record and meta["venue"] in record and meta["authors"].split("; ")[0] in record
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "paper-record.png"), full_page=True)
    page.click("#rq-ask-paper")
    page.wait_for_selector("#rq-question textarea", state="visible", timeout=30_000)  # back on the Chat tab
    page.wait_for_function(f"document.querySelector('#rq-question textarea').value.includes({title!r})", timeout=30_000)
    assert page.input_value("#rq-question textarea") == question_about(meta)
    page.wait_for_function("document.activeElement === document.querySelector('#rq-question textarea')", timeout=10_000)


def test_a_filter_read_from_the_question_is_shown_and_can_be_undone(page):
    _tab(page, "Chat")
    new_chat(page)
    assert page.locator("#rq-undo-filters").is_hidden()
    page.fill("#rq-question textarea", "How many ICLR 2024 oral papers are indexed?")
    page.click("#rq-send")
    page.wait_for_selector("#rq-undo-filters", state="visible", timeout=60_000)
    chat = page.inner_text("#rq-chat")
    assert "Read from your question" in chat and "status=Oral" in chat
    page.click("#rq-undo-filters")
    page.wait_for_function("document.querySelector('#rq-chat').innerText.includes('no filters read from the question')",
                           timeout=60_000)
    page.wait_for_selector("#rq-undo-filters", state="hidden", timeout=60_000)  # the new answer read no filter
    assert page.inner_text("#rq-chat").count("Read from your question") == 1
