"""Property tests (hypothesis) for every input parser: .txt listings, JSONL / JSON-array / CSV / TSV
files, and the batch question reader behind `ragqa search --batch` / `ragqa ask --batch`.

Properties: only RagqaError subclasses escape; junk lines never cost a good record; every skip says
where it is. The bugs it found close the file as minimal-repro regression tests (all fixed since).
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragqa.errors import ListingError, RagqaError
from ragqa.ingest.corpus import load_file, load_paths
from ragqa.ingest.listing import parse_listing
from ragqa.ingest.paper import LoadReport, paper_id_for
from tests.conftest import ROOT


def fuzz(examples: int):
    """Bounded and deterministic: the same examples on every run and in CI, no example database."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large, HealthCheck.large_base_example])


# -- strategies -----------------------------------------------------------------------------------
# U+2028, U+2029, U+0085, \x0b, \x1c.. (str.splitlines() breaks) stay in: only "\n" ends a line.
# raw, one line
LINE_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"), max_size=40)
JSON_TEXT = st.text(max_size=24)  # every code point, lone surrogates included (json.dumps escapes them)
CLEAN_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=24)
# quoted "\n" ok
CSV_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"), max_size=24)
RAW_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1" + "0" * 400, "1.5e308", "-0", "2024.0", "0.5",
               "true"]
FIELDS = ["id", "title", "authors", "abstract", "venue", "year", "topic", "text", "primary_area", "keywords"]
WORDS = ("we study graph neural networks diffusion models training data learning representations sparse "
         "autoencoders language model attention transformer benchmark robust optimisation policy reward "
         "gradient kernel theory bound sample efficient generalisation inference latent features").split()
BOMS = [b"", b"\xef\xbb\xbf"]

json_scalar = st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats() | JSON_TEXT
json_value = st.recursive(json_scalar,
                          lambda kids: st.lists(kids, max_size=3) | st.dictionaries(JSON_TEXT, kids, max_size=3),
                          max_leaves=8)


@st.composite
def abstracts(draw, i: int, tail=CLEAN_TEXT, long_repeat: int = 300) -> str:
    """A unique, clearly valid abstract (> 40 words), sometimes very long, with arbitrary unicode."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=42, max_size=60))
    body = f"Record {i} shows that " + " ".join(words) + ". " + draw(tail)
    return (body + " ") * draw(st.sampled_from([1, 1, 1, 1, 2, long_repeat]))


@st.composite
def good_json_records(draw, i: int) -> tuple[dict, str]:
    abstract = draw(abstracts(i))
    record = {"id": f"good-{i}", "abstract": abstract,
              "title": draw(st.none() | CLEAN_TEXT), "authors": draw(st.lists(CLEAN_TEXT, max_size=3) | CLEAN_TEXT),
              "venue": draw(st.none() | CLEAN_TEXT),
              "year": draw(st.none() | st.integers(1990, 2030) | st.just("2024"))}
    return record, paper_id_for(abstract.strip())


def _not_a_good_id(record: dict) -> dict:
    if isinstance(record.get("id"), str) and record["id"].startswith("good-"):
        record["id"] = "junk"
    return record


junk_objects = st.dictionaries(st.sampled_from(FIELDS) | JSON_TEXT, json_value, max_size=6).map(_not_a_good_id)


def _render_object(fields: dict, raw: dict) -> str:
    """A JSON object as text, where `raw` values are written as given (1e400, NaN, huge integers)."""
    parts = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in fields.items() if k not in raw]
    parts += [f"{json.dumps(k)}: {v}" for k, v in raw.items()]
    return "{" + ", ".join(parts) + "}"


junk_lines = st.one_of(
    LINE_TEXT,  # not JSON (or by chance some JSON)
    st.just(""), st.sampled_from([" ", "\t", "   \t "]),  # blank
    json_value.map(lambda v: json.dumps(v)),  # any JSON value, mostly not an object
    junk_objects.map(json.dumps),  # objects with wrong-typed fields
    st.builds(lambda fields, raw: _render_object(fields, raw), junk_objects,
              st.dictionaries(st.sampled_from(["year", "title", "abstract", "venue", "id"]),
                              st.sampled_from(RAW_NUMBERS), min_size=1)),
    st.builds(lambda rec, cut: json.dumps(rec)[:cut], junk_objects, st.integers(1, 30)),  # truncated record
    st.sampled_from(["[1, null, {}]", '"just a string"', "null", "1e400", "{", "}", "{}", '{"abstract": ""}',
                     '{"abstract": null}', '{"abstract": "   "}', "\ufeff{\"abstract\": \"BOM inside the file\"}",
                     "[" * 3000, '{"year": ' + "9" * 5000 + ', "abstract": "an integer past the digit limit"}',
                     '{"abstract": {"en": "nested"}}', '{"abstract": 12345}', '{"abstract": "x", "authors": 5}']),
)


def _must_skip(line: str) -> bool:
    """A non-blank line that is not a JSON object cannot be a record: it must be reported."""
    if not line.strip():
        return False
    try:
        return not isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return True


@dataclass
class Doc:
    data: bytes
    good: set[str]  # paper ids that must load
    junk: set[int]  # locations (line or item numbers) of junk
    must_skip: set[int]  # junk locations that must be reported as skipped


@st.composite
def jsonl_docs(draw) -> Doc:
    goods = [draw(good_json_records(i)) for i in range(draw(st.integers(1, 5)))]
    junk = draw(st.lists(junk_lines, max_size=8))
    ascii_only = draw(st.booleans())
    items = [("good", json.dumps(rec, ensure_ascii=ascii_only)) for rec, _ in goods] + [("junk", line) for line in junk]
    order = draw(st.permutations(range(len(items))))
    lines = [items[k] for k in order]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(line for _, line in lines) + draw(st.sampled_from(["", eol]))
    data = draw(st.sampled_from(BOMS)) + text.encode("utf-8", "surrogatepass")
    junk_at = {n for n, (kind, _) in enumerate(lines, 1) if kind == "junk"}
    return Doc(data, {pid for _, pid in goods}, junk_at, {n for n in junk_at if _must_skip(lines[n - 1][1])})


@st.composite
def json_array_docs(draw) -> Doc:
    goods = [draw(good_json_records(i)) for i in range(draw(st.integers(0, 4)))]
    junk = draw(st.lists(json_value | junk_objects, max_size=6))
    items = [("good", rec) for rec, _ in goods] + [("junk", v) for v in junk]
    order = draw(st.permutations(range(len(items))))
    items = [items[k] for k in order]
    text = json.dumps([v for _, v in items], indent=draw(st.sampled_from([None, 1, 2])))
    data = draw(st.sampled_from(BOMS)) + draw(st.sampled_from([b"", b"\n  "])) + text.encode()
    junk_at = {i for i, (kind, _) in enumerate(items) if kind == "junk"}
    return Doc(data, {pid for _, pid in goods}, junk_at, {i for i in junk_at if not isinstance(items[i][1], dict)})


CSV_COLUMNS = ["id", "title", "authors", "abstract", "venue", "year"]


@st.composite
def csv_docs(draw, delimiter: str) -> Doc:
    columns = draw(st.permutations(CSV_COLUMNS)) + draw(st.lists(st.sampled_from(["keywords", "track", "url"]),
                                                                 unique=True))
    goods = []
    for i in range(draw(st.integers(1, 5))):
        abstract = draw(abstracts(i, tail=CSV_TEXT, long_repeat=400))  # longer than csv's default field limit
        row = {"id": f"good-{i}", "title": draw(CSV_TEXT), "authors": draw(CSV_TEXT), "abstract": abstract,
               "venue": draw(CSV_TEXT), "year": draw(st.sampled_from(["", "2024", "1999"]))}
        goods.append(([row.get(c, "") for c in columns], paper_id_for(abstract.strip())))
    junk = draw(st.lists(st.lists(CSV_TEXT | st.sampled_from(RAW_NUMBERS), min_size=1, max_size=len(columns) + 2),
                         max_size=6))
    for row in junk:  # a junk row must not claim a good record's id
        if columns.index("id") < len(row) and row[columns.index("id")].startswith("good-"):
            row[columns.index("id")] = "junk"
    items = [("good", row) for row, _ in goods] + [("junk", row) for row in junk]
    order = draw(st.permutations(range(len(items))))
    items = [items[k] for k in order]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    written = [_csv_line(columns, delimiter, eol)] + [_csv_line(row, delimiter, eol) for _, row in items]
    starts = [1 + sum(w.count("\n") for w in written[:k]) for k in range(1, len(written))]  # physical line of each row
    data = draw(st.sampled_from(BOMS)) + "".join(written).encode("utf-8")
    a = columns.index("abstract")
    junk_at = {line: row for line, (kind, row) in zip(starts, items) if kind == "junk"}
    t = columns.index("title")
    # a row without an abstract is kept as its record when its title has a letter (Paper.metadata_only), else skipped
    no_record = {line for line, row in junk_at.items() if (len(row) <= a or not row[a].strip())
                 and not (len(row) > t and re.search(r"[^\W\d_]", row[t]))}
    return Doc(data, {pid for _, pid in goods}, set(junk_at), no_record)


def _csv_line(row: list[str], delimiter: str, eol: str) -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=eol).writerow(row)
    return out.getvalue()


junk_paragraphs = st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"),
                                   min_size=1, max_size=8), min_size=1, max_size=6) \
    .map(" ".join).filter(lambda s: s.strip())  # <= 6 short words: never an abstract by the documented rule


@st.composite
def listing_docs(draw, search_page: bool) -> tuple[str, set[str], list[int]]:
    """A venue list or search page: good abstracts among short junk paragraphs (topics, author lines,
    stray headings) -> (text, good paper ids, the line each junk paragraph starts on)."""
    goods = [draw(abstracts(i, tail=LINE_TEXT, long_repeat=100)) for i in range(draw(st.integers(1, 5)))]
    if draw(st.booleans()):  # a line-wrapped abstract
        goods[0] = goods[0].replace(" shows that ", "\nshows that ", 1)
    junk = draw(st.lists(junk_paragraphs, max_size=6))
    items = [("good", g) for g in goods] + [("junk", j) for j in junk]
    order = draw(st.permutations(range(len(items))))
    items = [items[k] for k in order]
    header = "论文检索" if search_page else draw(st.sampled_from(["NeurIPS 2024 论文列表", "ICML 2024 论文列表",
                                                              "论文列表"]))
    blank = draw(st.sampled_from(["\n\n", "\n\n\n", "\n \n", "\r\n\r\n"]))
    text, junk_lines = header, []
    for kind, paragraph in items:
        text += blank
        if kind == "junk":
            junk_lines.append(text.count("\n") + 1)
        text += paragraph
    good = {paper_id_for(p.strip()) for kind, p in items if kind == "good"}
    return text + "\n", good, junk_lines


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _ids(report: LoadReport) -> set[str]:
    return {p.paper_id for p in report.papers}


def _located(report: LoadReport, name: str, word: str) -> set[int]:
    """The line/item numbers the skips name; every skip must name one."""
    out = set()
    for skip in report.skipped:
        match = re.fullmatch(rf"{re.escape(name)}:{word} (\d+)", skip.source)
        assert match, f"skip without a {word} number: {skip}"
        out.add(int(match.group(1)))
    return out


# -- files with good records among junk: none lost, every skip located -------------------------------
@fuzz(70)
@given(doc=jsonl_docs(), suffix=st.sampled_from([".jsonl", ".ndjson"]))
def test_jsonl_junk_lines_cost_no_good_record(tmp_path, doc, suffix):
    path = _write(tmp_path / f"mixed{suffix}", doc.data)
    report = load_file(path)
    assert doc.good <= _ids(report)
    skipped = _located(report, path.name, "line")
    assert doc.must_skip <= skipped <= doc.junk
    assert report.entries == len(report.papers) + len(report.skipped)
    for paper in report.papers:  # storable: Chroma, SQLite and tiktoken need valid UTF-8
        "".join([paper.abstract, paper.text, paper.label, paper.title or "", *paper.authors]).encode("utf-8")


@fuzz(50)
@given(doc=json_array_docs())
def test_json_array_junk_items_cost_no_good_record(tmp_path, doc):
    path = _write(tmp_path / "mixed.json", doc.data)
    report = load_file(path)
    assert doc.good <= _ids(report)
    assert doc.must_skip <= _located(report, path.name, "item") <= doc.junk


@fuzz(50)
@given(data=st.data(), delimiter=st.sampled_from([",", "\t"]))
def test_csv_and_tsv_junk_rows_cost_no_good_record(tmp_path, data, delimiter):
    doc = data.draw(csv_docs(delimiter))
    path = _write(tmp_path / ("mixed.csv" if delimiter == "," else "mixed.tsv"), doc.data)
    report = load_file(path)
    assert doc.good <= _ids(report)
    assert doc.must_skip <= _located(report, path.name, "line") <= doc.junk


@fuzz(50)
@given(doc=listing_docs(search_page=False))
def test_venue_list_junk_paragraphs_cost_no_abstract(doc):
    text, good, junk_lines = doc
    report = parse_listing(text, "x.txt")
    assert good <= _ids(report)
    assert sorted(_located(report, "x.txt", "line")) == junk_lines  # every junk paragraph, by its first line
    assert report.entries == len(report.papers) + len(junk_lines)


@fuzz(40)
@given(doc=listing_docs(search_page=True))
def test_search_page_junk_paragraphs_cost_no_abstract(doc):
    text, good, junk_lines = doc  # junk before an abstract is its topic / author lines; junk at the end is skipped
    report = parse_listing(text, "x.txt")
    assert good <= _ids(report)
    assert _located(report, "x.txt", "line") <= set(junk_lines)
    assert report.entries == len(report.papers) + len(report.skipped)


# -- anything at all: only RagqaError escapes -------------------------------------------------------
any_text = st.text(max_size=300)  # every code point, lone surrogates included
listing_heads = st.sampled_from(["", "NeurIPS 2024 论文列表\n\n", "论文检索\n\n", "论文列表", "id,abstract\n",
                                 "id\tabstract\n", "[", "{\"abstract\": ", '{"question": "'])
# the characters that carry structure in JSON, CSV and listings, so random text often half-parses
structured_text = st.text(st.sampled_from(list('{}[]",:\'0123456789eE.-+ \t\r\n\\uabc论文')
                                          + ["\u2028", "\x85", "\ufeff", "\x00", "\ud800"]),
                          max_size=200)
any_bytes = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda head, body: (head + body).encode("utf-8", "surrogatepass"), listing_heads, structured_text),
    st.builds(lambda head, body: (head + body).encode("utf-8", "surrogatepass"), listing_heads, any_text),
    st.builds(lambda head, body: (head + body).encode("latin-1", "replace"), listing_heads, any_text),
    st.builds(lambda head, body: (head + body).encode("utf-16"), listing_heads, st.text(max_size=40)),
    st.builds(lambda text: b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass"), any_text),
    # NUL after the sniffed 8 KB
    st.builds(lambda pad, tail: b"x" * pad + tail, st.integers(8100, 8300), st.binary(max_size=20)),
)


@fuzz(120)
@given(data=any_bytes, suffix=st.sampled_from([".jsonl", ".json", ".ndjson", ".csv", ".tsv", ".txt"]))
def test_arbitrary_bytes_raise_only_listing_errors(tmp_path, data, suffix):
    path = _write(tmp_path / f"fuzz{suffix}", data)
    try:
        report = load_file(path)
    except RagqaError:
        return
    assert report.entries == len(report.papers) + len(report.skipped)  # one file: nothing merged yet
    if suffix != ".txt":
        for skip in report.skipped:
            assert re.fullmatch(rf"{re.escape(path.name)}:(line|item) \d+", skip.source), skip


@fuzz(60)
@given(text=any_text, head=listing_heads)
def test_parse_listing_raises_only_listing_errors(text, head):
    try:
        report = parse_listing(head + text, "x.txt")
    except ListingError:
        return
    assert report.entries == len(report.papers) + len(report.skipped)
    assert all(re.fullmatch(r"x\.txt:line \d+", skip.source) for skip in report.skipped), report.skipped


@fuzz(25)
@given(files=st.lists(st.tuples(st.sampled_from([".jsonl", ".json", ".csv", ".tsv", ".txt", ".md", ""]), any_bytes),
                      max_size=4))
def test_a_folder_of_junk_files_reports_them_as_one_line_errors(tmp_path, files):
    folder = tmp_path / "in"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for n, (suffix, data) in enumerate(files):
        _write(folder / f"f{n}{suffix}", data)
    report, errors = load_paths([folder])
    assert all("\n" not in e for e in errors)
    assert len(errors) <= len(files)
    assert len({p.paper_id for p in report.papers}) == len(report.papers)  # merged across files


# -- the batch question reader, through the real `search --batch` / `ask --batch` commands ----------
def _reply(prompt: str) -> str:
    """A scripted model: cite the first source when there are sources, else echo a rewrite."""
    return "The first source studies this question [1]." if "Sources:" in prompt else "graph neural networks"


@pytest.fixture(scope="module")
def batch_pipeline(tmp_path_factory):
    """The bundled corpus indexed with the hashing embedder; a scripted LLM for rewrites and answers."""
    from ragqa.config import Settings
    from ragqa.pipeline import Pipeline
    from tests.fakes import ScriptedLLM

    tmp = tmp_path_factory.mktemp("batch")
    shutil.copytree(ROOT / "data", tmp / "data")
    llm = ScriptedLLM([_reply])
    pipeline = Pipeline(Settings(data_dir=tmp / "data", vectorstore_dir=tmp / "vs", embed_model="hash",
                                 model_cache_dir=tmp / "cache", min_relevance=0.1,
                                 calibration_file=ROOT / "tests" / "data" / "calibration-hash.json"),
                        llm=llm, fast_llm=llm)
    pipeline.ingest(pipeline.load()[0], progress=False)
    return pipeline


def run_cli(pipeline, argv: list[str]) -> tuple[int, str, str]:
    """`ragqa <argv>` in-process on a prepared pipeline (the CLI would load the real LLM)."""
    from ragqa.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (mock.patch("ragqa.cli_args.pipeline_for", lambda args: pipeline), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


QUESTION = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(lambda q: q.strip())
good_rows = st.fixed_dictionaries(
    {"question": QUESTION},
    optional={"id": st.none() | st.integers() | CLEAN_TEXT, "history": st.lists(QUESTION, max_size=2),
              "extra": json_value},
)
junk_batch_lines = st.one_of(
    LINE_TEXT.filter(lambda s: s.strip()),
    json_value.map(json.dumps).filter(lambda s: s.strip()),
    st.fixed_dictionaries({}, optional={"question": st.sampled_from(["", "  ", None, False, 0, []]),
                                        "id": json_value}).map(json.dumps),
    st.sampled_from(["{", "[1, null, {}]", '{"q": "graphs"}', "null", "\ufeff{\"question\": \"graphs\"}"]),
)


@st.composite
def batch_docs(draw) -> tuple[bytes, list, int | None]:
    """(file bytes, expected ids of the good rows, number of the first junk line or None)."""
    lines: list[tuple[str, object]] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["good", "good", "good", "blank", "junk"]))
        if kind == "good":
            row = draw(good_rows)
            lines.append(("good", (json.dumps(row, ensure_ascii=draw(st.booleans())), row)))
        elif kind == "blank":
            lines.append(("blank", (draw(st.sampled_from(["", " ", "\t"])), None)))
        else:
            lines.append(("junk", (draw(junk_batch_lines), None)))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(line for _, (line, _) in lines) + eol
    if text.startswith("\ufeff"):  # a BOM at the start of the file is not part of line 1
        lines[0] = (lines[0][0], (lines[0][1][0][1:], None))
    rows = [(n, _batch_row(line)) for n, (_, (line, _)) in enumerate(lines, 1)]
    first_junk = next((n for n, row in rows if row == "bad"), None)
    ids = [row.get("id", str(n)) for n, row in rows if isinstance(row, dict)]
    return text.encode("utf-8"), ids, first_junk


def _batch_row(line: str) -> dict | str | None:
    """The reader's documented contract, per line: blank (None), {"id"?, "question": text,
    "history"?: [text, ...]} (the row), or anything else ("bad")."""
    if not line.strip():
        return None
    try:
        row = json.loads(line)
    except ValueError:
        return "bad"
    if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not row["question"].strip():
        return "bad"
    history = row.get("history")
    if history is not None and not (isinstance(history, list) and all(isinstance(h, str) for h in history)):
        return "bad"
    return row


def _check_batch_output(code: int, out: str, err: str, ids: list, first_junk: int | None) -> list[dict]:
    if first_junk is not None:  # the reader names the first bad line and answers nothing
        assert code == 1 and out == ""
        assert err.startswith("error: ") and f"line {first_junk}:" in err and err.count("\n") == 1, err
        return []
    assert code == 0, err
    rows = [json.loads(line) for line in out.split("\n")[:-1]]  # JSON Lines: "\n" ends each line
    assert [r.get("id") for r in rows] == ids  # `ask` leaves out an id given as null
    return rows


@fuzz(40)
@given(doc=batch_docs())
def test_search_batch_answers_every_row_or_names_the_bad_line(batch_pipeline, tmp_path, doc):
    data, ids, first_junk = doc
    path = _write(tmp_path / "questions.jsonl", data)
    rows = _check_batch_output(*run_cli(batch_pipeline, ["search", "--batch", str(path), "--k", "3"]), ids, first_junk)
    assert all(isinstance(r["results"], list) for r in rows)


@fuzz(20)
@given(doc=batch_docs())
def test_ask_batch_answers_every_row_or_names_the_bad_line(batch_pipeline, tmp_path, doc):
    data, ids, first_junk = doc
    path = _write(tmp_path / "questions.jsonl", data)
    code, out, err = run_cli(batch_pipeline, ["ask", "--batch", str(path)])
    rows = _check_batch_output(code, out, err, ids, first_junk)
    assert all((isinstance(r.get("answer"), str) and r["answer"].strip()) or r.get("error") for r in rows), rows
    assert not rows or f"{len(rows)}/{len(rows)}" in err  # #45 3: the progress bar (stderr), never in the JSON


@fuzz(60)
@given(data=any_bytes)
def test_batch_reader_on_arbitrary_bytes_raises_only_query_errors(tmp_path, data):
    from ragqa.cli import _read_batch

    path = _write(tmp_path / "questions.jsonl", data)
    try:
        rows = _read_batch(str(path))
    except RagqaError as exc:  # names the file, and the line unless the whole file is unreadable
        assert str(path) in str(exc) and (re.search(r"line \d+:", str(exc)) or "UTF-8" in str(exc)), exc
        return
    assert all(isinstance(row["question"], str) and row["question"].strip() and "id" in row for row in rows)


# -- the bugs the fuzzing found, each a minimal repro (were strict xfails; all fixed) ---------------
A = "We study graph neural networks and show that message passing is limited by oversquashing on long paths."
GOOD = json.dumps({"id": "good", "abstract": A})


@pytest.mark.parametrize("bad_line", [
    pytest.param(json.dumps({"abstract": A + " one", "authors": 5}), id="authors-int"),
    pytest.param(json.dumps({"abstract": A + " one", "authors": True}), id="authors-bool"),
    pytest.param(json.dumps({"abstract": A + " one", "authors": 1e400}), id="authors-inf"),
    pytest.param("[" * 100_000, id="deep-nesting"),
    pytest.param('{"abstract": "x", "year": ' + "9" * 5000 + "}", id="huge-int"),
])
def test_known_bug_a_bad_jsonl_line_is_skipped_and_the_good_one_kept(tmp_path, bad_line):
    """The good record is kept; the bad line is skipped, or kept with its malformed field as written, and either way
    named by its line (#46 1: an author list or year that is none keeps the record)."""
    report = load_file(_write(tmp_path / "x.jsonl", f"{bad_line}\n{GOOD}\n".encode()))
    assert (paper_id_for(A) in _ids(report)
            and [s.source for s in report.skipped + report.warnings] == ["x.jsonl:line 1"])


@pytest.mark.parametrize("body", [
    pytest.param("[" * 100_000, id="deep-nesting"),
    pytest.param('[{"abstract": "x", "year": ' + "9" * 5000 + "}]", id="huge-int"),
])
def test_known_bug_an_unreadable_json_array_is_a_listing_error(tmp_path, body):
    with pytest.raises(ListingError):
        load_file(_write(tmp_path / "x.json", body.encode()))


def test_a_json_array_with_one_object_per_line_keeps_every_record(tmp_path):
    text = '[\n  {"id": "a", "abstract": "%s one"},\n  {"id": "b", "abstract": "%s two"}\n]\n' % (A, A)
    report = load_file(_write(tmp_path / "x.json", text.encode()))
    assert sorted(p.source_id for p in report.papers) == ["a", "b"] and report.skipped == []


@pytest.mark.parametrize("sep", [
    pytest.param("\u2028", id="U+2028"),
    pytest.param("\u2029", id="U+2029"),
    pytest.param("\x85", id="NEL"),
])
def test_known_bug_raw_unicode_line_separators_inside_jsonl_strings(tmp_path, sep):
    line = json.dumps({"id": "b", "abstract": f"{A}{sep}Second paragraph."}, ensure_ascii=False)  # valid JSON, one line
    report = load_file(_write(tmp_path / "x.jsonl", f"{line}\n{GOOD}\n".encode()))
    assert report.skipped == [] and len(report.papers) == 2


def test_known_bug_escaped_lone_surrogates_are_not_loaded_as_text(tmp_path):
    report = load_file(_write(tmp_path / "x.jsonl", ('{"abstract": "%s \\ud800"}\n' % A).encode()))
    for paper in report.papers:
        for value in (paper.abstract, paper.text, paper.label):
            value.encode("utf-8")  # what Chroma, SQLite and tiktoken need


@pytest.mark.parametrize("value", [
    pytest.param({"en": A}, id="dict"),
    pytest.param([A], id="list"),
    pytest.param(12345, id="number"),
])
def test_known_bug_a_non_string_abstract_is_skipped(tmp_path, value):
    report = load_file(_write(tmp_path / "x.jsonl", json.dumps({"abstract": value}).encode()))
    assert report.papers == [] and report.skipped[0].source == "x.jsonl:line 1"


@pytest.mark.parametrize("text", [
    pytest.param("id,abstract\n1," + "a " * 70_000 + "\n2," + A + "\n", id="long-field"),
    pytest.param("id,abstract\r1,x\r2," + A + "\r", id="cr-line-ends"),
    pytest.param("id,abstract\n1,foo\rbar\n2," + A + "\n", id="bare-cr"),
])
def test_known_bug_a_bad_csv_row_is_skipped_and_the_good_one_kept(tmp_path, text):
    try:
        report = load_file(_write(tmp_path / "x.csv", text.encode()))
    except RagqaError:  # rejecting the file with a one-line reason would also be acceptable
        return
    assert paper_id_for(A) in _ids(report)


@pytest.mark.parametrize("text", [
    pytest.param('id,abstract\n1,"multi\nline\nfield"\n2,\n', id="multi-line-field"),
    pytest.param("id,abstract\n\n\n2,\n", id="blank-lines"),
])
def test_known_bug_csv_skip_names_the_physical_line(tmp_path, text):
    report = load_file(_write(tmp_path / "x.csv", text.encode()))
    assert [s.source for s in report.skipped] == [f"x.csv:line {text.count(chr(10))}"]


def test_known_bug_listing_skips_name_their_line():
    report = parse_listing(f"NeurIPS 2024 论文列表\n\nnot an abstract\n\n{A * 3}\n", "x.txt")
    assert report.skipped and re.fullmatch(r"x\.txt:(line|paragraph) \d+", report.skipped[0].source)


def test_known_bug_abstract_right_under_the_header_is_not_lost():
    report = parse_listing(f"NeurIPS 2024 论文列表\n{A * 3}\n\n{A * 2}\n", "x.txt")
    assert len(report.papers) + len(report.skipped) == 2


def test_known_bug_search_page_trailing_junk_keeps_the_counts_consistent():
    report = parse_listing(f"论文检索\n\nA. One, B. Two\n\n{A * 3}\n\nC. Three\n", "x.txt")
    assert report.duplicates_merged == 0


def _load_in_subprocess(path: Path, seconds: float) -> bool:
    """True if load_file(path) finishes within `seconds` in a fresh interpreter (killed otherwise)."""
    code = f"from ragqa.ingest.corpus import load_file; load_file({str(path)!r})"
    try:
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=seconds, check=True, capture_output=True)
        return True
    except subprocess.TimeoutExpired:
        return False


@pytest.mark.parametrize("abstract", [
    pytest.param("We propose " + "A" * 20_000, id="label-regex"),
    pytest.param("[a](" * 20_000, id="link-regex"),
])
def test_known_bug_a_long_line_loads_in_linear_time(tmp_path, abstract):
    path = _write(tmp_path / "x.jsonl", json.dumps({"abstract": abstract}).encode())
    assert _load_in_subprocess(path, seconds=4.0)  # linear code needs well under 1 s of this, most of it imports


# line -> the traceback it gave in (`search --batch`, `ask --batch`) before the reader checked types
BAD_BATCH_LINES = {
    '{"question": 123}': ("'question': 123 passes the batch reader, then search raises AttributeError",) * 2,
    '{"question": ["graphs"]}': ("'question': [..] passes the batch reader, then search raises AttributeError",) * 2,
    '{"question": "graphs", "history": [1, null, {}]}': (
        "non-string history items pass the batch reader, then search raises TypeError",
        None),  # ask: history[-1] == {} becomes a per-row "question is empty" error
    '{"question": "graphs", "history": [null]}': ("a null history item passes the batch reader, then search raises "
                                                  "TypeError", None),
    '{"question": "graphs", "history": 5}': ("'history': 5 passes the batch reader, then search/ask raise "
                                             "TypeError",) * 2,
    '{"question": "graphs", "history": {"a": 1}}': ("'history': {..} passes the batch reader, then search/ask raise "
                                                    "TypeError/KeyError",) * 2,
    "[" * 100_000: ("a deeply nested batch line raises RecursionError, not QueryError",) * 2,
    '{"question": "graphs", "id": ' + "9" * 5000 + "}": (
        "an integer over 4300 digits in a batch line raises ValueError, not QueryError",) * 2,
}


@pytest.mark.parametrize("command,line", [
    pytest.param(command, line, id=f"{command}-{k}")
    for k, line in enumerate(BAD_BATCH_LINES) for command in ("search", "ask")
])
def test_known_bug_a_wrong_typed_batch_line_is_a_one_line_error(batch_pipeline, tmp_path, command, line):
    path = _write(tmp_path / "q.jsonl", f"{line}\n".encode())
    code, out, err = run_cli(batch_pipeline, [command, "--batch", str(path)])
    rows = [json.loads(l) for l in out.split("\n")[:-1]]
    assert (code == 1 and "line 1" in err) or (code == 0 and rows and all("error" in r for r in rows))


@pytest.mark.parametrize("data", [
    pytest.param(b'{"question": "caf\xe9"}\n', id="latin-1"),
    pytest.param(None, id="missing-file"),
])
def test_known_bug_an_unreadable_batch_file_is_a_one_line_error(batch_pipeline, tmp_path, data):
    path = tmp_path / "q.jsonl"
    if data is not None:
        path.write_bytes(data)
    code, _, err = run_cli(batch_pipeline, ["search", "--batch", str(path)])
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize("char", [
    "\u2028", "\u2029",  # escaped since #18.8
    pytest.param("\x85"),
])
def test_known_bug_json_lines_output_survives_splitlines(char):
    from ragqa.cli import json_line

    assert len(json_line({"question": f"a{char}b"}).splitlines()) == 1


def test_known_bug_a_batch_file_with_a_bom_is_read(batch_pipeline, tmp_path):
    path = _write(tmp_path / "q.jsonl", b'\xef\xbb\xbf{"id": "a", "question": "graph neural networks"}\n')
    code, out, _ = run_cli(batch_pipeline, ["search", "--batch", str(path)])
    assert code == 0 and json.loads(out)["id"] == "a"
