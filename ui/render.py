"""HTML for the sources panel and the papers table. Every piece of paper or user text is
escaped here, so an abstract holding <script> or <img onerror=...> is shown as text, never run."""
from __future__ import annotations

import html

from ragqa.answer import Answer, Source
from ragqa.retrieve import Hit

CSS = """
.rq-card {border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 8px 10px; margin: 6px 0;}
.rq-card.cited {border-left: 4px solid #2f7d32;}
.rq-card .rq-head {font-weight: 600;}
.rq-card .rq-meta {font-size: 0.85em; opacity: 0.8;}
.rq-card .rq-abs {font-size: 0.9em; margin-top: 4px; max-height: 14em; overflow-y: auto;}
.rq-card mark {background: #fff3a0; color: inherit; padding: 0 1px;}
.rq-abstain {border-left: 4px solid #b26a00; padding: 6px 10px; background: rgba(178,106,0,0.08);}
.rq-status {font-size: 0.9em;}
"""


def _e(text) -> str:
    return html.escape(str(text or ""), quote=True)


def highlight(text: str, sentences: tuple[str, ...] | list[str]) -> str:
    """Escaped text with each evidence sentence wrapped in <mark> (matched on escaped text)."""
    out = _e(text)
    for sentence in sentences:
        escaped = _e(sentence)
        if escaped and escaped in out:
            out = out.replace(escaped, f"<mark>{escaped}</mark>", 1)
    return out


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
        f'<div class="rq-abs">{highlight(m.get("text") or hit.text, evidence)}</div></div>'
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
    elif sources:
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
    """The final chat message. User-visible text is escaped; an abstention looks different."""
    text = _e(answer.text).replace("\n", "  \n")
    if answer.abstained:
        return f'<div class="rq-abstain">⚠️ <b>Not covered by the indexed papers.</b><br>{text}</div>'
    if answer.mode == "extractive":
        text += "\n\n<i>(quoted from the abstracts: the model's answer had no valid citation)</i>"
    if answer.dropped_sentences:
        text += f"\n\n<i>({len(answer.dropped_sentences)} uncited sentence(s) removed)</i>"
    return text
