"""Settings: the one typed object every stage receives. The only place RAGQA_* env vars are read."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_DIR = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Defaults run offline on a 2-core CPU; override with RAGQA_<NAME> or keyword arguments."""

    model_config = SettingsConfigDict(env_prefix="RAGQA_", extra="ignore")

    # where things live
    data_dir: Path = PROJECT_DIR / "data"
    vectorstore_dir: Path = PROJECT_DIR / "vectorstore"
    prompts_dir: Path = PROJECT_DIR / "prompts"
    model_cache_dir: Path = Path.home() / ".cache" / "ragqa"
    # Chroma: embedded (persistent folder) unless a server host is given
    chroma_host: str | None = None
    chroma_port: int = 8000
    collection_prefix: str = "papers"
    # embeddings and chunking ("minilm" = the packaged all-MiniLM-L6-v2; "hash" = test embedder)
    embed_model: str = "minilm"
    embed_batch_size: int = 32
    write_batch_size: int = Field(1000, ge=1, description="chunks per Chroma write (capped by the store's own maximum)")
    chunk_size: int = Field(200, ge=32, description="tiktoken tokens per chunk (MiniLM reads 256 word-pieces)")
    chunk_overlap: int = Field(40, ge=0)
    # retrieval
    top_k: int = Field(10, ge=1, le=200)
    candidates: int = Field(60, ge=1, description="chunks taken from each retriever before fusion")
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
    max_new_tokens: int = 220
    temperature: float = 0.0
    n_threads: int = 2
    n_ctx: int = 4096
    answer_papers: int = Field(4, ge=1, le=10, description="papers numbered [1]..[k] in the prompt")
    evidence_sentences: int = Field(2, ge=1, le=8)
    prompt_budget: int = Field(260, ge=60, description="tiktoken tokens of evidence in the prompt (prefill is ~33 tok/s)")
    trust_refusal_below: float = Field(0.60, description="a model refusal with a better retrieval match than this becomes an extractive answer (calibrated: README)")
    relative_margin: float = Field(0.12, description="prompt papers must score within this of the best match")
    min_relevance: float = Field(0.50, description="abstain when the best dense cosine is below this")
    min_evidence: float = Field(0.40, description="abstain when no sentence of the prompt papers has a cosine this close to the question")
    # UI
    ui_auth: str | None = Field(None, description="'user:password' enables login when exposed")

    def chroma_label(self) -> str:
        if self.chroma_host:
            return f"chroma server {self.chroma_host}:{self.chroma_port}"
        return f"embedded chroma at {self.vectorstore_dir}"
