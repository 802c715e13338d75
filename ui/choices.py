"""The dropdown choices that come from the index (venues, years, topics, statuses, libraries) and the
values meaning "no filter". Shared by the chat's filters, the Papers tab and the Library tab."""
from __future__ import annotations

from ragqa.errors import RagqaError

ANY = "Any"
ALL = "all"  # the chat's library selector: every library
# choices change with the index (uploads, removals), and an API client never gets the page's refreshed
# choices: any value reaches the handler, and an unknown one gets the filter's own one-line error
LIVE = {"allow_custom_value": True}


def index_choices(pipeline) -> dict[str, list[str]]:
    """Dropdown choices from the index: venues, years, topics, statuses (with "Any") and libraries."""
    try:
        s = pipeline.searcher
        return {"venue": [ANY, *s.venues()], "year": [ANY, *map(str, s.years())], "topic": [ANY, *s.topics()],
                "status": [ANY, *sorted(s.statuses())], "library": s.libraries()}
    except RagqaError:
        return {"venue": [ANY], "year": [ANY], "topic": [ANY], "status": [ANY], "library": []}


def chosen(value) -> str | None:
    """A dropdown's value as a filter: None for "Any", "all" or nothing."""
    return None if value in (None, "", ANY, ALL) else value
