"""End to end in headless Chromium (Debian's package) driven by Playwright: ask, see the streamed
answer with a citation and a source card, take screenshots; an abstract with markup stays inert."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(os.environ.get("RAGQA_SCREENSHOT_DIR", "/tmp/ragqa-screenshots"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="module")
def page(ui_url):
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 950})
        page.goto(ui_url, wait_until="load")
        page.wait_for_selector("#rq-question textarea", timeout=60_000)
        yield page
        browser.close()


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

