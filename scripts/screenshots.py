"""Take the README screenshots (docs/chat.png, docs/papers.png) of the real app: the default
models over the current index, driven by Playwright in Debian's headless Chromium.

    .venv/bin/python scripts/screenshots.py ["question"]
"""
from __future__ import annotations

import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def main() -> int:
    from playwright.sync_api import sync_playwright

    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from ui.app import AppState, build_app, prepare
    from ui.render import CSS

    question = sys.argv[1] if len(sys.argv) > 1 else "Is there work on making sparse autoencoders cheaper at huge widths?"
    pipeline = Pipeline(Settings())
    state = AppState()
    state.set("Preparing…", ready=False)
    prepare(pipeline, state)
    app = build_app(pipeline, state)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, css=CSS, quiet=True)
    out = ROOT / "docs"
    out.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
        page.wait_for_selector("#rq-question textarea", timeout=60_000)
        page.fill("#rq-question textarea", question)
        page.click("#rq-send")
        page.wait_for_function("document.querySelector('#rq-sources').innerText.includes('retrieval ')", timeout=180_000)
        page.screenshot(path=str(out / "chat.png"), full_page=True)
        page.get_by_role("tab", name="Papers").click()
        page.wait_for_selector("#rq-papers", timeout=30_000)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(out / "papers.png"), full_page=True)
        browser.close()
    app.close()
    print(f"wrote {out / 'chat.png'} and {out / 'papers.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
