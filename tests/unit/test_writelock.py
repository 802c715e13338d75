"""The store's write lock: one writer at a time across processes and threads, re-entrant in its own thread, released
when its holder dies; a refused writer changes nothing and is told who holds the store."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from ragqa.errors import StoreBusyError
from ragqa.store.writelock import write_lock

HOLD = """
import sys, time
from ragqa.store.writelock import write_lock
with write_lock(sys.argv[1], "test store"):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture()
def holder(tmp_path):
    """Another process holding the lock until the test ends (or kills it)."""
    path = tmp_path / ".write.lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    yield path, proc
    proc.kill()
    proc.wait()


def test_a_second_process_is_refused_with_the_holders_pid(holder):
    path, proc = holder
    with pytest.raises(StoreBusyError) as refused:
        with write_lock(path, "test store"):
            pytest.fail("entered a lock another process holds")
    message = str(refused.value)
    assert f"pid {proc.pid}" in message and "since 20" in message and "\n" not in message


def test_a_killed_holder_leaves_the_store_free(holder):
    path, proc = holder
    proc.kill()
    proc.wait()
    with write_lock(path, "test store"):
        pass


def test_reentrant_in_its_thread_and_exclusive_across_threads(tmp_path):
    path, seen = tmp_path / ".write.lock", []

    def other():
        try:
            with write_lock(path, "test store"):
                seen.append("entered")
        except StoreBusyError:
            seen.append("refused")

    with write_lock(path, "test store"):
        with write_lock(path, "test store"):  # a write inside a write (ingest -> refresh_lexical)
            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
    assert seen == ["refused"]
    other()
    assert seen == ["refused", "entered"]


def test_the_lock_is_free_after_an_error_inside(tmp_path):
    path = tmp_path / ".write.lock"
    with pytest.raises(ValueError):
        with write_lock(path, "test store"):
            raise ValueError("boom")
    proc = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(60)", "pass"), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "held"


def test_cli_ingest_and_library_remove_are_refused_while_another_writer_works(env, capsys, holder, monkeypatch):
    from ragqa.cli import main

    assert main(["ingest", "--quiet"]) == 0
    capsys.readouterr()
    path, proc = holder
    monkeypatch.setattr(type(env), "write_lock_path", lambda self: path)
    started = time.perf_counter()
    assert main(["ingest", "--quiet", "--library", "other"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"pid {proc.pid}" in err and time.perf_counter() - started < 30
    assert main(["library", "remove", "default"]) == 1
    assert f"pid {proc.pid}" in capsys.readouterr().err
    assert main(["ingest", "--verify"]) == 1
    assert main(["library", "list", "--json"]) == 0
    assert '"default": 95' in capsys.readouterr().out  # nothing was written


from tests.unit.test_cli import env  # noqa: E402,F401  (the CLI environment fixture)
