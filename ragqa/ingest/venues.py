"""A source's venue string -> the venue's canonical short name and year ("Advances in Neural Information Processing
Systems 2020" -> "NeurIPS 2020"), from the table in venues.tsv (data, not code). A workshop stays as written, findings
tracks are venues of their own, and a venue the table does not know stays as written. Nothing else here."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_WORKSHOP = re.compile(r"\bworkshops?\b", re.I)


@cache
def _table() -> list[tuple[str, re.Pattern]]:
    rows = []
    for line in (Path(__file__).with_name("venues.tsv")).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, case, pattern = line.split("\t", 2)
        rows.append((name, re.compile(pattern, re.I if case == "i" else 0)))
    return rows


def canonical_venue(venue: str | None, year: int | None = None) -> str | None:
    """'NeurIPS 2020' for any way of writing it (year from the string, else `year`); as written when unknown or a
    workshop."""
    if not venue or not venue.strip() or _WORKSHOP.search(venue):
        return venue
    name = next((name for name, pattern in _table() if pattern.search(venue)), None)
    if name is None:
        return venue
    found = _YEAR.search(venue)
    year = int(found.group()) if found else year
    return f"{name} {year}" if year else name


def known_venue(text: str | None) -> bool:
    """The table names this venue (a workshop counts as its own, unknown, venue)."""
    return bool(text) and not _WORKSHOP.search(text) and any(pattern.search(text) for _, pattern in _table())
