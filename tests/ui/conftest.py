"""A launched UI over the bundled corpus with the hashing embedder and a scripted LLM (fast), and a
page of it in headless Chromium (Debian's package) driven by Playwright. Each test module gets its
own index, so one that adds or removes a library changes nothing for the others."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.fakes import ScriptedLLM

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def cite_first(prompt: str) -> str:
    """Answer like a well-behaved model: cite the first source by its number and name."""
    if "Who won" in prompt.split("Question:")[-1]:
        return "The indexed papers do not answer this question."
    match = re.findall(r'<source id="(\d+)">\nPaper: ([^\n(]+)', prompt.rsplit("Sources:", 1)[-1])
    if not match:
        return "The indexed papers do not answer this question."
    n, label = match[0]
    return f"{label.strip()} addresses this question directly [{n}]. It reports results on standard benchmarks [{n}]."


def new_chat(page) -> None:
    """Click "New chat" and wait until its reply has cleared the question box: a question typed before that
    reply arrives would be wiped by it (the race that failed CI on a slower machine)."""
    page.fill("#rq-question textarea", "(cleared by New chat)")
    page.click("#rq-new")
    page.wait_for_function("document.querySelector('#rq-question textarea').value === ''", timeout=30_000)


@pytest.fixture(scope="module")
def ui_pipeline(tmp_path_factory):
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from tests.conftest import ROOT

    tmp = tmp_path_factory.mktemp("ui")
    shutil.copytree(ROOT / "data", tmp / "data")
    xss = ('ICML 2024 论文列表\n\nWe propose XSSNet, a <script>window.__pwned=1</script> model '
           '<img src=x onerror="window.__pwned=2"> for adversarial markup in abstracts of papers. '
           + "It is evaluated on many benchmarks of markup injection in web pages and documents. " * 3 + "\n")
    (tmp / "data" / "xss.txt").write_text(xss, encoding="utf-8")
    calibration = Path(__file__).resolve().parents[1] / "data" / "calibration-hash.json"  # hashing-embedder scale
    pipeline = Pipeline(Settings(data_dir=tmp / "data", vectorstore_dir=tmp / "vs", embed_model="hash",
                                 min_relevance=0.1, calibration_file=calibration))
    pipeline.ingest(pipeline.load()[0], progress=False)
    pipeline.use_llms(ScriptedLLM(
        [lambda p: cite_first(p) if "Sources:" in p else p.split("Last question:")[-1].split("\n")[0].strip() or "q"]))
    return pipeline


@pytest.fixture(scope="module")
def ui_url(ui_pipeline):
    from ui.app import build_app
    from ui.render import CSS

    app = build_app(ui_pipeline)
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, css=CSS, quiet=True)
    yield f"http://127.0.0.1:{port}/"
    app.close()


@pytest.fixture(scope="module")
def page(ui_url):
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 950}, accept_downloads=True)
        page.goto(ui_url, wait_until="load")
        page.wait_for_selector("#rq-question textarea", timeout=60_000)
        yield page
        browser.close()
