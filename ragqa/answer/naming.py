"""What an answer calls a paper: its title, method name or authors, else its venue ("an ICLR 2025
paper"); never the opening words of its abstract. The label a prompt shows is prompting.py's.
"""
from __future__ import annotations

from ragqa.ingest.paper import authors_of
from ragqa.text.clean import method_name


def own_name(meta: dict) -> str | None:
    """A paper's title or method name, else its authors ("Basu et al."); None for an untitled,
    authorless listing, whose label is only the opening words of its abstract."""
    label, title = meta.get("label") or "", meta.get("title") or ""
    if title and title.startswith(label.rstrip("…")) and method_name(title):
        # the label is the title, which leads with a name: "LoRA: Low-Rank Adaptation …" -> LoRA
        return method_name(title)
    if title or (not label.endswith("…") and len(label.split()) <= 3):
        return label
    surnames = [a.split()[-1] for a in authors_of(meta)]
    complete = not meta.get("authors_truncated")
    if not surnames:
        return None
    if len(surnames) == 1 and complete:
        return surnames[0]
    if len(surnames) == 2 and complete:
        return f"{surnames[0]} and {surnames[1]}"
    return f"{surnames[0]} et al."


def paper_name(meta: dict, chinese: bool = False, opening: bool = False) -> str:
    """What an answer calls a paper in its own text: its own name (title, method, authors), else its
    venue ("an ICLR 2025 paper"; `opening`: "An ICLR 2025 paper", to start a line): never the opening
    words of its abstract. The prompt keeps the label: with author names in its sources the 1.5B
    answered more near-miss questions (issue notes)."""
    own = own_name(meta)
    if own:
        return own
    venue = meta.get("venue") or ""
    if chinese:
        return f"{venue} 的一篇论文" if venue else "一篇论文"
    article = ("An" if venue[:1] in "AEIOU" else "A") if venue else "A"
    name = f"{article} {venue} paper" if venue else f"{article} paper"
    return name if opening else name[0].lower() + name[1:]
