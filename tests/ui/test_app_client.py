"""The launched Gradio app through gradio_client: answers, streaming, follow-ups, filters, abstention."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def _text(message) -> str:
    content = message["content"]
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def _ask(client, question, chat=None, venue="Any", year="Any", topic="Any", k=10):
    job = client.submit(question, chat or [], venue, year, topic, k, False, api_name="/respond")
    updates = list(job)
    return updates, job.outputs()[-1]


def test_single_answer_with_citation_and_source_card(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    updates, (chat, sources, box) = _ask(client, "graph neural network with distributed-order fractional derivatives")
    answer = _text(chat[-1])
    assert "[1]" in answer and "DRAGON" in answer
    assert 'class="rq-card cited"' in sources and "<mark>" in sources
    assert len(updates) >= 4  # searching, sources, streamed tokens, final
    assert box == ""


def test_tokens_stream(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    updates, _ = _ask(client, "graph neural network with distributed-order fractional derivatives")
    partial = [_text(u[0][-1]) for u in updates if u and u[0]]
    lengths = [len(p) for p in partial if not p.startswith("_")]
    assert len(lengths) >= 3 and lengths == sorted(lengths[:-1]) + lengths[-1:]


def test_follow_up_uses_the_conversation(ui_url, ui_pipeline):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, _, _) = _ask(client, "Which paper introduces DiffAug?")
    _, (chat2, sources, _) = _ask(client, "What architectures did they evaluate it with?", chat)
    assert len(chat2) == 4
    condense_prompts = [p for p in ui_pipeline._llm.prompts if "Last question: What architectures" in p]
    assert condense_prompts and "Which paper introduces DiffAug?" in condense_prompts[-1]


def test_venue_filter_restricts_sources(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, sources, _) = _ask(client, "interpretability of neural networks", venue="ICLR 2025")
    assert "ICLR 2025" in sources and "NeurIPS 2024" not in sources


def test_abstention_looks_different(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, _, _) = _ask(client, "Zorblat quimwex fnord?")  # no indexed paper shares a word (hashing embedder)
    assert "rq-abstain" in _text(chat[-1]) and "Not covered" in _text(chat[-1])


def test_empty_question_changes_nothing(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, _, _) = _ask(client, "   ")
    assert chat == []


def test_papers_tab_lists_and_counts(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    table, counts = client.predict("fractional", "Any", api_name="/papers")
    rows = table["data"] if isinstance(table, dict) else table
    assert any("Fractional Graph Operating Network" in r[0] for r in rows)  # titles from data/metadata
    assert "96 papers" in counts and "NeurIPS 2024: 38" in counts


def test_two_users_at_once(ui_url):
    from gradio_client import Client

    jobs = [Client(ui_url, verbose=False).submit(q, [], "Any", "Any", "Any", 10, False, api_name="/respond")
            for q in ("graph neural network fractional derivatives", "diffusion augmentation for classifiers")]
    finals = [job.result() for job in jobs]
    assert all("[1]" in _text(chat[-1]) for chat, _, _ in finals)
