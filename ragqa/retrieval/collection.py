"""The Searcher's views of the collection (venues, years, topics, statuses, libraries, author and topic indexes,
postings, term statistics, sentence vectors), read from the writer's saved views or built from the catalog, and
rebuilt when a write changes it. Filtering by them is filtering.py's; searching is retrieve.py's."""
from __future__ import annotations

from ragqa.query import snapshot
from ragqa.query.metadata import AuthorIndex, TopicIndex
from ragqa.query.method_names import method_names
from ragqa.query.request import venue_parts, venue_year
from ragqa.query.views import VIEWS
from ragqa.store.records import PaperRecords


class CollectionViews:
    """Part of Searcher: its cached views of the collection (needs self.index, self.embedder and the state
    Searcher.__init__ sets)."""

    def refresh(self, saved_views: bool = True) -> None:
        """Re-read the catalog and the lexical index when a write changed the collection (from the writer's saved
        views when they are current, unless saved_views=False)."""
        # the catalog says what readers see: its write generation and revision, one-row reads that every write bumps
        # (revision: library changes too); its paper count, which completes the views' key, is counted only when they
        # moved (COUNT(*) scans the table: 30 ms at 740k papers, and a question refreshes ~8 times)
        catalog = self.index.catalog
        stamp = (catalog.generation(), catalog.revision())
        if stamp == self._bm25_count[1:]:
            return
        count = (catalog.count(), *stamp)
        # the saved BM25 index (memory-mapped); a store written before it is indexed in memory until the next ingest
        self._bm25 = self.index.lexical() or self.index.build_lexical()
        self._saved = snapshot.load(self._views_path, count) if saved_views else None
        self._meta = self.index.records()  # only catalogued papers exist for readers; read when asked for
        self._names = self._saved.names if self._saved is not None else method_names(self._meta)
        self._facets = {}  # from the saved views when first asked for (_facet), else built
        self._admitted_sets = {}
        self._bm25_count = count

    @property
    def _views_path(self):
        return snapshot.path_for(self.index.catalog.path)

    def save_views(self) -> None:
        """Build every view a question may need and save them for the next reader's cold start (writers only), unless
        the saved ones are for the catalog as it is (a write that changed nothing)."""
        catalog = self.index.catalog
        key = (catalog.count(), catalog.generation(), catalog.revision())
        if snapshot.is_current(self._views_path, key):
            return
        if not self._extend_views(key):
            self._build_views()
        catalog.views_saved(key[2])

    def _extend_views(self, key: tuple[int, int, int]) -> bool:
        """When the only change since the views were saved is papers added (Catalog.papers_added), extend the saved
        views by those papers' records and save them for `key`, as a build over every record would give them.
        -> False (nothing written) when they cannot be: another change, or a saved file that is not theirs."""
        added = self.index.catalog.papers_added()
        old = snapshot.saved_key(self._views_path)
        if added is None or old is None or old[2] != added[0] or old[0] + len(added[1]) != key[0]:
            return False
        saved = snapshot.load(self._views_path, old)
        if saved is None or not set(saved.facets()) <= set(VIEWS):
            return False
        facets = {name: saved.facet(name) for name in saved.facets()}
        if any(view is None for view in facets.values()):
            return False
        metas = self.index.records().slim(added[1])
        if len(metas) != len(added[1]):
            return False
        for name, view in facets.items():
            facets[name] = VIEWS[name].extend(view, metas)
        snapshot.save(self._views_path, key, method_names(metas, saved.names), facets)
        return True

    def _build_views(self) -> None:
        self.refresh(saved_views=False)  # from the catalog itself, never from an earlier file
        records = self._meta
        # one pass over the catalog feeds every view, not a pass each (~90 s each at 1M papers)
        self._meta = records.slim()
        try:
            self.venues(), self.years(), self.topics(), self.statuses(), self.libraries()
            self._postings("venue"), self._postings("year")
            self.authors(), self.topic_index(), self._papers_by_surname()
            self._postings("status"), self._postings("topic text")
        finally:
            self._meta = records
        self.authors().attach(records), self.topic_index().attach(records)  # their rare paths read whole records
        # the catalog's term table, read per question
        facets = {k: v for k, v in self._facets.items() if k != "term stats"}
        snapshot.save(self._views_path, self._bm25_count, self._names, facets)

    def paper_meta(self) -> PaperRecords:
        self.refresh()
        return self._meta

    def term_stats(self):
        """Document frequencies over the indexed papers (answerability's lexical features), looked up in the
        catalog's term table per question, never counted over every paper in this process."""
        from ragqa.text.terms import TermStats

        return self._facet("term stats", lambda metas: TermStats(metas, self.index.catalog.term_frequencies))

    @property
    def sentences(self):
        """Sentence vectors per paper, cached for the process."""
        if self._sentences is None:
            from ragqa.retrieval.sentence_cache import SentenceCache
            from ragqa.text.sentences import split_sentences

            self._sentences = SentenceCache(self.embedder, split_sentences)
        return self._sentences

    def _facet(self, name: str, build=None):
        """A view of the collection (views.py's, or build(paper_id -> record)), computed once per collection change."""
        self.refresh()
        if name not in self._facets:
            view = self._saved.facet(name) if self._saved is not None else None
            if view is None:
                view = build(self._meta) if build is not None else VIEWS[name].build(self._meta, self._facet)
            elif hasattr(view, "attach"):  # indexes that read records on a rare path get them back
                view.attach(self._meta)
            self._facets[name] = view
        return self._facets[name]

    def _postings(self, name: str) -> dict:
        """value -> ids of the papers that have it (views.py), once per collection change."""
        return self._facet(f"postings:{name}")

    def venues(self) -> list[str]:
        return self._facet("venue")

    def years(self) -> list[int]:
        return self._facet("year")

    def venue_series(self) -> dict[str, list[str]]:
        """A venue without its year ("NeurIPS") -> the indexed venues of that series ("NeurIPS 2017", "NeurIPS 2020"),
        for series indexed under more than one year or only under years (a filter on "NeurIPS" admits every year)."""
        series: dict[str, list[str]] = {}
        for venue in self.venues():
            name, year = venue_year(venue)
            if year:
                series.setdefault(name, []).append(venue)
        return {name: values for name, values in series.items() if name not in self.venues()}

    def venue_values(self, venue: str) -> list[str]:
        """The indexed venues a venue filter admits: itself, or every year of a series (venue_series); "A or B":
        those of each."""
        series = self.venue_series()
        return list(dict.fromkeys(v for part in venue_parts(venue) for v in series.get(part) or [part]))

    def topics(self) -> list[str]:
        return self._facet("topic")

    def _papers_by_author(self) -> dict[str, set[str]]:
        """Folded author name -> their papers, built once per collection change (not per question)."""
        return self._facet("authors by name")

    def _papers_by_surname(self) -> dict[str, set[str]]:
        """Folded surname -> papers of every author with it, once per collection change."""
        return self._facet("surnames")

    def authors(self) -> AuthorIndex:
        index = self._facet("author index")
        index.use_terms(self.term_stats().df)  # "is this word in the indexed texts?": the cached term-table look-up
        return index

    def topic_index(self) -> TopicIndex:
        return self._facet("topic index")

    def libraries(self) -> list[str]:
        return self._facet("library")

    def statuses(self) -> set[str]:
        return self._facet("status")
