"""Question (+filters, +history) -> ranked papers: dense (Chroma) + BM25, fused per paper.

Filters come from arguments or from the question itself ("ICML 2024 papers on ..."). Chinese
questions are translated by a caller-supplied function first. Answer generation lives elsewhere.
"""
from __future__ import annotations

import math
import re
import threading
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Callable

from llama_index.core import QueryBundle
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, TextNode

from ragqa.config import Settings
from ragqa.errors import QueryError
from ragqa.query import snapshot
from ragqa.query.intent import without_recency
from ragqa.query.metadata import AuthorIndex, AuthorMatch, TopicIndex, TopicMatch, fold, names_a_topic, status_in
from ragqa.query.names import greek
from ragqa.query.request import Filters, require_question  # noqa: F401  (also imported from here)
from ragqa.query.rewrite import both_turns
from ragqa.query.spelling import correct, corrections, english_words, slips
from ragqa.query.views import VIEWS  # noqa: F401
from ragqa.retrieval.hits import Hit
from ragqa.store.index import PaperIndex, PaperRecords
from ragqa.text.clean import CJK, method_name
from ragqa.text.terms import terms

_YEAR_SUFFIX = re.compile(r"\s+(?:19|20)\d\d$")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# a method name: an inner capital or a digit (LoRA, DPO, GPT-4, JKOnet*), or a capitalised word after "the"
_KIND = re.compile(r"-(?:style|like|type|based|inspired)$", re.I)  # "ROME-style": in the manner of ROME
_NAME = re.compile(r"(?<![\w-])(?:[A-Za-z][a-z0-9]*[A-Z0-9][\w-]*\*?|(?<=the )[A-Z][a-z]{2,})(?![\w-])")
_GENERIC = {"llm", "llms", "ml", "ai", "rl", "nlp", "gnn", "gnns", "cnn", "cnns", "rnn", "rnns", "vae", "vaes", "gan",
            "gans", "sae", "saes", "mlp", "mlps", "sgd", "pde", "pdes", "ode", "odes", "kv", "qa", "vqa", "api", "gpu",
            "cpu", "iclr", "icml", "neurips", "acl", "cvpr", "emnlp", "aaai", "ood", "iid", "vlm", "vlms", "3d", "2d"}
# a run of capitalised words: a name of two or three words after a lowercase word is a method name
# (Stable Diffusion, Neural Radiance Fields); longer runs are title-cased text, not names
_ACRONYM = re.compile(r"[A-Z]+(?:-[A-Z]+)*")  # TRACE, CMA-ES: an acronym, hyphenated or not
_CAPS = re.compile(r"(?<![\w-])[A-Z][\w-]+(?: [A-Z][\w-]+)+(?![\w-])")


@dataclass
class SearchResult:
    question: str
    query: str  # what was actually searched (condensed / translated)
    filters: Filters
    hits: list[Hit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing_name: str | None = None  # a method the question names that no indexed paper introduces / mentions
    missing_verb: str = ""  # "introduces" or "mentions"
    rewritten: bool = False  # a follow-up became a standalone question (not left as is, not searched with both turns)
    from_history: bool = False  # the conversation changed the search query (a rewrite or both turns; not a translation)
    author: "AuthorMatch | None" = None  # the author the question names (or an ambiguous / unknown one)
    names_topic: bool = True  # False: the question asks only about metadata ("What did X publish here?")
    topic: "TopicMatch | None" = None  # the whole subject is a topic label or keyword ("Which papers study robustness?")

    @property
    def top_relevance(self) -> float:
        return max((h.relevance for h in self.hits if h.relevance is not None), default=0.0)


class HybridRetriever(BaseRetriever):
    """llama-index retriever: one NodeWithScore per paper (its best chunk), RRF-fused score."""

    def __init__(self, searcher: "Searcher", filters: Filters, k: int, own_words: str = ""):
        super().__init__()
        self._searcher, self._filters, self._k, self._own_words = searcher, filters, k, own_words

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._searcher.fuse(query_bundle.query_str, self._filters, self._k, self._own_words)


def name_key(text: str, cased: bool = False) -> str:
    """How a method name is matched however it is typed: Unicode-folded (G²N² -> G2N2), markup and brackets
    dropped (G$^2$N$^2$, G^2N^2 -> g2n2; SF(DA)$^2$ -> sfda2), lower-cased unless `cased`; letters, digits, -, *, +
    and Greek kept (LoRA+ is not LoRA)."""
    folded = unicodedata.normalize("NFKC", greek(text))
    return re.sub(r"[^\w\-*+α-ωΑ-Ω]|_", "", folded if cased else folded.lower())


# a name an abstract introduces, matched in any case when it holds one of these (JKOnet*, CRATE-α, HiBug2), else as written
_UNWORDLIKE = re.compile(r"[\d*+α-ωΑ-Ω]")


def _method_names(metas: dict[str, dict], names: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Method names -> papers, for name look-ups: a title's leading name ("DRAGON: ...") and an untitled paper's
    label (DRAGON, JKOnet*), in any case (name_key); the name a titled paper's abstract introduces (its label: BOSS,
    DFR-Det), under "~" + name_key when it holds a digit, star, plus or Greek letter, else under "=" + the name as
    written (BOSS, TRACE and GMG are not boss, trace and gmg). The Searcher takes these last two only when the name
    is the paper's own (few papers carry it: not DNA, GPT-4 or In-Context). Extends `names` (papers added after
    those it holds, in catalog order) when given."""
    names = {} if names is None else names
    touched = set()
    for pid, meta in metas.items():
        label = meta.get("label") or ""
        if 3 <= len(label) <= 30 and " " not in label and "…" not in label:
            if not meta.get("title"):
                key = name_key(label)
            else:
                key = "~" + name_key(label) if _UNWORDLIKE.search(label) else "=" + name_key(label, cased=True)
            names.setdefault(key, []).append(pid)
            touched.add(key)
        name = method_name(meta.get("title"))
        if name and " " not in name and len(name_key(name)) >= 2:
            names.setdefault(name_key(name), []).append(pid)
            touched.add(name_key(name))
    for key in touched:
        names[key] = list(dict.fromkeys(names[key]))
    return names


_NAME_RUN = re.compile(r"[\w\-*+α-ωΑ-Ω]+")  # a run of the characters a name is written with (JKOnet*'s, CRATE-α)


def name_like_words(text: str) -> list[str]:
    """The words of `text` written as names (name_like), each once, in order."""
    return [w for w in dict.fromkeys(w.strip("-") for w in _NAME_RUN.findall(text)) if name_like(w)]


def name_like(word: str) -> bool:
    """A word written as a method name: a capital, digit, star or Greek letter after its first character (InstructGPT,
    SAE-2, JKOnet*, Wasserstein-GAN) or a single-letter part (p-annealing, t-SNE); not an English word, nor a hyphenated
    compound of lower-case words (self-supervised, neuro-symbolic, offline-to-online).
    Nor a number (2022) or the plural of an acronym (SAEs, LLMs: a kind of thing, as clean.py's labels hold)."""
    if len(name_key(word)) < 4 or word.lower() in english_words() or not re.search(r"[^\W\d_]", word):
        return False
    if re.fullmatch(r"[A-Z]+s", word):
        return False
    if re.search(r".[A-Z0-9*+α-ωΑ-Ω]", word):
        return True
    return bool(re.search(r"(?:^|-)[a-z]-|-[a-z]$", word))  # a variable for a part: p-annealing, k-means, h-consistency


# at most this many indexed papers may carry a name an abstract introduces for it to name that paper (its own, and a
# paper that cites or compares with it); a design choice, not fitted
_OWN_NAME = 2


_ADMITTED_KEEP = 4  # filters whose admitted papers a Searcher keeps: a frozenset of 1M ids is ~32 MB


class Searcher:
    """Holds the index, the embedder and a BM25 view of the same chunks (rebuilt on change)."""

    def __init__(self, settings: Settings, index: PaperIndex, embedder: BaseEmbedding):
        self.settings, self.index, self.embedder = settings, index, embedder
        self._bm25 = None
        self._bm25_count: tuple[int, ...] = (-1, -1, -1)
        self._meta: dict[str, dict] = {}
        self._names: dict[str, list[str]] = {}
        self._facets: dict[str, object] = {}  # views of the collection (venues, author index, ...) until it changes
        self._saved: snapshot.SavedViews | None = None  # the writer's saved views for this collection, read as asked for
        self._sentences = None
        self._admitted_sets: dict[str, frozenset[str]] = {}  # filters -> the papers they admit, until the collection changes
        self._admitted_lock = threading.Lock()  # the UI's threads share one Searcher

    # -- cached views of the collection -------------------------------------------------
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
        self._names = self._saved.names if self._saved is not None else _method_names(self._meta)
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
        snapshot.save(self._views_path, key, _method_names(metas, saved.names), facets)
        return True

    def _build_views(self) -> None:
        self.refresh(saved_views=False)  # from the catalog itself, never from an earlier file
        records = self._meta
        self._meta = records.slim()  # one pass over the catalog feeds every view, not a pass each (~90 s each at 1M papers)
        try:
            self.venues(), self.years(), self.topics(), self.statuses(), self.libraries()
            self._postings("venue"), self._postings("year")
            self.authors(), self.topic_index(), self._papers_by_surname()
            self._postings("status"), self._postings("topic text")
        finally:
            self._meta = records
        self.authors().attach(records), self.topic_index().attach(records)  # their rare paths read whole records
        facets = {k: v for k, v in self._facets.items() if k != "term stats"}  # the catalog's term table, read per question
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
            name = _YEAR_SUFFIX.sub("", venue)
            if name != venue:
                series.setdefault(name, []).append(venue)
        return {name: values for name, values in series.items() if name not in self.venues()}

    def venue_values(self, venue: str) -> list[str]:
        """The indexed venues a venue filter admits: itself, or every year of a series (venue_series)."""
        return self.venue_series().get(venue) or [venue]

    def topics(self) -> list[str]:
        return self._facet("topic")

    # -- filters ------------------------------------------------------------------------
    def check_filters(self, filters: Filters) -> Filters:
        """Canonical venue spelling; unknown venue/year/author/topic -> QueryError naming the choices."""
        if filters.venue:
            venues = {v.lower(): v for v in self.venues()} | {s.lower(): s for s in self.venue_series()}
            if filters.venue.lower() not in venues:
                raise QueryError(f"Unknown venue {filters.venue!r}. Indexed venues: {', '.join(self.venues()) or 'none'}.")
            filters = replace(filters, venue=venues[filters.venue.lower()])
        if filters.year is not None and filters.year not in self.years():
            raise QueryError(f"No indexed papers from year {filters.year}. Indexed years: {', '.join(map(str, self.years()))}.")
        if filters.library and filters.library not in self.libraries():
            raise QueryError(f"No library {filters.library!r}. Libraries: {', '.join(self.libraries()) or 'none'}.")
        for name in ("author", "topic", "status"):
            value = getattr(filters, name)
            if value and not self._matching(name, value):
                raise QueryError(f"No indexed paper has {name} matching {value!r}. Check the spelling or drop --{name}.")
        return filters

    def _matching(self, name: str, value: str) -> set[str]:
        """Papers whose field matches: an author by full name or surname (else a part of the name),
        a topic by substring, a status exactly; case and accents ignored."""
        needle = fold(value)
        if name == "status":
            return set(self._postings("status").get(needle, ()))
        if name == "library":
            self.refresh()
            return self.index.catalog.in_library(value)
        if name == "topic":  # within the topic's text, or a phrase of its parts or keywords
            within = {pid for text, ids in self._postings("topic text").items() if needle in text for pid in ids}
            return within | self.topic_index().papers_of(value)
        by_name = self._papers_by_author()
        exact = set(by_name.get(needle, ())) | self._papers_by_surname().get(needle, set())
        return exact or {pid for name, ids in by_name.items() if needle in name for pid in ids}  # a part of a name: a scan

    def _papers_by_author(self) -> dict[str, set[str]]:
        """Folded author name -> their papers, built once per collection change (not per question)."""
        return self._facet("authors by name")

    def _papers_by_surname(self) -> dict[str, set[str]]:
        """Folded surname -> papers of every author with it, once per collection change."""
        return self._facet("surnames")

    def authors(self) -> AuthorIndex:
        return self._facet("author index")

    def topic_index(self) -> TopicIndex:
        return self._facet("topic index")

    def libraries(self) -> list[str]:
        return self._facet("library")

    def statuses(self) -> set[str]:
        return self._facet("status")

    def filters_from_question(self, question: str, filters: Filters) -> tuple[Filters, list[str], AuthorMatch | None, TopicMatch | None]:
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
                filters = _parsed(filters, notes, "author", author.name)
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
        years = [int(y) for y in _YEAR.findall(question) if int(y) in self.years()]
        names = {v.split()[0].lower() for v in self.venues()}
        named = [n for n in names if re.search(rf"(?<![A-Za-z]){re.escape(n)}(?![A-Za-z])", question, re.I)]
        if len(named) == 1:
            choices = [v for v in self.venues() if v.lower().startswith(named[0]) and (not years or str(years[0]) in v)]
            if len(choices) == 1:
                return _parsed(filters, notes, "venue", choices[0]), notes
            series = {_YEAR_SUFFIX.sub("", v) for v in choices}
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

    def counts(self, field: str, within: set[str] | None) -> "Counter":
        """value -> papers with it among `within` (every paper when None), from the postings (no record read):
        field "venue", "year" (papers without one count under "?"), "status" or "library"."""
        from collections import Counter

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

    # -- retrieval ------------------------------------------------------------------------
    def _dense(self, query: str, filters: Filters, allowed: set[str] | None) -> list[NodeWithScore]:
        """The chunks nearest the question, read from Chroma in two steps: ids and distances, then the text and
        metadata of the chunks kept (llama-index's retriever reads both for every chunk fetched: ~0.2 ms a chunk,
        where the nearest ids alone cost ~8 ms for 1,000 at 100k papers). Scored exp(-distance), as llama-index's
        ChromaVectorStore scores them (the answerability calibration was fitted on these)."""
        embedding = self.embedder.get_query_embedding(query)
        ranked = self._post_filtered(embedding, allowed) if allowed is not None else None
        if ranked is None:
            ranked = self._nearest(embedding, self.settings.candidates, self._where(filters, allowed))
        nodes = self._chunks([cid for cid, _ in ranked])
        return [NodeWithScore(node=nodes[cid], score=math.exp(-distance)) for cid, distance in ranked if cid in nodes]

    def _nearest(self, embedding: list[float], n: int, where: dict | None = None) -> list[tuple[str, float]]:
        """(chunk id, distance) of the n nearest chunks (fewer when the collection or the filter has fewer)."""
        got = self.index.collection.query(query_embeddings=[embedding], n_results=max(1, n), where=where, include=["distances"])
        return list(zip(got["ids"][0], got["distances"][0]))

    def _where(self, filters: Filters, allowed: set[str] | None) -> dict | None:
        """Chroma's `where` for the filters: venue and year by the chunks' own keys, the rest by admitted paper."""
        conditions = []
        if filters.venue:
            values = self.venue_values(filters.venue)
            conditions.append({"venue": values[0]} if len(values) == 1 else {"venue": {"$in": values}})
        if filters.year is not None:
            conditions.append({"year": filters.year})
        if (filters.author or filters.topic or filters.status or filters.library) and allowed is not None:
            conditions.append({"paper_id": {"$in": sorted(allowed) or ["-"]}})
        return None if not conditions else conditions[0] if len(conditions) == 1 else {"$and": conditions}

    def _post_filtered(self, embedding: list[float], allowed: set[str]) -> list[tuple[str, float]] | None:
        """The filtered nearest chunks as the unfiltered ranking's first chunks of admitted papers: exact whenever
        enough of them are among the chunks fetched (or every chunk was), and cheaper than Chroma's `where`, which
        reads every admitted chunk's metadata first (~190 ms for a venue at 100k papers). The fetch grows as the
        filter narrows (`candidates` / admitted share, doubled); past `Settings.dense_post_filter_max` chunks, or
        when too few admitted chunks came back, None: the caller filters in Chroma."""
        want = self.settings.candidates
        share = len(allowed) / max(1, len(self._meta))
        fetch = int(2 * want / share) + 1 if share else self.settings.dense_post_filter_max + 1
        if fetch > self.settings.dense_post_filter_max:
            return None
        ranked = self._nearest(embedding, fetch)
        kept = [(cid, d) for cid, d in ranked if cid.rsplit(":", 1)[0] in allowed]  # chunk ids are "<paper_id>:<n>"
        if len(kept) >= want or len(ranked) < fetch:
            return kept[:want]
        return None

    def _chunks(self, ids: list[str]) -> dict:
        """chunk id -> its llama-index TextNode, read from Chroma by id."""
        from llama_index.core.vector_stores.utils import metadata_dict_to_node

        if not ids:
            return {}
        got = self.index.collection.get(ids=ids, include=["documents", "metadatas"])
        return {cid: metadata_dict_to_node(meta, text=doc) for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"])}

    def _sparse(self, query: str, allowed: set[str] | None) -> list[NodeWithScore]:
        """BM25 chunks (only catalogued papers, within `allowed`), fetched from Chroma by id."""
        if self._bm25 is None or not re.search(r"[A-Za-z0-9]", query):
            return []
        papers = None  # no mask unless filtered or the lexical index holds papers the catalog no longer has
        orphans = len(self._meta) < len(self._bm25.paper_ids)
        if allowed is not None:
            papers = allowed & set(self._meta) if orphans else allowed  # filters admit only catalogued papers
        elif orphans:
            papers = set(self._meta)
        ranked = self._bm25.search(query, self.settings.candidates, papers)
        if not ranked:
            return []
        nodes = self._chunks([cid for cid, _ in ranked])
        return [NodeWithScore(node=nodes[cid], score=score) for cid, score in ranked if cid in nodes]

    def missing_name(self, query: str, phrases: bool = True) -> tuple[str, str] | None:
        """A method name in the question that no indexed paper can speak for: either the question asks
        for its own paper ("the LoRA paper", "the Adam optimizer paper", "which paper introduced DPO",
        "originally proposed the Mamba ...", "BERT ... its original paper") and no indexed paper is
        named so or introduces it, or the name (with an inner capital or digit: InstructGPT, GPT-4;
        or two or three capitalised words mid-sentence: Stable Diffusion) appears in no indexed paper
        at all (abstract, title or authors). phrases=False skips the capitalised-words rule, for a
        machine translation, which capitalises its own renderings ("Visual Transformer" for 视觉Transformer).
        -> (name, "introduces" | "mentions"), or None."""
        query = CJK.sub(" ", query)  # LoRA论文 -> LoRA
        words = set(terms(query))
        for name in dict.fromkeys(_NAME.findall(query)):
            head, _, tail = name.rpartition("-")
            # "RL-trained", "KL-regularized", "ImageNet-size": a kind of thing made from a name (a lower-case word after
            # it); the name is the part looked up
            looked = head if head and tail.isalpha() and tail.islower() else name
            if looked.lower() in _GENERIC:
                continue
            n = re.escape(name)
            asks = (rf"\b{n}(?:\s+[\w-]+)?\s+paper\b", rf"\b{n}\b[^.?]{{0,60}}\b(?:its|their)\s+original\s+paper\b",
                    rf"\b(?:introduc|propos|present|invent)\w*\s+(?:the\s+|an?\s+)?(?:original\s+|first\s+)?{n}(?![\w-])",
                    rf"\boriginal(?:ly)?\s+(?:\w+\s+){{0,3}}{n}(?![\w-])")
            # a bare acronym among other topic words ("a benchmark for smartphone GUI agents") may name a kind of thing as
            # well as a method: unless the question asks for its paper (below), the answerability model weighs it as a
            # word no paper has. Alone ("What is TRACE and what does it do?") it stays a name: on the ICML 2024
            # calibration index, letting such questions through answered 42 more of 168 near-misses
            # (evals/experiments/acronym_gate.py)
            # so may a name that only says what kind of thing is meant ("ROME-style edits", "a GAN-like model")
            acronym = ((_ACRONYM.fullmatch(looked) or _KIND.search(name))
                       and len(words - {name.lower(), looked.lower()}) >= 2)
            if re.search(r".[A-Z0-9]", looked) and not acronym and not self.names.mentions(looked):
                return name, "mentions"
            if any(re.search(a, query, re.I) for a in asks) and not self.names.introduces(name):
                return name, "introduces"
        for run in _CAPS.finditer(query) if phrases else ():
            before = query[:run.start()].split()[-1:]  # mid-sentence: after a lower-case word that ends no sentence
            mid = before and before[0].rstrip(",:").islower() and not before[0].endswith((".", "?", "!"))
            if mid and run[0].count(" ") <= 2 and not self.names.mentions(run[0]):
                return run[0], "mentions"
        return None

    @property
    def names(self):
        """The name index (names.py): full-text look-ups on the catalog, written at ingest."""
        from ragqa.query.names import NameIndex

        return NameIndex(self.index.catalog, self._papers_by_surname)

    def _named_in(self, query: str, allowed: set[str] | None) -> list[str]:
        """Papers whose method name the question uses (_method_names), each word taken as typed (SF(DA)^2?) and as
        its runs of name characters (JKOnet*'s)."""
        query = CJK.sub(" ", query)  # JKOnet*学到了什么 -> JKOnet*
        typed = query.split() + _NAME_RUN.findall(query)
        found = self._spelled(typed)
        introduced = {k: w for w in typed for k in ("~" + name_key(w), "=" + name_key(w, cased=True)) if k in self._names}
        # a name typed in lower case ("flipad" for FLIPAD) or one slip off ("difaug" for DiffAug), when it is no English
        # word (boss, trace): the search-box way of writing a name
        lowered = self._lowered_names()
        for word in {w for w in typed if len(w) >= 4 and w.isalpha() and w.islower() and w not in english_words()
                     and w not in self._names}:
            hits = {lowered[k] for k in [word, *(slips(word) if len(word) >= 6 else ())] if k in lowered}
            if len(hits) == 1:
                key = hits.pop()
                if key.startswith("="):  # introduced by an abstract: its paper's own name? checked below, as typed names are
                    introduced[key] = key[1:]
                else:
                    found += self._names[key]
        for key, word in introduced.items():  # a name an abstract introduces counts when it is that paper's own (one look-up a name)
            if self.names.mentioned_by(word, _OWN_NAME + 1) <= _OWN_NAME:
                found += self._names[key]
        # any other word written as a name ("p-annealing", "t-SNE", "InstructGPT") names the paper whose abstract
        # introduces it, when that is its own (at most _OWN_NAME papers carry it): every name an abstract introduces, not
        # only its label
        for word in name_like_words(query):
            if not any(k in self._names for k in (name_key(word), "~" + name_key(word), "=" + name_key(word, cased=True))):
                found += self.names.own_papers(word, _OWN_NAME)
        return [p for p in dict.fromkeys(found) if allowed is None or p in allowed]

    def _spelled(self, typed: list[str]) -> list[str]:
        """Papers whose title's leading name (or untitled label) a typed word spells, in any case; a name that is also an
        English word in lower case (AND, LESS, MOMENT, REST: 121 ICML/ICLR 2024 titles lead with one) only as the title
        writes it, or every "and" named the AND paper."""
        found, english = [], english_words()
        for word in dict.fromkeys(typed):
            key = name_key(word)
            pids = self._names.get(key, ())
            if pids and key in english:
                written, records = name_key(word, cased=True), self._meta.many(list(pids))
                pids = [p for p in pids if p in records and written == name_key(
                    method_name(records[p].get("title")) or records[p].get("label") or "", cased=True)]
            found += pids
        return found

    def _lowered_names(self) -> dict[str, str]:
        """Lower-cased method name -> its key in the name table, for names with no marks of their own (no digit, star
        or Greek letter), once per collection change."""
        return self._facet("lowered names", lambda _: {k.lstrip("=").lower(): k for k in self._names
                                                        if not k.startswith("~") and k.lstrip("=").isalpha()})

    def fuse(self, query: str, filters: Filters, k: int, own_words: str = "") -> list[NodeWithScore]:
        """Reciprocal-rank fusion at paper level; each paper keeps its best-ranked chunk. A paper named in the query,
        or in `own_words` (the user's question before a translation or rewrite, which may drop a name's star), comes first."""
        self.refresh()
        allowed = self.admitted(filters)
        mode = self.settings.retrieval_mode
        dense = self._dense(query, filters, allowed) if mode in ("hybrid", "dense") else []
        sparse = self._sparse(query, allowed) if mode in ("hybrid", "bm25") else []
        scores: dict[str, float] = {}
        best: dict[str, tuple[int, NodeWithScore]] = {}
        cosine: dict[str, float] = {}
        for weight, ranked, is_dense in ((self.settings.dense_weight, dense, True), (self.settings.bm25_weight, sparse, False)):
            seen: set[str] = set()
            known = self._meta.many([h.node.metadata["paper_id"] for h in ranked])
            ranked = [h for h in ranked if h.node.metadata["paper_id"] in known]  # written since refresh, or orphaned
            for rank, hit in enumerate(ranked):
                pid = hit.node.metadata["paper_id"]
                if is_dense:
                    cosine[pid] = max(cosine.get(pid, -1.0), hit.score or 0.0)
                if pid in seen:
                    continue
                seen.add(pid)
                scores[pid] = scores.get(pid, 0.0) + weight / (self.settings.rrf_k + rank + 1)
                if pid not in best or rank < best[pid][0]:
                    best[pid] = (rank, hit)
        for pid in dict.fromkeys(self._named_in(query, allowed) + (self._named_in(own_words, allowed) if own_words else [])):
            if pid not in best:
                node = self.index.collection.get(ids=[f"{pid}:0"], include=["documents", "metadatas"])
                best[pid] = (0, NodeWithScore(node=TextNode(id_=f"{pid}:0", text=node["documents"][0], metadata=node["metadatas"][0]), score=0.0))
            scores[pid] = scores.get(pid, 0.0) + 1.0
            cosine[pid] = 1.0
        written = _plain(f"{query} {own_words}")
        for pid, (_, hit) in best.items():  # a title the question writes out names its paper as a method name does
            if cosine.get(pid) != 1.0 and _writes_title(written, hit.node.metadata.get("title") or ""):
                scores[pid] = scores.get(pid, 0.0) + 1.0
                cosine[pid] = 1.0
        ranked_ids = sorted(scores, key=lambda p: (-scores[p], p))[:k]
        out = []
        for pid in ranked_ids:
            node = best[pid][1].node
            node.metadata["_relevance"] = cosine.get(pid)
            out.append(NodeWithScore(node=node, score=scores[pid]))
        return out


def _plain(text: str) -> str:
    return " " + " ".join(re.findall(r"[^\W_]+", text.lower())) + " "


def _writes_title(plain_question: str, title: str) -> bool:
    """The question holds the paper's title, or the part before its colon, of at least three words and 20 letters
    ("Vision Transformers Need Registers 这篇论文…"): a paper named as surely as by its method name."""
    for part in dict.fromkeys([title, title.split(":", 1)[0]]):
        plain = _plain(part)
        if len(plain.split()) >= 3 and len(plain) >= 22 and plain in plain_question:
            return True
    return False


def _cited_work(question: str, span: str) -> bool:
    """Whether the question writes the name as a reference ("the Foster et al. result") among other words."""
    return re.search(rf"{re.escape(span)}\s+et al\b", question) is not None and names_a_topic(question, [span + " et al"])


def _parsed(filters: Filters, notes: list[str], name: str, value) -> Filters:
    """A filter read from the question, noted as such (the UI offers to undo it)."""
    notes.append(f"filter from question: {name}={value}")
    return replace(filters, **{name: value})


def _topic_of_translation(searcher, question, query, filters, spans, notes):
    """A Chinese question's topic area or keyword, read from its translation. -> (filters, topic hint)."""
    from ragqa.query.metadata import ZH_CUE

    topic = searcher.topic_index().find(query)
    if topic is None:
        return filters, None
    if topic.cued or ZH_CUE.search(question):
        return searcher.check_filters(_parsed(filters, notes, "topic", topic.span)), None
    return filters, _whole_subject(topic, query, spans, notes)


def _whole_subject(topic: TopicMatch | None, text: str, spans: list[str], notes: list[str]) -> TopicMatch | None:
    """The label, if it is all the question asks about ("Which papers study robustness?"), noted;
    None when it is only part of it ("robustness of deep learning models")."""
    if topic is None or names_a_topic(text, spans + [topic.span]):
        return None
    n = len(topic.papers | topic.titled)  # as the answer's lead counts them: topic, keywords or title
    notes.append(f"topic label from question: {topic.span} ({n} paper{'s carry' if n != 1 else ' carries'} it)")
    return topic


def _without(text: str, spans: list[str]) -> str:
    for span in spans:
        text = re.sub(re.escape(span), " ", text, flags=re.I)
    return text


def search(
    searcher: Searcher, question: str, filters: Filters | None = None, k: int | None = None,
    history: list[str] | None = None, rewrite: Callable[[str, list[str]], str] | None = None,
    translate: Callable[[str], str] | None = None, auto_filters: bool = True,
) -> SearchResult:
    """The search entry point used by the CLI, the answerer, the UI and the evals."""
    question = require_question(question, searcher.settings.max_question_chars)
    filters = filters or Filters()
    notes: list[str] = []
    author = topic = None
    if auto_filters:
        filters, notes, author, topic = searcher.filters_from_question(question, filters)
    filters = searcher.check_filters(filters)
    spans = [author.span if author else "", *(str(v) for v in filters.active().values())]
    if auto_filters and author:  # "work by Hidenori Tanaka and Ekdeep Singh Lubana": people, no subject
        spans += searcher.authors().full_names(question)
    topical = names_a_topic(question, spans)
    topic = _whole_subject(topic, question, spans, notes)
    query, rewritten = question, False
    if history:
        fallback = both_turns(history, question)
        query = rewrite(question, history) if rewrite else fallback
        rewritten = query not in (question, fallback)
        if query != question:
            notes.append(f"standalone question: {query}")
    from_history = query != question  # before any translation: a Chinese question's English query is no rewrite
    metadata_only = not topical and bool(filters.active()) and not history  # "Yoshua Bengio 发表了哪些论文？"
    if CJK.search(query) and not metadata_only:
        if translate is not None:
            query = translate(query)
            notes.append(f"translated: {query}")
            if auto_filters and not filters.topic and not topic and not history:  # 可解释性领域 -> "interpretability area"
                filters, topic = _topic_of_translation(searcher, question, query, filters, spans, notes)
                if filters.topic:  # the area named in Chinese: what is left of the translation says if more is asked
                    topical = names_a_topic(query, [*spans, filters.topic])
        else:
            notes.append("Chinese question searched untranslated (no LLM available): results may be poor")
    topic_words = without_recency(query)  # "the latest papers on X": the order of the answer, not its subject
    if topic_words != query:
        query = topic_words
        notes.append(f"searched without its recency words: {query}")
    fixes = corrections(query, searcher.index.catalog.term_frequencies, english_words())
    if fixes:  # "concept bottlenck models": a word no paper has, one slip from one that several have
        query = correct(query, fixes)
        notes.append("spelling: " + ", ".join(f"{typed} -> {meant}" for typed, meant in fixes.items()))
    retriever = HybridRetriever(searcher, filters, k or searcher.settings.top_k, own_words=question if query != question else "")
    records = searcher.paper_meta()
    hits = [
        Hit(paper_id=n.node.metadata["paper_id"], score=n.score or 0.0, relevance=n.node.metadata.pop("_relevance", None),
            text=n.node.get_content(), meta={**records[n.node.metadata["paper_id"]], **n.node.metadata})
        for n in retriever.retrieve(query)
    ]
    # the user's own words too: a rewrite or translation may drop or expand the name
    translated = CJK.search(question) is not None
    # what the question names of the collection's own values is no unknown name: an author the filters matched (folded:
    # "Szepesvári" is the indexed "Szepesvari"), a filter's value, a topic label or keyword ("Social Aspects · …")
    known = [author.span] if author is not None and author.name and author.span else []
    known += [str(v) for v in filters.active().values()] + ([topic.span] if topic is not None else [])
    name, verb = (searcher.missing_name(_without(query, known), phrases=not translated)
                  or (query != question and searcher.missing_name(_without(question, known))) or (None, ""))
    if name:
        notes.append(f"no indexed paper {verb} {name}")
    return SearchResult(question=question, query=query, filters=filters, hits=hits, notes=notes,
                        missing_name=name, missing_verb=verb, rewritten=rewritten, from_history=from_history, author=author, topic=topic,
                        names_topic=topical or not filters.active() or bool(history))

