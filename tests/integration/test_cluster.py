"""scripts/serve-cluster's launcher: a Chroma server, the scripted OpenAI-compatible LLM server and two
`ragqa serve` workers sharing them; both workers answer with a valid citation, and stop() ends every
process it started (none is left listening)."""
from __future__ import annotations

import socket
import sys

import pytest

from tests.conftest import free_port_run

pytestmark = pytest.mark.integration


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_two_workers_share_one_index_and_all_processes_stop(tmp_path):
    from evals.bench_cluster import run_load
    from ragqa.cluster import start

    base = free_port_run(4)  # workers at base and base + 1 (the launcher's layout), then Chroma and the LLM server
    ports = list(range(base, base + 4))
    cluster = start(tmp_path / "cluster", workers=2, base_port=ports[0], chroma_port=ports[2], llm_port=ports[3],
                    llm_server=[sys.executable, "-m", "evals.fake_llm", "--port", "{port}"], model="fake",
                    log=lambda m: None)
    try:
        assert len(cluster.procs) == 4 and all(p.poll() is None for p in cluster.procs)
        result = run_load(cluster.urls, users=2, per_user=1)  # one session per worker
        assert result["requests"] == 2 and result["failed"] == 0, result["errors"]
        assert result["cited"] == 2  # each answer cites a source
    finally:
        cluster.stop()
    assert all(p.poll() is not None for p in cluster.procs)
    assert not any(_listening(p) for p in [*cluster.worker_ports, cluster.chroma_port, cluster.llm_port])
