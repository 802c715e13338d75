"""ui/papers.py over the bundled index (no server, no browser): the row a click gives back is found
again whatever the table's order, the question the ask button writes, and a record's links."""
from __future__ import annotations

import json

import pytest

from ui.papers import paper_for_row, paper_links, paper_row, papers_table, question_about


def test_a_row_finds_its_paper(ui_pipeline):
    rows, _ = papers_table(ui_pipeline)
    metas = ui_pipeline.searcher.paper_meta()
    for row in rows[::7] + rows[-1:]:  # the page may sort the table: the row's values say which paper it is
        pid, meta = paper_for_row(ui_pipeline, row)
        assert paper_row(meta) == row and metas[pid] == meta
    assert paper_for_row(ui_pipeline, ["No such paper", "", "", "", "", "", ""]) is None
    assert paper_for_row(ui_pipeline, None) is None


def test_a_row_with_a_stale_cell_still_finds_a_unique_title(ui_pipeline):
    row = next(r for r in papers_table(ui_pipeline)[0] if r[0].startswith("Distributed-Order Fractional"))
    pid, meta = paper_for_row(ui_pipeline, [*row[:3], "a library since removed", *row[4:]])
    assert meta["title"] == row[0]


@pytest.mark.parametrize("meta, question", [
    ({"title": "Vision Transformers Need Registers", "text": "..."},
     'What does "Vision Transformers Need Registers" propose and find?'),
    ({"title": "", "label": "Embedders play a central role",
      "text": "Embedders play a central role in machine learning, projecting any object into numerical representations "
              "that can be leveraged to perform various downstream tasks."},
     'What does the paper beginning "Embedders play a central role in machine learning, projecting any object into …" '
     "propose and find?"),
])
def test_question_about(meta, question):
    assert question_about(meta) == question


@pytest.mark.parametrize("extra, links", [
    ({"url": "https://openreview.net/forum?id=x", "pdf": "https://x/p.pdf"}, [("Paper", "https://openreview.net/forum?id=x")]),
    ({"virtual_site": "javascript:alert(1)"}, []),  # only web addresses become links
    ({"doi": "10.1/abc"}, [("DOI 10.1/abc", "https://doi.org/10.1/abc")]),
    ({}, []),
])
def test_paper_links(extra, links):
    assert paper_links({"extra": json.dumps(extra) if extra else ""}) == links


def test_topic_and_year_filters_narrow_the_table_and_count_the_facets(ui_pipeline):
    metas = ui_pipeline.searcher.paper_meta().values()
    topics = [(m.get("topic") or "").lower() for m in metas]
    # a label the collection has by that name (or a "·" part of one) is that label, as the chat's topic dropdown
    # offers it; a word of labels that no label is whole is looked for within them
    rows, summary = papers_table(ui_pipeline, topic="interpretability")
    whole = [t for t in topics if "interpretability" in (t, *(p.strip() for p in t.split("·")))]
    assert len(rows) == len(whole) > 0 and all(r[4].lower() == "interpretability" for r in rows)
    rows, _ = papers_table(ui_pipeline, topic="interpret")
    within = [t for t in topics if "interpret" in t]
    assert len(rows) == len(within) > len(whole)
    years = {m.get("year") for m in metas if m.get("year")}
    year = max(years)
    rows, summary = papers_table(ui_pipeline, year=str(year))
    assert len(rows) == sum(m.get("year") == year for m in metas) and f"{year}: {len(rows)}" in summary
    assert papers_table(ui_pipeline, topic="no such topic zzz")[0] == []


def test_the_table_and_its_counts_are_look_ups_that_agree_with_the_records(ui_pipeline, monkeypatch):
    """Words, filters and facet counts come from the catalog's full-text tables and the postings; only the rows
    shown are read. Checked against a pass over every record, which papers_table itself must not make."""
    from collections import Counter

    import ui.papers as papers

    metas = dict(ui_pipeline.searcher.paper_meta().items())
    records = type(ui_pipeline.searcher.paper_meta())
    monkeypatch.setattr(records, "pages", lambda self: (_ for _ in ()).throw(AssertionError("read every record")))
    monkeypatch.setattr(papers, "SHOWN", 10)
    rows, summary = papers_table(ui_pipeline)
    assert len(rows) == 10 and f"showing 10 of {len(metas)} that match" in summary
    assert rows == sorted(rows, key=lambda r: (r[1], r[0]))[:10] == sorted(map(paper_row, metas.values()),
                                                                            key=lambda r: (r[1], r[0]))[:10]
    venues = Counter(m.get("venue") or "?" for m in metas.values())
    assert all(f"{v}: {n}" in summary for v, n in venues.items())
    rows, summary = papers_table(ui_pipeline, query="graph neur")  # the last word may be cut short
    want = [m for m in metas.values()
            if "graph neur" in " ".join(str(m.get(k) or "") for k in ("title", "text")).lower()]
    assert 0 < len(want) <= 10 and len(rows) == len(want) and f"showing {len(want)}." in summary
    rows, _ = papers_table(ui_pipeline, query="Kai Zhao")  # an author's name
    assert rows and all("Kai Zhao" in r[5] for r in rows)
