"""ui/render.py's pure parts (no server, no browser): the Papers tab's facet summary and paper record,
and the Library tab's upload report and one-line messages, escaped."""
from __future__ import annotations

from collections import Counter

import pytest

from ragqa.ingest.paper import LoadReport, Skip
from ragqa.store.ingesting import IngestReport
from ui.render import error_line, facet_summary, ingest_report, paper_record, status_line


def test_facet_summary_lists_each_facet_with_counts():
    text = facet_summary(98, 3, {"Venue": Counter({"NeurIPS 2024": 2, "ICLR 2024": 1}), "Status": Counter(),
                                 "Topic": Counter({f"t{i}": i for i in range(1, 20)})}, top=3)
    lines = text.split("\n\n")
    assert lines[0] == "**98 papers** indexed · showing 3."
    assert lines[1] == "Venue: ICLR 2024: 1 · NeurIPS 2024: 2"  # values in order, not by count
    assert lines[2] == "Topic: t19: 19 · t18: 18 · t17: 17"  # topics: the most common only
    assert "Status" not in text  # an empty facet is left out


def test_facet_values_are_escaped():
    assert "&lt;b&gt;" in facet_summary(1, 1, {"Library": Counter({"<b>x</b>": 1})})


def test_ingest_report_lists_every_skip_on_its_own_line():
    load = LoadReport(papers=[object(), object()], entries=4, skipped=[Skip("refs.bib:a1", "no abstract")])
    result = IngestReport(papers=2, new_papers=1, embedded_chunks=1, seconds=0.25,
                          skipped=["refs.bib: 'x' has a 30,000-character abstract (limit 20,000); not indexed"])
    html = ingest_report("mine", "refs.bib", load, ["other.json: invalid JSON"], result)
    assert "<b>Library mine</b>: 2 papers indexed (1 new, 1 already indexed; 1 chunk embedded in 0.2 s)" in html
    assert "Read 4 records from refs.bib: 2 papers, 1 duplicate merged, 1 record skipped." in html
    for title, line in (("Skipped records (1)", "refs.bib:a1: no abstract"),
                        ("Unreadable files (1)", "other.json: invalid JSON"),
                        ("Not indexed (1)", "30,000-character abstract")):
        assert f"<h4>{title}</h4>" in html and line in html


def test_ingest_report_when_nothing_was_readable():
    html = ingest_report("x", "empty.csv", LoadReport(entries=0), ["empty.csv: no rows"], None)
    assert "Nothing to index: no readable papers in empty.csv" in html and "rq-error" in html
    assert "Not indexed" not in html


def test_messages_are_escaped_one_liners():
    assert error_line("bad <script>") == '<div class="rq-error">⚠️ bad &lt;script&gt;</div>'
    assert status_line("a & b") == '<div class="rq-status">a &amp; b</div>'
    assert "&lt;img" in ingest_report("<img src=x>", "f.bib", LoadReport(entries=0), [], None) + \
        ingest_report("<img src=x>", "f.bib", LoadReport(entries=1, papers=[object()]), [],
                      IngestReport(papers=1, new_papers=1))


def test_paper_record_shows_every_field_escaped():
    meta = {"paper_id": "p1", "title": "XSSNet <script>x()</script>", "authors": "Ann Lee; Bo Chen",
            "authors_truncated": True, "venue": "ICML 2024", "year": 2024, "status": "Oral",
            "libraries": "default; mine", "topic": "", "text": "We propose <img src=x onerror=alert(1)>."}
    html = paper_record(meta, [("Paper", 'https://example.org/a?b=1&c="2"')])
    assert '<h3>XSSNet &lt;script&gt;x()&lt;/script&gt;</h3>' in html and "<script>" not in html
    for shown in ("Ann Lee, Bo Chen et al.", "ICML 2024", "2024", "Oral", "default, mine", "&lt;img src=x"):
        assert shown in html
    assert "<dt>Topic</dt>" not in html  # an empty field is left out
    assert 'href="https://example.org/a?b=1&amp;c=&quot;2&quot;" target="_blank" rel="noopener noreferrer"' in html
    assert paper_record(None, message="Gone <b>") == '<div class="rq-status">Gone &lt;b&gt;</div>'


def test_a_flagged_paper_card_says_so():
    from ragqa.retrieval.hits import Hit
    from ui.render import FLAG_NOTE, card

    meta = {"label": "X", "text": "We study graphs.", "flags": "instructions"}
    assert FLAG_NOTE in card(Hit("p", 0.1, 0.5, "t", meta), 1)
    assert FLAG_NOTE not in card(Hit("p", 0.1, 0.5, "t", {**meta, "flags": ""}), 1)


def test_an_abstention_after_the_model_saw_sources_lists_them_as_nearest_papers_only():
    """A capable model's refusal is trusted after its sources were shown: the panel must not keep "Sources given to the
    model" under "Not covered" (issue #14), but list those papers as the nearest ones."""
    from ragqa.answer.records import Answer, Source
    from ragqa.retrieval.hits import Hit
    from ui.render import sources_panel

    hit = Hit(paper_id="p1", score=0.5, relevance=0.6, text="x", meta={"label": "DRAGON", "title": "DRAGON"})
    sources = [Source(n=1, hit=hit, evidence=("It does this.",))]
    refused = Answer("What is DRAGON?", "Not covered.", True, "abstain", "model refused", retrieved=[hit])
    panel = sources_panel(refused, sources, [hit])
    assert "Sources given to the model" not in panel and "Nearest papers (1)" in panel and "DRAGON" in panel
    assert "Sources given to the model (1)" in sources_panel(None, sources, [hit], "Answer in progress…")


REMOTE = ["![x](http://203.0.113.9/i.png)", "[click](javascript:alert(1))", "<img src=http://203.0.113.9/i.png>",
          "\\![y](http://203.0.113.9/j.png)", "[r]: http://203.0.113.9/k.png\n![r]"]


def _rendered(markdown_text: str) -> list[str]:
    """The tags a Markdown renderer (CommonMark, as the chat and the counts are rendered) makes of the text."""
    import re

    from markdown_it import MarkdownIt

    ours = re.compile(r"</?(?:span|div|b|i|br)\b")  # the markup render.py writes itself
    tokens = MarkdownIt("commonmark").parse(markdown_text)
    inline = [c for t in tokens if t.type == "inline" for c in t.children]
    return [c.type for c in inline if c.type in ("image", "link_open") or c.type == "html_inline"
            and not ours.match(c.content)] + \
        [t.type for t in tokens if t.type == "html_block" and not ours.match(t.content)]


def test_metadata_in_the_papers_counts_is_shown_as_text_never_fetched():
    for value in REMOTE:
        summary = facet_summary(1, 1, {"Venue": Counter({value: 1}), "Topic": Counter({value: 1})})
        assert _rendered(summary) == [], value


def test_an_answer_naming_hostile_metadata_renders_no_image_or_link():
    from ragqa.answer.records import Answer
    from ui.render import answer_markdown, inert

    for value in REMOTE:
        answer = Answer(question="q", text=f"1 indexed paper addresses this: {value} (venue {value}) [1].",
                        citations=[], abstained=False, mode="list", read_from_question=[f"venue={value}"])
        assert _rendered(answer_markdown(answer)) == [], value
        assert _rendered(inert(value)) == [], value


@pytest.mark.parametrize("coverage, abstained, shown", [
    ("answered", False, "Answered from the indexed papers"),
    ("related", False, "Related papers only"),
    ("not_covered", True, "Not covered by the indexed papers"),
])
def test_every_answer_shows_its_coverage(coverage, abstained, shown):
    """#44 4: the coverage tier is a visible badge on the chat message."""
    from ragqa.answer.records import Answer
    from ui.render import answer_markdown

    text = answer_markdown(Answer("Which papers study X?", "Some text [1].", abstained, "list", coverage=coverage))
    assert (shown in text and sum(label in text
                                  for label in ("Answered from", "Related papers only", "Not covered")) == 1)
