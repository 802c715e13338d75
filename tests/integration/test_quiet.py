"""`--quiet` means quiet with the real models too: no library's progress bar reaches the terminal."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

RAGQA = str(Path(sys.executable).with_name("ragqa"))


def test_a_quiet_ingest_with_the_torch_minilm_prints_no_progress_bar(tmp_path):
    corpus = tmp_path / "two.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"p{n}", "title": f"Paper {n}", "abstract": text}) + "\n" for n, text in
                              enumerate(["We study sparse autoencoders at very large dictionary widths.",
                                         "A diffusion sampler that avoids out-of-distribution denoiser calls."])),
                      "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGQA_")}
    env.update(HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False", RAGQA_EMBED_BACKEND="torch",
               RAGQA_VECTORSTORE_DIR=str(tmp_path / "vs"), RAGQA_DATA_DIR=str(tmp_path / "no-data"))
    done = subprocess.run([RAGQA, "ingest", "--quiet", str(corpus)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "2 new" in done.stdout
    assert "\r" not in done.stderr and "it/s]" not in done.stderr, done.stderr
