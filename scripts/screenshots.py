"""Take the README screenshots of the real app, driven by Playwright in Debian's headless Chromium:
docs/chat.png (a cited answer), docs/papers.png (the Papers tab) and docs/library.png (the Library
tab after uploading a small demo .bib). The bundled papers are indexed into a temporary store first,
so the repository's vectorstore/ is left alone.

    .venv/bin/python scripts/screenshots.py ["question"]          # the default models (~3 min, mostly indexing)
    .venv/bin/python scripts/screenshots.py --fake ["question"]   # hashing embedder + scripted LLM (seconds)
    --out DIR writes the three files to DIR instead of docs/
"""
from __future__ import annotations

import os
import socket
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
QUESTION = "Is there work on making sparse autoencoders cheaper at huge widths?"
# the browser test's library
DEMO_BIB = (ROOT / "tests" / "data" / "libraries" / "protein-folding.bib").read_text(encoding="utf-8")


def _pipeline(tmp: Path, fake: bool):
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline

    if not fake:
        return Pipeline(Settings(vectorstore_dir=tmp / "vs"))
    from tests.fakes import ScriptedLLM
    from tests.ui.conftest import cite_first

    pipeline = Pipeline(Settings(vectorstore_dir=tmp / "vs", embed_model="hash", min_relevance=0.1,
                                 calibration_file=ROOT / "tests" / "data" / "calibration-hash.json"))
    pipeline._llm = pipeline._fast_llm = pipeline._rewrite_llm = ScriptedLLM(
        [lambda p: cite_first(p) if "Sources:" in p else p.split("Last question:")[-1].split("\n")[0].strip() or "q"])
    return pipeline


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    from ui.app import AppState, build_app, prepare
    from ui.render import CSS

    fake = "--fake" in argv
    out = ROOT / "docs"
    if "--out" in argv:
        at = argv.index("--out")
        out, argv = Path(argv[at + 1]), argv[:at] + argv[at + 2:]
    words = [a for a in argv if a != "--fake"]
    question = words[0] if words else QUESTION
    tmp = Path(tempfile.mkdtemp(prefix="ragqa-shots-"))
    started = time.perf_counter()
    pipeline = _pipeline(tmp, fake)
    state = AppState()
    state.set("Preparing…", ready=False)
    prepare(pipeline, state)  # index the bundled papers into tmp, load the models
    if not state.ready:
        print(state.message, file=sys.stderr)
        return 1
    print(f"prepared in {time.perf_counter() - started:.0f} s: {state.message}")
    app = build_app(pipeline, state)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, css=CSS, quiet=True)
    out.mkdir(parents=True, exist_ok=True)
    bib = tmp / "protein-folding-demo.bib"
    bib.write_text(DEMO_BIB, encoding="utf-8")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
            page.wait_for_selector("#rq-question textarea", timeout=60_000)
            page.fill("#rq-question textarea", question)
            page.click("#rq-send")
            page.wait_for_function("document.querySelector('#rq-sources').innerText.includes('retrieval ')",
                                   timeout=300_000)
            page.wait_for_timeout(800)
            page.screenshot(path=str(out / "chat.png"), full_page=True)
            print(f"answered in {time.perf_counter() - started:.0f} s: {page.inner_text('#rq-chat')[-300:]!r}")
            page.get_by_role("tab", name="Papers").click()
            page.wait_for_selector("#rq-papers", timeout=30_000)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(out / "papers.png"), full_page=True)
            page.get_by_role("tab", name="Library").click()
            page.set_input_files("#rq-upload input[type=file]", str(bib))
            page.wait_for_function("document.querySelector('#rq-lib-name textarea, #rq-lib-name input').value !== ''")
            page.click("#rq-ingest")
            page.wait_for_function("document.querySelector('#rq-ingest-report').innerText.includes('papers indexed')",
                                   timeout=120_000)
            page.wait_for_function("document.querySelector('#rq-libraries').innerText.includes('protein')",
                                   timeout=30_000)
            page.wait_for_timeout(800)
            page.screenshot(path=str(out / "library.png"), full_page=True)
            browser.close()
    finally:
        app.close()
    print(f"wrote {', '.join(str(out / n) for n in ('chat.png', 'papers.png', 'library.png'))} "
          f"in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
