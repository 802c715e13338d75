"""Writers that overlap (#46 5a), with real processes and a real embedded Chroma: two ingests at once, or an ingest
beside a library removal, end with the store a sequential run writes (one is refused in one line and run again); a
search while an ingest writes answers; `ingest --verify` finds chunks whose vectors the vector index lost."""
from __future__ import annotations

import shutil
import time

import pytest

from evals.experiments import concurrent_writers as race

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    if not race.CORPUS.is_file():
        pytest.skip("shared ICLR 2024 corpus not available")
    work = tmp_path_factory.mktemp("race")
    return (work, *race.write_inputs(work, 160))


@pytest.mark.parametrize("scenario", ["ingests", "remove"])
def test_overlapping_writers_end_as_a_sequential_run(inputs, scenario):
    work, a, b = inputs
    references = [race.sequential(work, a, b, scenario, reverse) for reverse in (False, True)]
    result = race.one_run(work, a, b, scenario, references)  # 20 runs of each: the experiment's report
    assert result["equal"], result


def test_a_search_while_an_ingest_writes_answers(inputs):
    work, a, b = inputs
    store = work / "reading"
    shutil.rmtree(store, ignore_errors=True)
    assert race.finish(race.ragqa(store, "ingest", "--quiet", str(a)))[0] == 0
    writer = race.ragqa(store, "ingest", "--quiet", str(b))
    answered = 0
    while writer.poll() is None or answered == 0:
        started = time.perf_counter()
        code, err = race.finish(race.ragqa(store, "search", "graph neural networks", "--k", "3", "--json"), seconds=120)
        assert code == 0, err
        assert time.perf_counter() - started < 120
        answered += 1
    assert race.finish(writer)[0] == 0


def test_verify_finds_and_repairs_chunks_the_vector_index_lost(tmp_path):
    """The vector index's files put back to an earlier state (what two writers at once left behind): Chroma still holds
    the later chunks' records, so every paper looks complete by its records, but their vectors are gone."""
    if not race.CORPUS.is_file():
        pytest.skip("shared ICLR 2024 corpus not available")
    a, b = race.write_inputs(tmp_path, 600)  # > 1,000 chunks each: Chroma saves its vector index to disk
    store = tmp_path / "store"
    assert race.finish(race.ragqa(store, "ingest", "--quiet", "--library", "a", str(a)))[0] == 0
    (segment,) = [p for p in store.iterdir() if p.is_dir() and len(p.name) == 36 and p.name.count("-") == 4]
    shutil.copytree(segment, tmp_path / "earlier")
    assert race.finish(race.ragqa(store, "ingest", "--quiet", "--library", "b", str(b)))[0] == 0
    shutil.rmtree(segment)
    shutil.copytree(tmp_path / "earlier", segment)
    lost = race.content(store)["vectors"]
    assert sum(v is None for v in lost.values()) > 500
    proc = race.ragqa(store, "ingest", "--verify")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "missing from the vector index" in out, (out, err)
    repaired = race.content(store)
    assert None not in repaired["vectors"].values()
    reference = tmp_path / "reference"
    for name, path in (("a", a), ("b", b)):
        assert race.finish(race.ragqa(reference, "ingest", "--quiet", "--library", name, str(path)))[0] == 0
    assert race.differences(repaired, race.content(reference)) == []
