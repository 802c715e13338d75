"""A bounded load test of the launched UI: 8 concurrent gradio_client sessions, 3 questions each, over
the bundled corpus (hashing embedder, scripted LLM). Failures are asserted; latency is only reported.
"""
from __future__ import annotations

import json
import math
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT, free_port
from tests.fakes import ScriptedLLM
from tests.ui.conftest import cite_first

pytestmark = pytest.mark.integration

SESSIONS = 8
QUESTIONS = [  # on-topic: each names the subject of a bundled paper; per session, a first question and follow-ups
    ("graph neural network with distributed-order fractional derivatives", "What datasets did they evaluate it on?",
     "diffusion-based augmentation for training robust classifiers"),
    ("Which paper introduces DiffAug?", "What architectures did they evaluate it with?",
     "sparse autoencoders for board game models"),
    ("semi-synthetic transformers for evaluating mechanistic interpretability", "How many models does it include?",
     "explaining selective state space sequence models"),
    ("training Cox proportional hazards models faster", "What speed-up do they report?",
     "knowledge priors for medical image analysis under domain shift"),
    ("information storage and transfer in multi-modal large language models", "Which models did they study?",
     "context window of large language models via positional vectors"),
    ("dynamic service fee pricing under strategic behavior", "What is the phase transition they find?",
     "white-box transformers for vision at scale"),
    ("privacy of offloaded speech understanding on small devices", "How do they protect privacy?",
     "function vectors in large language models"),
    ("benign overfitting and grokking in ReLU networks", "What data distribution do they assume?",
     "posterior collapse in conditional variational autoencoders"),
]


def _reply(prompt: str) -> str:
    """Cite the first source (answers) or echo the follow-up (condensing), like tests/ui."""
    if "Sources:" in prompt:
        return cite_first(prompt)
    return prompt.split("Last question:")[-1].split("\n")[0].strip() or "q"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from ui.app import build_app
    from ui.render import CSS

    tmp = tmp_path_factory.mktemp("load")
    shutil.copytree(ROOT / "data", tmp / "data")
    llm = ScriptedLLM([_reply])
    pipeline = Pipeline(Settings(data_dir=tmp / "data", vectorstore_dir=tmp / "vs", embed_model="hash",
                                 min_relevance=0.1, model_cache_dir=tmp / "cache",
                                 calibration_file=ROOT / "tests" / "data" / "calibration-hash.json"),
                        llm=llm, fast_llm=llm)
    pipeline.ingest(pipeline.load()[0], progress=False)
    app = build_app(pipeline)
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, css=CSS, quiet=True)
    yield f"http://127.0.0.1:{port}/"
    app.close()


def _text(message) -> str:
    content = message["content"]
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def _session(url: str, questions: tuple[str, ...], start: threading.Barrier) -> list[dict]:
    """One user: a client, then the questions in turn as one conversation."""
    from gradio_client import Client

    client = Client(url, verbose=False)
    start.wait()
    chat, out = [], []
    for question in questions:
        began = time.perf_counter()
        # by name: other inputs keep the UI defaults
        job = client.submit(question=question, chat=chat, api_name="/respond")
        first = None
        for _ in job:  # streamed updates
            first = first if first is not None else time.perf_counter() - began
        chat = job.outputs()[-1][0]  # outputs: the conversation, then the sources panel, ...
        out.append({"question": question, "seconds": time.perf_counter() - began, "first_update_s": first,
                    "reply": _text(chat[-1]) if chat else "", "turns": len(chat)})
    return out


def _percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def test_eight_concurrent_sessions_all_get_answers(app_url, tmp_path):
    start = threading.Barrier(SESSIONS)
    began = time.perf_counter()
    with ThreadPoolExecutor(SESSIONS) as pool:
        futures = [pool.submit(_session, app_url, QUESTIONS[n % len(QUESTIONS)], start) for n in range(SESSIONS)]
        results = [f.result(timeout=300) for f in futures]  # a failed request raises here
    wall = time.perf_counter() - began
    replies = [r for session in results for r in session]

    assert len(replies) == SESSIONS * 3
    for r in replies:
        assert r["reply"].strip(), f"empty reply to {r['question']!r}"
        assert not r["reply"].startswith(("⚠️", "_Searching", "_Writing", "_Checking", "_Loading", "Not ready")), r
    for session in results:  # each session is its own conversation: 2 turns per question
        assert [r["turns"] for r in session] == [2, 4, 6]

    seconds = [r["seconds"] for r in replies]
    firsts = [r["first_update_s"] for r in replies if r["first_update_s"] is not None]
    report = {
        "sessions": SESSIONS, "questions": len(replies), "wall_s": round(wall, 3),
        "latency_s": {"p50": round(_percentile(seconds, 50), 3), "p95": round(_percentile(seconds, 95), 3),
                      "max": round(max(seconds), 3)},
        "first_update_s": {"p50": round(_percentile(firsts, 50), 3), "p95": round(_percentile(firsts, 95), 3),
                           "max": round(max(firsts), 3)},
        "cited": sum("[1]" in r["reply"] for r in replies),
        "replies": replies,
    }
    (tmp_path / "load.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
    lat, first = report["latency_s"], report["first_update_s"]
    print(f"\nload: {SESSIONS} sessions x 3 questions in {wall:.2f} s; answer latency p50 {lat['p50']} s, "
          f"p95 {lat['p95']} s, max {lat['max']} s; first update p50 {first['p50']} s, p95 {first['p95']} s; "
          f"{report['cited']}/{len(replies)} replies cite [1]; report {tmp_path / 'load.json'}")
