"""End to end in headless Chromium (Debian's package) driven by Playwright: ask, see the streamed
answer with a citation and a source card, take screenshots; an abstract with markup stays inert."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

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
    page.fill("#rq-question textarea", "XSSNet markup injection <img src=x onerror=\"window.__pwned=3\"> <script>window.__pwned=4</script>")
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
    page.wait_for_function("document.querySelector('#rq-papers').innerText.includes('Fractional Graph Operating Network')", timeout=30_000)
    assert "Fractional Graph Operating Network" in page.inner_text("#rq-papers")

