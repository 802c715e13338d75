"""The CLI: one-line errors, JSON-only stdout in --json modes, batch search, ingest summary."""
from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest

from ragqa.cli import main


@pytest.fixture()
def env(settings, monkeypatch):
    monkeypatch.setenv("RAGQA_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("RAGQA_VECTORSTORE_DIR", str(settings.vectorstore_dir))
    monkeypatch.setenv("RAGQA_EMBED_MODEL", "hash")
    monkeypatch.setenv("RAGQA_MODEL_CACHE_DIR", str(settings.model_cache_dir))
    return settings


def test_ingest_reports_counts_then_embeds_nothing(env, capsys):
    assert main(["ingest", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "97 entries" in out and "95 papers (2 duplicates merged" in out and "95 new" in out
    assert main(["ingest", "--quiet"]) == 0
    assert "0 new, 0 updated" in capsys.readouterr().out and "0 embedded" in capsys.readouterr().out + "0 embedded"


def test_search_before_ingest_is_one_line(env, capsys):
    assert main(["search", "graphs"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "ragqa ingest" in err


def test_json_search_prints_only_json(env, capsys):
    main(["ingest", "--quiet"])
    capsys.readouterr()
    assert main(["search", "fractional graph neural network", "--k", "3", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    data = json.loads(out[0])
    assert len(data["results"]) == 3
    assert ({"paper_id", "label", "title", "venue", "year", "authors", "topic", "score", "text", "abstract"}
            <= set(data["results"][0]))


def test_a_search_run_in_process_leaves_the_collector_as_it_found_it(env, capsys):
    """The ragqa command turns the cyclic collector off for a one-question search and freezes what it made before the
    process exits; a caller running main() in its own process keeps a working collector and nothing frozen."""
    import gc

    main(["ingest", "--quiet"])
    threshold = gc.get_threshold()
    for argv in (["search", "fractional graph neural network", "--k", "2"], ["search", "  "]):
        main(argv)
        assert gc.isenabled() and gc.get_freeze_count() == 0 and gc.get_threshold() == threshold


def test_the_ragqa_command_searches_and_exits_cleanly(env):
    """The console script (cli.run): a one-question search prints its hits and exits 0 with nothing on stderr."""
    import subprocess
    import sys
    from pathlib import Path

    subprocess.run([str(Path(sys.executable).with_name("ragqa")), "ingest", "--quiet"], check=True, capture_output=True)
    done = subprocess.run([str(Path(sys.executable).with_name("ragqa")), "search", "fractional graph neural network",
                           "--k", "2"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "" and " 2. " in done.stdout


def test_a_stop_signal_a_library_wraps_in_its_own_error_still_stops_the_ingest(env, capsys, monkeypatch):
    """SIGTERM's KeyboardInterrupt raised inside a library callback came out as that library's error (pydantic-core's
    PydanticSerializationError, from llama-index's node serializer) and `ragqa ingest` exited 1 with a traceback; it
    is still the stop it was. The same error without a signal is not."""
    import os
    import signal

    from ragqa import cli

    def wrapped(pipeline, args, signum=signal.SIGTERM):
        try:
            if signum:
                os.kill(os.getpid(), signum)
            for _ in range(10_000_000):  # the handler runs between bytecodes
                pass
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling function `<lambda>`: KeyboardInterrupt") from None
        raise RuntimeError("a real failure")
    monkeypatch.setattr(cli, "_ingest", wrapped)
    assert main(["ingest", "--quiet"]) == 130 and "ingest stopped" in capsys.readouterr().err
    monkeypatch.setattr(cli, "_ingest", lambda pipeline, args: wrapped(pipeline, args, signum=0))
    with pytest.raises(RuntimeError, match="a real failure"):
        main(["ingest", "--quiet"])


def test_batch_search(env, capsys, tmp_path):
    main(["ingest", "--quiet"])
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": "a", "question": "fractional graph neural network"}\n'
                     '{"id": "b", "question": "what did they evaluate?", "history": ["Which paper introduces '
                     'DiffAug?"]}\n')
    capsys.readouterr()
    assert main(["search", "--batch", str(batch), "--json", "--k", "2"]) == 0
    lines = [json.loads(l) for l in capsys.readouterr().out.strip().splitlines()]
    assert [l["id"] for l in lines] == ["a", "b"] and all(len(l["results"]) == 2 for l in lines)


@pytest.mark.parametrize("argv,fragment", [
    (["search", "graphs", "--venue", "Nowhere 2020"], "Unknown venue"),
    (["search", "  "], "question is empty"),
    (["ask", ""], "question is empty"),
    (["stats"], "No index"),
])
def test_bad_input_one_line_errors(env, capsys, argv, fragment):
    if argv[0] == "search" and argv[1] == "graphs":
        main(["ingest", "--quiet"])
        capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert fragment in err and "Traceback" not in err and err.count("\n") == 0


def test_bad_batch_line(env, capsys, tmp_path):
    main(["ingest", "--quiet"])
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": "a"}\n')
    assert main(["search", "--batch", str(batch), "--json"]) == 1
    assert "line 1: 'question' must be non-empty text" in capsys.readouterr().err


def test_unreadable_file_is_reported_and_others_kept(env, capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\x00\x01")
    assert main(["ingest", str(bad), str(env.data_dir), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "skipped file" in captured.err and "binary" in captured.err and "95 papers" in captured.out


def test_missing_model_is_one_line(env, capsys, monkeypatch):
    main(["ingest", "--quiet"])
    capsys.readouterr()
    assert main(["ask", "fractional graph neural network"]) == 1
    err = capsys.readouterr().err.strip()
    assert "ragqa models fetch" in err and err.count("\n") == 0


@pytest.mark.parametrize("k", ["0", "-1", "100000", "x"])
def test_k_out_of_range_is_a_usage_error(k, capsys):
    from ragqa import cli

    with pytest.raises(SystemExit) as exit_:
        cli.main(["search", "graphs", "--k", k])
    assert exit_.value.code == 2 and "--k" in capsys.readouterr().err


@pytest.mark.parametrize("host, auth, insecure, ok", [
    ("127.0.0.1", None, False, True), ("localhost", None, False, True), ("::1", None, False, True),
    ("0.0.0.0", None, False, False), ("::", None, False, False), ("0.0.0.0", None, True, True),
    ("0.0.0.0", "admin:secret", False, True), ("127.0.0.1", "admin", False, False), ("0.0.0.0", "admin:", False, False),
    ("0.0.0.0", ":pw", False, False),
])
def test_serving_is_never_open_by_accident(host, auth, insecure, ok):
    from ragqa.errors import RagqaError
    from ui.app import check_exposure

    if ok:
        login = check_exposure(host, auth, insecure)
        assert login == (tuple(auth.split(":")) if auth else None)
    else:
        with pytest.raises(RagqaError):
            check_exposure(host, auth, insecure)


def test_json_lines_escape_unicode_line_separators():
    from ragqa.cli import json_line

    line = json_line({"text": "a\u2028b\u2029c 中文"})
    assert "\u2028" not in line and "\u2029" not in line and len(line.splitlines()) == 1
    assert json.loads(line)["text"] == "a\u2028b\u2029c 中文"


def test_empty_search_question_is_an_error_not_the_interactive_loop(capsys, monkeypatch, settings):
    monkeypatch.setenv("RAGQA_VECTORSTORE_DIR", str(settings.vectorstore_dir))
    monkeypatch.setenv("RAGQA_EMBED_MODEL", "hash")
    monkeypatch.setattr("sys.stdin", None)  # the loop would read stdin
    code = main(["search", ""])
    assert code != 0 and "error" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["search", "ask"])
def test_a_50k_character_question_is_one_line(env, capsys, command):
    """#18.5: it used to reach the LLM and fail with 'Requested tokens exceed context window'."""
    main(["ingest", "--quiet"])
    capsys.readouterr()
    assert main([command, "graph neural networks " * 2300]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "characters; ask it in at most 2,000" in err


def test_a_vectorstore_path_that_is_a_file_is_one_line(env, capsys, monkeypatch, tmp_path):
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv("RAGQA_VECTORSTORE_DIR", str(tmp_path / "afile"))
    assert main(["stats"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file, not a folder" in err


def test_a_damaged_store_is_one_line_and_left_untouched(env, capsys, monkeypatch, tmp_path):
    store = tmp_path / "damaged"
    store.mkdir()
    junk = bytes(range(256)) * 20
    (store / "chroma.sqlite3").write_bytes(junk)
    monkeypatch.setenv("RAGQA_VECTORSTORE_DIR", str(store))
    assert main(["stats"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is damaged" in err and "ragqa ingest" in err
    assert (store / "chroma.sqlite3").read_bytes() == junk


def test_a_group_answer_prints_an_aligned_table():
    from ragqa.answer.records import Answer, Citation
    from ragqa.cli_answer import group_table

    cites = [Citation(n, f"p{n}", f"P{n}", "ICLR 2024", 2024, [], "", "") for n in (1, 2, 3)]
    table = [{"group": "ICML 2024", "count": 2, "papers": ["p1", "p3"]},
             {"group": "ICLR 2024", "count": 1, "papers": ["p2"]}]
    lines = group_table(Answer("Which venue has the most orals?", "", False, "list", citations=cites,
                               table=table)).splitlines()
    assert len(lines) == 4 and lines[0].split() == ["group", "papers", "cited", "as"]
    assert lines[2].split() == ["ICML", "2024", "2", "[1]", "[3]"] and lines[3].split() == ["ICLR", "2024", "1", "[2]"]
    assert len({line.index(c) for line, c in zip(lines[2:], ("2 ", "1 "))}) == 1  # counts right-aligned in one column


@pytest.mark.parametrize("exc", [OSError(28, "No space left on device", "/store/ragqa-pages-x"),
                                 sqlite3.OperationalError("database or disk is full")])
def test_a_full_disk_is_one_line_and_any_other_os_error_is_not_hidden(env, capsys, monkeypatch, exc):
    """The catalog (SQLite), a spill file or an index file refused for want of room: one line that says so and what
    to do, not a traceback; an unrelated OSError still surfaces as the bug it would be."""
    from ragqa.pipeline import Pipeline

    def full(self, *args, **kwargs):
        raise exc

    monkeypatch.setattr(Pipeline, "ingest", full)
    assert main(["ingest", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on the disk holding" in err and "MiB free" in err
    assert "run the same command again" in err
    monkeypatch.setattr(Pipeline, "ingest",
                        lambda self, *a, **k: (_ for _ in ()).throw(OSError(13, "Permission denied")))
    with pytest.raises(OSError):
        main(["ingest", "--quiet"])


def test_a_catalog_with_a_damaged_page_is_one_line_and_left_untouched(env, capsys):
    """A catalog whose pages were overwritten (a bad disk, a copy cut short) failed on open with sqlite3's "database
    disk image is malformed" traceback; now one line names the file and the way back, and nothing is written to it."""
    assert main(["ingest", "--quiet"]) == 0
    (catalog,) = env.vectorstore_dir.glob("*.catalog.sqlite")
    with closing(sqlite3.connect(catalog)) as db:  # every page into the main file, which the damage then hits
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(catalog.read_bytes())
    data[5000:9000] = bytes(4000)
    catalog.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["search", "graph neural networks"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"The paper catalog {catalog} is damaged" in err and "Move it away" in err
    assert catalog.read_bytes() == bytes(data)


def test_a_setting_the_environment_gets_wrong_is_one_line_naming_each_variable(env, capsys, monkeypatch):
    monkeypatch.setenv("RAGQA_EMBED_BATCH_SIZE", "abc")
    monkeypatch.setenv("RAGQA_EMBED_BACKEND", "gpu")
    assert main(["stats"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "Fix or unset them" in err
    assert "RAGQA_EMBED_BATCH_SIZE='abc' (input should be a valid integer" in err and "RAGQA_EMBED_BACKEND='gpu'" in err


def test_serving_on_a_port_another_server_holds_is_one_line_before_any_model_loads(env):
    """Gradio found the port taken only after the model threads had started: a traceback, then C++'s 'terminate called
    without an active exception' as the process ended."""
    import os
    import socket
    import subprocess
    import sys
    from pathlib import Path

    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        done = subprocess.run([str(Path(sys.executable).with_name("ragqa")), "serve", "--port", str(port)],
                              env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}, capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert f"Cannot serve on 127.0.0.1:{port} (Address already in use)" in done.stderr
    assert f"ragqa serve --port {port + 1}" in done.stderr


def test_a_catalog_page_found_damaged_after_opening_is_one_line_too(env, capsys, monkeypatch):
    """The open checks the pages its migrations read; a damaged page met later by a query is named the same way."""
    from ragqa.pipeline import Pipeline

    damaged = sqlite3.DatabaseError("database disk image is malformed")
    damaged.sqlite_errorname = "SQLITE_CORRUPT"
    monkeypatch.setattr(Pipeline, "search", lambda self, *a, **k: (_ for _ in ()).throw(damaged))
    assert main(["search", "graph kernels"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"The paper catalog {env.vectorstore_dir}" in err and "is damaged" in err
    locked = sqlite3.OperationalError("database is locked")
    monkeypatch.setattr(Pipeline, "search", lambda self, *a, **k: (_ for _ in ()).throw(locked))
    with pytest.raises(sqlite3.OperationalError):  # busy, not damaged: not hidden
        main(["search", "graph kernels"])


def test_a_model_file_llama_cpp_cannot_read_is_one_line_with_both_ways_back(env, capsys, monkeypatch, tmp_path):
    """A packaged model is fetched again; a user's own file is theirs to replace (not "delete it")."""
    junk = tmp_path / "mine.gguf"
    junk.write_bytes(bytes(range(256)) * 4)
    main(["ingest", "--quiet"])
    capsys.readouterr()
    monkeypatch.setenv("RAGQA_LLM_MODEL", str(junk))
    assert main(["ask", "fractional graph neural network"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"could not load {junk}" in err
    assert "ragqa models fetch" in err and "point RAGQA_LLM_MODEL at a GGUF file" in err and junk.is_file()


def test_a_reader_that_stops_reading_ends_the_command_quietly(env):
    """`ragqa search --json | head` ended in BrokenPipeError's traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    assert main(["ingest", "--quiet"]) == 0
    command = [str(Path(sys.executable).with_name("ragqa")), "search", "graph neural networks", "--json", "--k", "10"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and "Traceback" not in err and "BrokenPipe" not in err, err


class _Streaming:
    """A pipeline whose stream is a draft, then a checked answer that differs from it (a sentence dropped)."""

    def __init__(self, draft: str, final: str):
        self.draft, self.final = draft, final

    def stream(self, *args, **kwargs):
        from ragqa.answer.context import Event
        from ragqa.answer.records import Answer

        for word in self.draft.split(" "):
            yield Event("token", delta=word + " ")
        yield Event("done", answer=Answer("q", self.final, False, "llm", guards=["echo"],
                                          timings={"retrieve_s": 0.1, "first_token_s": 0.2, "total_s": 0.3}))


def test_the_cli_prints_each_answer_once(capsys, monkeypatch):
    """#45 5: to a pipe only the checked answer is written; the status line (stderr) names the mode and guards."""
    from ragqa.cli_answer import _stream_to_terminal

    _stream_to_terminal(_Streaming("DraftOnly sentence [1]. Kept sentence [1].", "Kept sentence [1]."), "q", None)
    out, err = capsys.readouterr()
    assert out.count("Kept sentence [1].") == 1 and "DraftOnly" not in out
    assert "mode: llm" in err and "guards: echo" in err


def test_a_pipe_gets_the_answer_when_the_check_changed_nothing(capsys):
    """The checked answer equal to the draft was printed only on a terminal: a pipe got the sources and no text."""
    from ragqa.cli_answer import _stream_to_terminal

    _stream_to_terminal(_Streaming("Kept sentence [1].", "Kept sentence [1]."), "q", None)
    assert capsys.readouterr().out.count("Kept sentence [1].") == 1


def test_a_terminal_sees_the_draft_replaced_by_the_checked_answer(capsys, monkeypatch):
    from ragqa.cli_answer import _stream_to_terminal

    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    _stream_to_terminal(_Streaming("DraftOnly sentence [1]. Kept sentence [1].", "Kept sentence [1]."), "q", None)
    out, _ = capsys.readouterr()
    draft_end = out.index("Kept sentence [1].") + len("Kept sentence [1].")
    assert "\x1b[J" in out[draft_end:]  # the draft is erased before the checked answer is written
    assert out.rstrip().endswith("Kept sentence [1].") and out.count("Kept sentence [1].") == 2
