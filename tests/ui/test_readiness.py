"""A question asked while the models still load waits in the chat and is answered once start-up
finishes, instead of being lost with "Not ready yet" (#18.7); a failed start-up says why."""
from __future__ import annotations

import threading

import pytest

from tests.conftest import free_port

pytestmark = pytest.mark.integration


def _cites_first(text) -> bool:
    """The chat's Markdown cites [1] (its brackets are backslash-escaped: ui.render.inert)."""
    import re

    return bool(re.search(r"\\*\[1\\*\]", str(text)))


def _launch(pipeline, state):
    from ui.app import build_app
    from ui.render import CSS

    app = build_app(pipeline, state)
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, css=CSS, quiet=True)
    return app, f"http://127.0.0.1:{port}/"


def _final_and_updates(url, question):
    from gradio_client import Client

    job = Client(url, verbose=False).submit(question, [], "Any", "Any", "Any", "all", 10, False, api_name="/respond")
    updates = [u[0][-1]["content"] for u in job if u and u[0]]
    return job.outputs()[-1][0][-1]["content"], updates


def test_a_question_during_start_up_is_queued_then_answered(ui_pipeline):
    from ui.app import AppState

    state = AppState()
    state.set("Loading the embedding model and the language model…", ready=False)
    app, url = _launch(ui_pipeline, state)
    try:
        threading.Timer(2.0, lambda: state.set("Ready.", ready=True)).start()
        final, updates = _final_and_updates(url, "graph neural network with distributed-order fractional derivatives")
        assert any("queued until start-up finishes" in str(u) for u in updates)
        assert _cites_first(str(final)) and "Not ready" not in str(final)
    finally:
        app.close()


def test_a_failed_start_up_is_one_line_in_the_chat(ui_pipeline):
    from ui.app import AppState

    state = AppState()
    state.set("Error: No packaged weights for qwen2.5-1.5b. Run 'ragqa models fetch'.", ready=False)
    app, url = _launch(ui_pipeline, state)
    try:
        final, _ = _final_and_updates(url, "graph neural networks")
        assert "Not ready: Error: No packaged weights" in str(final) and "queued" not in str(final)
    finally:
        app.close()


def test_one_question_at_a_time_per_session(ui_pipeline):
    """A second question from the same session while the first is still being answered is turned
    away with a message (and kept in the box), so one user cannot fill the queue; other sessions are unaffected."""
    from gradio_client import Client

    from ui.app import AppState

    state = AppState()
    state.set("Loading the language model…", ready=False)
    app, url = _launch(ui_pipeline, state)
    try:
        client = Client(url, verbose=False)
        args = ("graph neural networks", [], "Any", "Any", "Any", "all", 10, False)
        first = client.submit(*args, api_name="/respond")
        import time

        time.sleep(1.5)  # the first is now waiting for start-up
        second = client.submit(*args, api_name="/respond")
        chat, _, box, _ = second.result(timeout=60)
        assert "still being answered" in str(chat[-1]["content"]) and box == "graph neural networks"
        other = Client(url, verbose=False).submit(*args, api_name="/respond")
        state.set("Ready.", ready=True)
        assert _cites_first(str(first.result(timeout=60)[0][-1]["content"]))
        assert _cites_first(str(other.result(timeout=60)[0][-1]["content"]))
    finally:
        app.close()
