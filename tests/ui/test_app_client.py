"""The launched Gradio app through gradio_client: answers, streaming, follow-ups, filters, abstention,
the group answers' bar chart, the Papers tab's facets and the cited papers' downloads. /respond returns
(chat, sources, question box, chart)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _cites_first(text) -> bool:
    """The chat's Markdown cites [1] (its brackets are backslash-escaped: ui.render.inert)."""
    import re

    return bool(re.search(r"\\*\[1\\*\]", str(text)))


def _text(message) -> str:
    content = message["content"]
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def _ask(client, question, chat=None, venue="Any", year="Any", topic="Any", library="all", k=10):
    job = client.submit(question, chat or [], venue, year, topic, library, k, False, api_name="/respond")
    updates = list(job)
    return updates, job.outputs()[-1]


def test_single_answer_with_citation_and_source_card(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    updates, (chat, sources, box, chart) = _ask(client,
                                                "graph neural network with distributed-order fractional derivatives")
    answer = _text(chat[-1])
    assert _cites_first(answer) and "DRAGON" in answer
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
    _, (chat, _, _, _) = _ask(client, "Which paper introduces DiffAug?")
    _, (chat2, sources, _, _) = _ask(client, "What architectures did they evaluate it with?", chat)
    assert len(chat2) == 4
    condense_prompts = [p for p in ui_pipeline._llm.prompts if "Last question: What architectures" in p]
    assert condense_prompts and "Which paper introduces DiffAug?" in condense_prompts[-1]


def test_venue_filter_restricts_sources(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, sources, _, _) = _ask(client, "interpretability of neural networks", venue="ICLR 2025")
    assert "ICLR 2025" in sources and "NeurIPS 2024" not in sources


def test_abstention_looks_different(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, _, _, _) = _ask(client, "Zorblat quimwex fnord?")  # no indexed paper shares a word (hashing embedder)
    assert "rq-abstain" in _text(chat[-1]) and "Not covered" in _text(chat[-1])


def test_empty_question_changes_nothing(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, _, _, _) = _ask(client, "   ")
    assert chat == []


def test_papers_tab_lists_and_counts(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    rows, counts = _papers(client, "fractional")
    assert any("Fractional Graph Operating Network" in r[0] for r in rows)  # titles from data/metadata
    assert "96 papers** indexed" in counts and f"showing {len(rows)}" in counts
    rows, counts = _papers(client)
    assert len(rows) == 96 and "NeurIPS 2024: 38" in counts and "Library: default: 96" in counts
    # bundled papers show titles, not abstract starts
    assert sum(1 for r in rows if r[0] and not r[0].endswith("…")) >= 90


def _papers(client, query="", venue="Any", author="", status="Any", library="Any"):
    table, counts = client.predict(query, venue, author, status, library, api_name="/papers")
    return (table["data"] if isinstance(table, dict) else table), counts


def test_papers_tab_filters_by_author_status_library_with_facet_counts(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    rows, counts = _papers(client, author="Kai Zhao")
    assert rows and all("Kai Zhao" in r[5] for r in rows)
    assert f"showing {len(rows)}" in counts
    statuses = {r[2] for r in _papers(client)[0] if r[2]}
    status = sorted(statuses)[0]
    rows, counts = _papers(client, status=status)
    assert rows and {r[2] for r in rows} == {status}
    # a facet counts what the other filters admit, not only the chosen value
    assert all(f"{s}: " in counts for s in statuses)
    rows, counts = _papers(client, venue="ICLR 2025", status=status)
    assert all(r[1] == "ICLR 2025" and r[2] == status for r in rows)
    assert f"ICLR 2025: {len(rows)}" in counts.split("Venue: ")[1].split("\n")[0]  # the venue facet, other venues too
    assert f"{status}: {len(rows)}" in counts
    rows, _ = _papers(client, library="default")
    assert len(rows) == 96
    assert _papers(client, author="Nobody Atall")[0] == []


def test_two_users_at_once(ui_url):
    from gradio_client import Client

    jobs = [Client(ui_url, verbose=False).submit(q, [], "Any", "Any", "Any", "all", 10, False, api_name="/respond")
            for q in ("graph neural network fractional derivatives", "diffusion augmentation for classifiers")]
    finals = [job.result() for job in jobs]
    assert all(_cites_first(_text(chat[-1])) for chat, _, _, _ in finals)


def _file(update) -> str | None:
    """The file a download button offers (the client gets the button's update; the file is downloaded)."""
    value = update.get("value") if isinstance(update, dict) and update.get("__type__") == "update" else update
    return value.get("path") if isinstance(value, dict) else value


def _keys(path: str) -> list[str]:
    return re.findall(r"^@\w+\{([^,]+),", Path(path).read_text(encoding="utf-8"), re.M)


def test_download_cited_papers_of_answer_and_conversation(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    first, second = client.predict("BibTeX", api_name="/downloads")
    assert _file(first) is None and _file(second) is None  # nothing cited yet
    _, (chat, _, _, _) = _ask(client, "graph neural network with distributed-order fractional derivatives")
    first = _file(client.predict("BibTeX", api_name="/downloads")[0])
    assert Path(first).name == "ragqa-cited.bib" and "DRAGON" in Path(first).read_text(encoding="utf-8")
    _ask(client, "Which paper studies diffusion models as data augmentation for image classifiers?", chat)
    latest, everything = (_file(u) for u in client.predict("BibTeX", api_name="/downloads"))
    assert Path(everything).name == "ragqa-conversation.bib"
    assert _keys(latest) and _keys(everything) == list(dict.fromkeys(_keys(first) + _keys(latest)))
    as_json = _file(client.predict("CSL-JSON", api_name="/downloads")[0])
    assert Path(as_json).suffix == ".json"
    assert [item["id"] for item in json.loads(Path(as_json).read_text(encoding="utf-8"))] == _keys(latest)
    as_md = _file(client.predict("Markdown", api_name="/downloads")[0])
    assert Path(as_md).read_text(encoding="utf-8").startswith("1. ")
    client.predict(api_name="/new_chat")
    assert all(_file(u) is None for u in client.predict("BibTeX", api_name="/downloads"))


def test_library_selector_is_a_filter(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (chat, sources, _, _) = _ask(client, "graph neural network with distributed-order fractional derivatives",
                                    library="default")
    assert "DRAGON" in _text(chat[-1]) and 'class="rq-card cited"' in sources
    _, (chat, _, _, _) = _ask(Client(ui_url, verbose=False), "graph neural network fractional derivatives",
                              library="gone")
    # one line, not Gradio's generic error
    assert _text(chat[-1]).startswith("⚠️ No library &#x27;gone&#x27;. Libraries: default")
    _, (chat, _, _, _) = _ask(Client(ui_url, verbose=False), "graph neural network fractional derivatives", year="soon")
    assert _text(chat[-1]).startswith("⚠️ Year &#x27;soon&#x27; is not a year")


GROUP_QUESTION = "Which venue has the most oral papers?"  # answered from metadata (status = Oral), no LLM


def _bars(update) -> list[list]:
    value = update.get("value") if isinstance(update, dict) else None
    return value["data"] if isinstance(value, dict) else []


def test_group_answer_shows_its_counts_as_a_bar_chart(ui_url, ui_pipeline):
    from gradio_client import Client

    from ragqa.answer.ask import ask

    answer = ask(ui_pipeline, GROUP_QUESTION)
    assert answer.form == "group" and answer.table
    updates, (chat, sources, box, chart) = _ask(Client(ui_url, verbose=False), GROUP_QUESTION)
    assert chart["visible"] is True and chart["x_title"] == "Venue"
    bars = _bars(chart)
    assert bars == [[row["group"], row["count"]] for row in answer.table]  # largest first, as the answer counts
    assert chart["sort"] == [g for g, _ in bars]
    assert all(f"{g}: {n}" in _text(chat[-1]) for g, n in bars)
    assert updates[0][3].get("visible") is False  # hidden while searching


def test_chart_is_hidden_for_other_answers(ui_url):
    from gradio_client import Client

    client = Client(ui_url, verbose=False)
    _, (_, _, _, chart) = _ask(client, GROUP_QUESTION)
    assert chart["visible"] is True
    _, (chat, _, _, chart) = _ask(client, "graph neural network with distributed-order fractional derivatives", [])
    assert _cites_first(_text(chat[-1]))
    assert chart.get("visible") is False and not _bars(chart)
    *_, chart = client.predict(api_name="/new_chat")
    assert chart.get("visible") is False
