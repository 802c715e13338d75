"""A store on a read-only disk is reported as read-only, in one line with the way out, not as "damaged … move it away"
(#46 5h). Needs root to mount a read-only tmpfs; skipped elsewhere."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


@pytest.fixture()
def readonly_store(indexed, tmp_path):
    mount = tmp_path / "ro"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64M", "tmpfs", str(mount)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        shutil.copytree(indexed.settings.vectorstore_dir, mount / "vs")
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        yield mount / "vs"
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.mark.parametrize("args", [["search", "graph neural networks"], ["ingest", "--quiet"], ["ingest", "--verify"],
                                  ["stats"]])
def test_a_read_only_store_says_so_in_one_line(readonly_store, indexed, args):
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAGQA_")}, "HF_HUB_OFFLINE": "1",
           "RAGQA_VECTORSTORE_DIR": str(readonly_store), "RAGQA_EMBED_MODEL": "hash",
           "RAGQA_DATA_DIR": str(indexed.settings.data_dir)}
    proc = subprocess.run([str(Path(sys.executable).with_name("ragqa")), *args], env=env, capture_output=True,
                          text=True, timeout=300)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and len(errors) == 1, proc.stderr
    assert "cannot be written" in errors[0] and "damaged" not in errors[0]
