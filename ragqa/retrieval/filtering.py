"""The Searcher's filters: checking given ones against the collection's values, reading venue, year, author, status
and a cued topic from a question, the papers a set of filters admits (kept per filter set), and counts and groups
over them from the postings. The views themselves are collection.py's."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from ragqa.errors import QueryError
from ragqa.query.metadata import AuthorMatch, TopicMatch, fold, label_parts, names_a_topic, status_in
from ragqa.query.request import Filters, venue_parts, venue_year

_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_SHORT_YEAR = re.compile(r"(?<=[A-Za-z])\s?['’](\d\d)\b")  # a venue's year written short: "ICLR'24", "NeurIPS ’25"
_ADMITTED_KEEP = 4  # filters whose admitted papers a Searcher keeps: a frozenset of 1M ids is ~32 MB


class FilterViews:
    """Part of Searcher: filters over the collection views (CollectionViews)."""

    def check_filters(self, filters: Filters) -> Filters:
        """Canonical venue spelling; unknown venue/year/author/topic -> QueryError naming the choices."""
        if filters.venue:
            venues = {v.lower(): v for v in self.venues()} | {s.lower(): s for s in self.venue_series()}
            parts = venue_parts(filters.venue)
            for part in parts:
                if part.lower() not in venues:
                    raise QueryError(f"Unknown venue {part!r}. Indexed venues: {', '.join(self.venues()) or 'none'}.")
            filters = replace(filters, venue=" or ".join(venues[part.lower()] for part in parts))
        if filters.year is not None and filters.year not in self.years():
            raise QueryError(f"No indexed papers from year {filters.year}. "
                             f"Indexed years: {', '.join(map(str, self.years()))}.")
        if filters.library and filters.library not in self.libraries():
            raise QueryError(f"No library {filters.library!r}. Libraries: {', '.join(self.libraries()) or 'none'}.")
        for name in ("author", "topic", "status"):
            value = getattr(filters, name)
            if value and not self._matching(name, value):
                raise QueryError(f"No indexed paper has {name} matching {value!r}. "
                                 f"Check the spelling or drop --{name}.")
        return filters

    def _authors_value(self, author: AuthorMatch) -> str:
        """The author filter for a match: the name; for several joined names, "A and B" (their joint papers) when
        they wrote one together, else "A or B" (each one's papers)."""
        names = [author.name, *author.others]
        joint = " and ".join(names)
        return joint if len(names) == 1 or self._matching("author", joint) else " or ".join(names)

    def _matching(self, name: str, value: str) -> set[str]:
        """Papers whose field matches: an author by full name or surname (else a part of the name; "A and B": by
        both, "A or B": by either), a topic by the labels (or "·" parts) it names whole, else by substring, a status
        exactly; case and accents ignored."""
        needle = fold(value)
        if name == "author" and (parts := re.split(r"\s+(?:and|or)\s+", value)) and len(parts) > 1:
            sets = [self._matching("author", part) for part in parts]
            return set.union(*sets) if re.search(r"\s+or\s+", value) else set.intersection(*sets)
        if name == "status":  # "Oral or Spotlight": either
            postings = self._postings("status")
            return set().union(*(postings.get(fold(s), set()) for s in re.split(r"\s+or\s+|\s*,\s*", value) if s))
        if name == "library":
            self.refresh()
            return self.index.catalog.in_library(value)
        if name == "topic":  # the labels it names whole, or one of their parts whole ("Robotics": "Robotics" and
            # "Applications · Robotics", not "… Transparency and Interpretability" for "Interpretability"); else within
            # the topic's text, or a phrase of its parts or keywords
            labels = self._postings("topic text")
            whole = {pid for text, ids in labels.items() if needle in (text, *label_parts(text)) for pid in ids}
            if whole:
                return whole
            within = {pid for text, ids in labels.items() if needle in text for pid in ids}
            return within | self.topic_index().papers_of(value)
        by_name = self._papers_by_author()
        exact = set(by_name.get(needle, ())) | self._papers_by_surname().get(needle, set())
        for spelled in self.authors().same_person(value):  # "James Zou" is also the indexed "James Y Zou"
            exact |= by_name.get(fold(spelled), set())
        # a part of a name: a scan
        return exact or {pid for name, ids in by_name.items() if needle in name for pid in ids}

    def filters_from_question(
        self, question: str, filters: Filters,
    ) -> tuple[Filters, list[str], AuthorMatch | None, TopicMatch | None]:
        """Venue, year, author, status and a topic area named as such ("in the vision area") become
        filters unless given explicitly. -> (filters, notes, the author match: also an ambiguous or
        unknown name, a topic label named without a cue: a hint for list answers, not a filter)."""
        filters, notes = self._venue_from_question(question, filters)
        author = topic = None
        if not filters.author:
            author = self.authors().find(question)
            if author and author.unknown and _cited_work(question, author.span) and self.names.mentions(author.span):
                # "does it get around the Foster et al. impossibility result?": a work the indexed abstracts cite,
                # named as the question's subject, not a request for that person's papers
                notes.append(f"{author.span} et al.: cited by indexed papers, no indexed author; searched as written")
                author = None
            if author and author.name:
                filters = _parsed(filters, notes, "author", self._authors_value(author))
        if not filters.status:
            status = status_in(question, self.statuses())
            if status:
                filters = _parsed(filters, notes, "status", status)
        if not filters.topic:
            topic = self.topic_index().find(question)
            if topic and topic.cued:
                filters, topic = _parsed(filters, notes, "topic", topic.span), None
        return filters, notes, author, topic

    def _venue_from_question(self, question: str, filters: Filters) -> tuple[Filters, list[str]]:
        notes: list[str] = []
        if filters.venue or filters.year:
            return filters, notes
        for venue in sorted(self.venues(), key=len, reverse=True):
            if re.search(rf"(?<![A-Za-z]){re.escape(venue)}(?![A-Za-z0-9])", question, re.I):
                return _parsed(filters, notes, "venue", venue), notes
        written = [*map(int, _YEAR.findall(question)), *(2000 + int(y) for y in _SHORT_YEAR.findall(question))]
        years = [y for y in written if y in self.years()]
        names = {v.split()[0].lower() for v in self.venues()}
        named = [n for n in names if re.search(rf"(?<![A-Za-z]){re.escape(n)}(?![A-Za-z])", question, re.I)]
        if len(named) == 1:
            def of_series(of_years) -> list[str]:  # the venues of that name, of any of these years
                return [v for v in self.venues()
                        if v.lower().startswith(named[0]) and (not of_years or any(str(y) in v for y in of_years))]
            choices = of_series(years[:1])
            if len(choices) == 1 and len(set(years)) > 1:  # "ICLR spotlights, 2024 and 2025": each year written
                return _parsed(filters, notes, "venue", " or ".join(sorted(of_series(set(years))))), notes
            if len(choices) == 1:
                return _parsed(filters, notes, "venue", choices[0]), notes
            series = {venue_year(v)[0] for v in choices}
            if not years and len(series) == 1 and series <= set(self.venue_series()):  # "NeurIPS": every year of it
                return _parsed(filters, notes, "venue", series.pop()), notes
        if len(years) == 1:
            return _parsed(filters, notes, "year", years[0]), notes
        return filters, notes

    def matching(self, filters: Filters) -> dict[str, dict]:
        """paper_id -> record of every paper the filters admit."""
        allowed = self.admitted(filters)
        meta = self.paper_meta()
        return dict(meta.items()) if allowed is None else meta.many(sorted(allowed))

    def with_words(self, text: str) -> set[str] | None:
        """Papers whose label, title, abstract, an author's name or topic has the words of `text` in a row (the
        last may be cut short: "autoenc" finds autoencoders), from the catalog's full-text tables and the topic
        postings; None when `text` has no words."""
        words = re.findall(r"\w+", text.lower())
        if not words:
            return None
        self.refresh()
        found = self.index.catalog.with_words(words)
        needle = fold(" ".join(words))
        found.update(pid for topic, ids in self._postings("topic text").items() if needle in topic for pid in ids)
        return found

    def counts(self, field: str, within: set[str] | None) -> Counter:
        """value -> papers with it among `within` (every paper when None), from the postings (no record read):
        field "venue", "year" (papers without one count under "?"), "status" or "library"."""
        if field == "library":
            self.refresh()
            return Counter({name: len(self.index.catalog.in_library(name) & within) if within is not None else n
                            for name, n in self.index.catalog.libraries().items()})
        if field == "status":
            postings = self._postings("status")
            values = {raw: postings.get(fold(raw), set()) for raw in self.statuses()}
        else:
            values = self._postings(field)
        out = Counter({str(v): len(ids) if within is None else len(ids & within) for v, ids in values.items()})
        if field != "status":
            out["?"] = (len(self.paper_meta()) if within is None else len(within)) - sum(out.values())
        return +out  # no zero counts

    def groups(self, key: str, within: set[str] | None) -> dict[str, set[str]]:
        """"venue" or "year" -> {value: ids of the papers among `within` (every paper when None) with it}, from the
        postings (no record read); the papers with none under "({key} unknown)", as compose.group_rows names them."""
        postings = self._postings(key)
        out = {str(v): set(ids) if within is None else ids & within for v, ids in postings.items()}
        out = {name: ids for name, ids in out.items() if ids}
        total = len(self.paper_meta()) if within is None else len(within)
        if sum(map(len, out.values())) < total:
            known = set().union(*out.values())
            everyone = within if within is not None else set(self.index.catalog.ids())
            out[f"({key} unknown)"] = everyone - known
        return out

    def admitted(self, filters: Filters) -> frozenset[str] | None:
        """Ids of the papers the filters admit (postings, no record read); None when no filter is set (every paper).
        The same frozenset for the same filters until the collection changes (the lexical index keeps its mask)."""
        if not filters.active():
            return None
        self.refresh()
        key = repr(sorted(filters.active().items()))
        kept = self._admitted_sets
        found = kept.get(key)
        if found is None:
            found = self._admitted(filters)
            with self._admitted_lock:
                if len(kept) >= _ADMITTED_KEEP:  # a server sees many filters: the oldest goes
                    kept.pop(next(iter(kept)), None)
                kept[key] = found
        return found

    def _admitted(self, filters: Filters) -> frozenset[str]:
        sets = []
        if filters.venue:
            postings = self._postings("venue")
            sets.append(set().union(*(postings.get(v, set()) for v in self.venue_values(filters.venue))))
        if filters.year is not None:
            sets.append(self._postings("year").get(filters.year, set()))
        for name in ("author", "topic", "status", "library"):
            if getattr(filters, name):
                sets.append(self._matching(name, getattr(filters, name)))
        sets.sort(key=len)
        return frozenset(sets[0]).intersection(*sets[1:])


def _cited_work(question: str, span: str) -> bool:
    """Whether the question writes the name as a reference ("the Foster et al. result") among other words."""
    return (re.search(rf"{re.escape(span)}\s+et al\b", question) is not None
            and names_a_topic(question, [span + " et al"]))


def _parsed(filters: Filters, notes: list[str], name: str, value) -> Filters:
    """A filter read from the question, noted as such (the UI offers to undo it)."""
    notes.append(f"filter from question: {name}={value}")
    return replace(filters, **{name: value})
