"""The wiring: Settings -> store, embedder, searcher, LLMs -> ingest / search / ask.

Read this file to see every stage and where it lives. Models load lazily, once per process.
"""
from __future__ import annotations

import logging
import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ragqa.config import Settings
from ragqa.ingest.corpus import load_paths
from ragqa.ingest.listing import load_manifest
from ragqa.ingest.paper import LoadReport
from ragqa.models.weights import embed_name
from ragqa.store.index import PaperIndex
from ragqa.store.ingesting import IngestReport

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ragqa.answer.conversation import Conversation
    from ragqa.answer.records import Answer
    from ragqa.retrieval.retrieve import Filters, Searcher, SearchResult


class Pipeline:
    def __init__(self, settings: Settings | None = None, embedder=None, llm=None, fast_llm=None, calibration=None,
                 ingest_embedder=None, rewrite_llm=None):
        self.settings = settings or Settings()
        if calibration is not None:
            self.calibration = calibration
        self._embedder, self._llm, self._fast_llm = embedder, llm, fast_llm
        self._ingest_embedder = ingest_embedder if ingest_embedder is not None else embedder  # one given: it does both
        self._rewrite_llm = rewrite_llm if rewrite_llm is not None else fast_llm
        self._lock = threading.Lock()
        self.translations: dict[str, str] = {}  # question -> English; deterministic, so cached
        self.rewrite_cache: Path | None = None  # evaluations: translations and rewrites kept on disk (rewrite_llm)
        self._cached_rewrites = None
        self._sized: tuple = (None, 0, None)  # (calibration, papers, its points for that size): collection_calibration

    def use_llms(self, llm, fast_llm=None, rewrite_llm=None) -> "Pipeline":
        """Swap the LLM stages: `llm` answers, and also does the fast model's and the question rewriter's work unless
        `fast_llm` or `rewrite_llm` is given (a scripted model in tests, the packaged one in an evaluation)."""
        with self._lock:
            self._llm = llm
            self._fast_llm = fast_llm if fast_llm is not None else llm
            self._rewrite_llm = rewrite_llm if rewrite_llm is not None else self._fast_llm
        return self

    # -- stages, loaded on first use ----------------------------------------------------------
    @property
    def embedder(self):
        """Embeds questions and evidence sentences (Settings.query_backend)."""
        with self._lock:
            if self._embedder is None:
                from ragqa.models.weights import load_embedder

                self._embedder = load_embedder(self.settings, queries=True)
        return self._embedder

    @property
    def ingest_embedder(self):
        """Embeds chunks at ingest (Settings.embed_backend); the query embedder when both use one backend."""
        from ragqa.models.weights import embed_backend, load_embedder

        if self._ingest_embedder is None and embed_backend(self.settings) == embed_backend(self.settings, queries=True):
            self._ingest_embedder = self.embedder
        with self._lock:
            if self._ingest_embedder is None:
                self._ingest_embedder = load_embedder(self.settings)
        return self._ingest_embedder

    @cached_property
    def embed_name(self) -> str:
        return embed_name(self.settings)

    def index(self, create: bool = False) -> PaperIndex:
        return PaperIndex(self.settings, self.embed_name, create=create)

    @cached_property
    def profile(self):
        """The model profile: which guards repair this LLM's drafts (guards.py)."""
        from ragqa.answer.guards import profile_for

        return profile_for(self.settings)

    @cached_property
    def searcher(self) -> "Searcher":
        if self._embedder is None:  # the ONNX session opens while the store's and retrieve's imports run
            from ragqa.models.weights import prefetch_embedder

            prefetch_embedder(self.settings)
        index = self.index(create=False)
        index.require_nonempty()
        if not self.settings.chroma_host:  # an embedded store loads its vector index on the first query: start it now,
            # before llama-index's imports (retrieve), which it overlaps
            threading.Thread(target=index.load_vectors, name="ragqa-load-vectors").start()
        from ragqa.retrieval.retrieve import Searcher

        return Searcher(self.settings, index, self.embedder)

    @cached_property
    def calibration(self):
        """The answerability model's weights and operating points (answerability.py)."""
        from ragqa.answer.answerability import load_calibration

        return load_calibration(self.settings, self.embed_name, self.profile.name)

    def collection_calibration(self):
        """The answerability calibration with its answered point for the collection's size now
        (Calibration.for_collection), kept while neither the calibration nor the size changes."""
        papers = self.searcher.term_stats().n
        source, size, sized = self._sized
        if source is not self.calibration or size != papers:
            sized = self.calibration.for_collection(papers)
            self._sized = (self.calibration, papers, sized)
        return sized

    @cached_property
    def topical(self):
        """The topical relevance model's weights and operating points (topical.py): lists, counts and group-bys."""
        from ragqa.answer.topical import load_topical

        return load_topical(self.settings, self.embed_name)

    @cached_property
    def form(self):
        """The answer-form model (query/form.py): which questions ask for a list, beside intent.py's rules."""
        from ragqa.query.form import load_form

        return load_form(str(self.settings.form_file or self.settings.calibration_dir / "form.json"))

    def llm(self, fast: bool = False):
        """The answering LLM (fast=True: the small one). Loaded once, shared by all callers."""
        with self._lock:
            if fast:
                if self._fast_llm is None:
                    self._fast_llm = self._load_llm(self.settings.fast_llm_model)
                return self._fast_llm
            if self._llm is None:
                self._llm = self._load_llm(self.settings.llm_model)
            return self._llm

    def _load_llm(self, model: str):
        """load_llm, timed: the time is kept for the next start's "about N s" (models/load_times.py)."""
        import time

        from ragqa.models import load_times
        from ragqa.models.llm import load_llm

        start = time.perf_counter()
        llm = load_llm(self.settings, model)
        load_times.record(self.settings, model, time.perf_counter() - start)
        return llm

    def llm_loaded(self, fast: bool = False) -> bool:
        return (self._fast_llm if fast else self._llm) is not None

    def rewrite_llm(self):
        """Query translation and follow-up condensing: the answering model itself (one copy of its weights per
        process; its prefix cache keeps the answer prompt's prefix across a rewrite: models/prefix_cache.py), or the
        fast model with RAGQA_REWRITE_WITH_FAST_MODEL=1. With `rewrite_cache` set (evaluations): completions kept
        on disk per model and prompt, the model loaded on the first miss only."""
        if self.rewrite_cache is not None:
            with self._lock:
                if self._cached_rewrites is None:
                    from ragqa.models.completion_cache import CachedCompletions

                    self._cached_rewrites = CachedCompletions(self._rewrite_model, self.rewrite_cache,
                                                              self._rewrite_model_name())
            return self._cached_rewrites
        return self._rewrite_model()

    def _rewrite_model_name(self) -> str:
        s = self.settings
        if s.llm_backend != "llamacpp":
            return f"{s.llm_backend}:{s.openai_base_url if s.llm_backend == 'openai' else ''}:{s.llm_model}"
        return f"llamacpp:{s.fast_llm_model if s.rewrite_with_fast_model else s.llm_model}"

    def _rewrite_model(self):
        if self._rewrite_llm is not None:  # given to the constructor (tests)
            return self._rewrite_llm
        return self.llm(fast=self.settings.llm_backend == "llamacpp" and self.settings.rewrite_with_fast_model)

    def translate(self, question: str) -> str:
        """English for a Chinese question (rewrite LLM), cached: it is deterministic."""
        from ragqa.query.rewrite import translate_question

        if question not in self.translations:
            self.translations[question] = translate_question(self.rewrite_llm(), question, self.settings)
        return self.translations[question]

    def warm_up(self, fast: bool = False, llm: bool = True) -> None:
        """Load the models and prefill the fixed prompt prefix (system + worked examples) once,
        so the first question pays only for its own sources (`llm=False`: all but the LLM; warm_up_llm does it)."""
        self.searcher.refresh()
        self.embedder.get_query_embedding("warm up")
        self.calibration
        # small collections: every sentence vector now
        if len(self.searcher.paper_meta()) <= self.settings.warm_sentences_up_to:
            self.searcher.sentences.get(self._all_hits())
        if llm:
            self.warm_up_llm(fast)

    def warm_up_llm(self, fast: bool = False) -> None:
        """Load the LLM and prefill the fixed prompt prefix; a ModelError when it cannot be loaded or reached."""
        from ragqa.answer.prompting import build_messages

        self.llm(fast=fast).chat(build_messages("warm up", [], self.settings, self.profile.trusts_refusal),
                                 max_tokens=1)

    def _all_hits(self):
        from ragqa.retrieval.hits import Hit

        return [Hit.of_paper(pid, m) for pid, m in self.searcher.paper_meta().items()]

    # -- operations ---------------------------------------------------------------------------
    def load(self, paths: list[Path] | None = None, progress: bool = False) -> tuple[LoadReport, list[str]]:
        """The papers of files or folders (the bundled data by default), held in a temporary file next to the store."""
        import os

        spill = self.settings.vectorstore_dir
        try:
            spill.mkdir(parents=True, exist_ok=True)
        except OSError:
            spill = None
        # a read-only store folder: the system's temporary folder
        if spill is not None and not os.access(spill, os.W_OK):
            spill = None
        return load_paths(paths or [self.settings.data_dir], load_manifest(self.settings.data_dir), progress=progress,
                          spill_dir=spill)

    def ingest(self, report: LoadReport, progress: bool = True, library: str | None = None) -> IngestReport:
        from ragqa.store.catalog_libraries import DEFAULT_LIBRARY, check_library_name

        library = check_library_name(library or DEFAULT_LIBRARY)
        with self.writing():  # from opening the store (an empty one is created) to the saved views: one writer
            index = self.index(create=True)
            result = index.ingest(report.papers, lambda: self.ingest_embedder, progress=progress, library=library)
            self._save_views(index)
        return result

    def remove_library(self, library: str) -> tuple[int, int]:
        """Remove a library and the papers only it holds. -> (papers, chunks) removed."""
        with self.writing():
            index = self.index(create=False)
            removed = index.remove_library(library)
            self._save_views(index)
        return removed

    def writing(self):
        """The store's write lock (writelock.py), taken before the store is opened: two writers opening a new store at
        once both ran Chroma's schema set-up ("table collections already exists")."""
        from ragqa.store.writelock import store_lock

        return store_lock(self.settings)

    def _save_views(self, index: PaperIndex) -> None:
        """After a write: the next search sees it, and the views a reader needs are saved for its cold start."""
        from ragqa.retrieval.retrieve import Searcher

        self.__dict__.pop("searcher", None)
        if index.catalog.count():
            try:
                Searcher(self.settings, index, None).save_views()
            except OSError as exc:  # the write itself landed; readers build their views without the file
                log.warning("Could not save the reader views next to the catalog (%s); searches start slower.", exc)

    def search(self, question: str, filters: "Filters | None" = None, k: int | None = None,
               history: list[str] | None = None, translate: bool | None = None) -> "SearchResult":
        """Retrieval alone; a follow-up is rewritten exactly as `ask` rewrites it, so retrieval evals
        measure what answers use."""
        from ragqa.errors import ModelError
        from ragqa.query.request import require_question

        question = require_question(question, self.settings.max_question_chars)
        # opens the store and starts its vector load before retrieve's imports, which it overlaps
        searcher = self.searcher
        from ragqa.query.rewrite import both_turns, condense_question
        from ragqa.retrieval.retrieve import search

        use_translation = self.settings.translate_queries if translate is None else translate

        def rewrite(q: str, h: list[str]) -> str:
            try:
                llm = self.rewrite_llm()
            except ModelError:  # no model to rewrite with: search both turns, as `ask` does when a rewrite fails
                return both_turns(h, q)
            return condense_question(llm, h, q, self.settings)

        return search(searcher, question, filters, k, history=history, rewrite=rewrite if history else None,
                      translate=self.translate if use_translation else None)

    # -- answering ----------------------------------------------------------------------------
    def stream(self, question: str, filters: "Filters | None" = None, conversation: "Conversation | None" = None,
               k: int | None = None, fast: bool = False, auto_filters: bool = True):
        """Events of one answer ("retrieved", "token"..., "done"); the conversation, when given, is read for
        follow-ups and records the turn when the answer is done (ask.stream_answer composes the stages)."""
        from ragqa.answer.ask import stream_answer

        conv = conversation
        events = stream_answer(self, question, filters, history=conv.history if conv else None, k=k,
                               cited_before=conv.cited if conv else None, fast=fast, auto_filters=auto_filters)
        for event in events:
            if event.kind == "done" and conv is not None:
                conv.record(question, event.answer)
            yield event

    def ask(self, question: str, filters: "Filters | None" = None, conversation: "Conversation | None" = None,
            k: int | None = None, fast: bool = False, auto_filters: bool = True) -> "Answer":
        from ragqa.answer.ask import final_answer

        return final_answer(self.stream(question, filters, conversation, k=k, fast=fast, auto_filters=auto_filters))
