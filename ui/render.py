"""HTML for the sources panel, the Papers tab's facet counts and paper records, and the Library tab's
messages. Every piece of paper, file or user text is escaped here, so an abstract holding <script> or
<img onerror=...> is shown as text, never run."""
from __future__ import annotations

import html
import re

from ragqa.answer.records import Answer, Source
from ragqa.ingest.paper import without_abstract
from ragqa.retrieval.hits import Hit

CSS = """
.rq-card {border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 8px 10px; margin: 6px 0;}
.rq-card.cited {border-left: 4px solid #2f7d32;}
.rq-card .rq-head {font-weight: 600;}
.rq-card .rq-meta {font-size: 0.85em; opacity: 0.8;}
.rq-card .rq-abs {font-size: 0.9em; margin-top: 4px; max-height: 14em; overflow-y: auto;}
.rq-card mark {background: #fff3a0; color: inherit; padding: 0 1px;}
.rq-parsed {font-size: 0.85em; opacity: 0.8;}
.rq-abstain {border-left: 4px solid #b26a00; padding: 6px 10px; background: rgba(178,106,0,0.08);}
.rq-coverage {font-size: 0.85em; padding: 1px 6px; border-radius: 8px; background: rgba(0,128,0,0.08);}
.rq-coverage.rq-related {background: rgba(178,106,0,0.12);}
.rq-status {font-size: 0.9em;}
.rq-error {border-left: 4px solid #b3261e; padding: 6px 10px; background: rgba(179,38,30,0.08);}
.rq-report h4 {margin: 8px 0 2px; font-size: 1em;}
.rq-report ul {margin: 0 0 0 1.2em; font-size: 0.9em;}
.rq-record h3 {margin: 0 0 6px; font-size: 1.1em;}
.rq-record dl {display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0 0 8px; font-size: 0.9em;}
.rq-record dt {font-weight: 600;}
.rq-record dd {margin: 0;}
.rq-record .rq-abs {font-size: 0.9em; max-height: 24em; overflow-y: auto; white-space: pre-line;}
"""


def _e(text) -> str:
    return html.escape(str(text or ""), quote=True)


def inert(text) -> str:
    """Text for a Markdown component (the chat, the Papers tab's counts) shown as itself: HTML escaped, and the
    brackets that make a Markdown link or image backslash-escaped, so `![x](http://…)` in a venue, a topic or a model's
    answer is shown, never fetched."""
    return re.sub(r"([\\\[\]])", r"\\\1", _e(text))


def highlight(text: str, sentences: tuple[str, ...] | list[str]) -> str:
    """Escaped text with each evidence sentence wrapped in <mark> (matched on escaped text)."""
    out = _e(text)
    for sentence in sentences:
        escaped = _e(sentence)
        if escaped and escaped in out:
            out = out.replace(escaped, f"<mark>{escaped}</mark>", 1)
    return out


# coverage (Answer.coverage) as a visible badge: the label, and what it means on hover
COVERAGE_BADGES = {
    "answered": ("✅ Answered from the indexed papers", "The cited papers answer this question."),
    "related": ("🔶 Related papers only", "Papers on the subject were found, none clearly answering the specific "
                "ask: the closest are shown with what they do, not as an answer."),
}
NO_ABSTRACT_NOTE = ("No abstract in the library: this paper is searchable and listed by its title, authors, venue and "
                    "year, and never quoted as evidence. Import a record with its abstract to ask about its content.")
FLAG_NOTE = ("This abstract has sentences addressed to the model or reader; those sentences are never quoted or given "
             "to the model (they are found by wording patterns, which can miss a reworded one).")


def card(hit: Hit, n: int | None, evidence: tuple[str, ...] | list[str] = (), cited: bool = False) -> str:
    m = hit.meta
    authors = (m.get("authors") or "").replace("; ", ", ")
    if authors and m.get("authors_truncated"):
        authors += " et al."
    where = " · ".join(_e(x) for x in (m.get("venue"), m.get("topic")) if x)
    score = f"score {hit.score:.3f}" + (f" · similarity {hit.relevance:.2f}" if hit.relevance is not None else "")
    title = m.get("title") or m.get("label")
    marker = f"[{n}] " if n is not None else ""
    return (
        f'<div class="rq-card{" cited" if cited else ""}" data-paper="{_e(hit.paper_id)}">'
        f'<div class="rq-head">{marker}{_e(title)}</div>'
        f'<div class="rq-meta">{where}{" — " + _e(authors) if authors else ""}</div>'
        f'<div class="rq-meta">{_e(score)}</div>'
        + (f'<div class="rq-meta rq-flag">⚠ {_e(FLAG_NOTE)}</div>' if m.get("flags") else "")
        + (f'<div class="rq-abs rq-bare">{_e(NO_ABSTRACT_NOTE)}</div></div>' if without_abstract(m) else
           f'<div class="rq-abs">{highlight(m.get("text") or hit.text, evidence)}</div></div>')
    )


def sources_panel(answer: Answer | None = None, sources: list[Source] | None = None,
                  retrieved: list[Hit] | None = None, status: str = "") -> str:
    """Cited papers first (supporting sentence highlighted); retrieved-but-uncited collapsed below."""
    parts = [f'<div class="rq-status">{_e(status)}</div>'] if status else []
    by_n = {s.n: s for s in sources or []}
    cited_ids = set()
    if answer is not None and answer.citations:
        parts.append(f"<h4>Cited papers ({len(answer.citations)})</h4>")
        for c in answer.citations:
            source = by_n.get(c.n)
            hit = source.hit if source else next((h for h in answer.retrieved if h.paper_id == c.paper_id), None)
            if hit is None:
                continue
            parts.append(card(hit, c.n, source.evidence if source else (c.evidence,), cited=True))
            cited_ids.add(c.paper_id)
    elif sources and not (answer is not None and answer.abstained):  # an abstention lists the nearest papers only
        parts.append(f"<h4>Sources given to the model ({len(sources)})</h4>")
        parts += [card(s.hit, s.n, s.evidence) for s in sources]
        cited_ids = {s.hit.paper_id for s in sources}
    rest = [h for h in (retrieved or []) if h.paper_id not in cited_ids]
    if rest:
        inner = "".join(card(h, None) for h in rest)
        label = "Other retrieved papers" if cited_ids else "Nearest papers"
        parts.append(f"<details><summary>{label} ({len(rest)})</summary>{inner}</details>")
    return "".join(parts) or '<div class="rq-status">Sources appear here.</div>'


def answer_markdown(answer: Answer) -> str:
    """The final chat message. User-visible text is escaped; an abstention looks different; filters
    read from the question are named (the "Undo" button asks again without them)."""
    text = inert(answer.text).replace("\n", "  \n")
    parsed = answer.read_from_question
    if parsed:
        text = f'<span class="rq-parsed">Read from your question: {inert("; ".join(parsed))}</span>  \n' + text
    if answer.abstained:
        return f'<div class="rq-abstain">⚠️ <b>Not covered by the indexed papers.</b><br>{text}</div>'
    badge = COVERAGE_BADGES.get(answer.coverage)
    if badge:
        text = f'<span class="rq-coverage rq-{answer.coverage}" title="{_e(badge[1])}">{badge[0]}</span>  \n' + text
    if answer.mode == "extractive":
        text += "\n\n<i>(quoted from the abstracts: the model's answer had no valid citation)</i>"
    if answer.dropped_sentences:
        text += f"\n\n<i>({len(answer.dropped_sentences)} uncited sentence(s) removed)</i>"
    return text


def facet_summary(total: int, shown: int, facets: dict, top: int = 12, matched: int | None = None) -> str:
    """Markdown for the Papers tab: the index size, how many papers are shown (of how many `matched`, when the
    table holds fewer), and per facet (name -> Counter of value -> papers) its values with counts (topics: the
    `top` most common)."""
    more = (f" of {matched} that match: narrow them with words or filters" if matched is not None and matched > shown
            else "")
    lines = [f"**{total} papers** indexed · showing {shown}{more}."]
    for name, counts in facets.items():
        if not counts:
            continue
        items = counts.most_common(top) if name == "Topic" else sorted(counts.items())
        lines.append(f"{inert(name)}: " + " · ".join(f"{inert(value)}: {n}" for value, n in items))
    return "\n\n".join(lines)


def paper_record(meta: dict | None, links: list[tuple[str, str]] = (), message: str = "") -> str:
    """The Papers tab's panel: one paper's full record (title, authors, venue, year, status, libraries,
    topic, links, abstract), or `message` when there is none. `links` are (label, http(s) address)."""
    if meta is None:
        return f'<div class="rq-status">{_e(message)}</div>'
    authors = (meta.get("authors") or "").replace("; ", ", ")
    if authors and meta.get("authors_truncated"):
        authors += " et al."
    fields = [("Authors", authors), ("Venue", meta.get("venue")), ("Year", meta.get("year") or ""),
              ("Status", meta.get("status")), ("Libraries", (meta.get("libraries") or "").replace("; ", ", ")),
              ("Topic", meta.get("topic"))]
    rows = "".join(f"<dt>{name}</dt><dd>{_e(value)}</dd>" for name, value in fields if value)
    rows += "".join(f'<dt>Link</dt><dd><a href="{_e(url)}" target="_blank" rel="noopener noreferrer">'
                    f'{_e(label)}</a></dd>' for label, url in links)
    title = meta.get("title") or meta.get("label")
    abstract = NO_ABSTRACT_NOTE if without_abstract(meta) else meta.get("text") or meta.get("abstract")
    return (f'<div class="rq-record" data-paper="{_e(meta.get("paper_id"))}"><h3>{_e(title)}</h3><dl>{rows}</dl>'
            f'<div class="rq-abs">{_e(abstract)}</div></div>')


def status_line(message: str) -> str:
    return f'<div class="rq-status">{_e(message)}</div>'


def error_line(message: str) -> str:
    """An expected failure (a RagqaError's message) as one line, never a traceback."""
    return f'<div class="rq-error">⚠️ {_e(message)}</div>'


def ingest_report(library: str, filename: str, load, errors: list[str], result=None) -> str:
    """The Library tab's report on one upload: records read, papers new / updated / already indexed,
    then one line per skipped record (LoadReport.skipped), unreadable file and paper not indexed
    (IngestReport.skipped). result=None: nothing was indexed."""
    read = [_n(len(load.papers), "paper")]
    if load.duplicates_merged:
        read.append(f"{_n(load.duplicates_merged, 'duplicate')} merged")
    if load.skipped:
        read.append(f"{_n(len(load.skipped), 'record')} skipped")
    if result is None:
        head = f'<div class="rq-error">⚠️ Nothing to index: no readable papers in {_e(filename)}.</div>'
    else:
        known = result.papers - result.new_papers - result.updated_papers - result.repaired_papers
        counts = [f"{result.new_papers} new"] + [f"{n} {what}" for n, what in (
            (result.updated_papers, "updated"), (result.repaired_papers, "repaired"), (known, "already indexed"),
            (result.replaced_papers, "older versions replaced"),
            (result.metadata_only, "without an abstract (title, authors, venue and year only)"),
            (result.merged_records, "records without an abstract merged into their paper")) if n > 0]
        head = (f"<div><b>Library {_e(library)}</b>: {_n(result.papers, 'paper')} indexed ({', '.join(counts)}; "
                f"{_n(result.embedded_chunks, 'chunk')} embedded in {result.seconds:.1f} s). The chat can ask about "
                "them now.</div>")
    sections = [("Skipped records", [f"{s.source}: {s.reason}" for s in load.skipped]),
                ("Kept with a warning", [f"{w.source}: {w.reason}" for w in load.warnings]),
                ("Unreadable files", errors), ("Not indexed", list(result.skipped) if result is not None else [])]
    parts = [head, f"<div>Read {_n(load.entries, 'record')} from {_e(filename)}: {', '.join(read)}.</div>"]
    for title, lines in sections:
        if lines:
            parts.append(f"<h4>{title} ({len(lines)})</h4><ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines)
                         + "</ul>")
    return f'<div class="rq-report">{"".join(parts)}</div>'


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
