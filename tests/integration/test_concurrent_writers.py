"""Writers that overlap (#46 5a), with real processes and a real embedded Chroma: two ingests at once, or an ingest
beside a library removal, end with the store a sequential run writes (one is refused in one line and run again); a
search while an ingest writes answers; `ingest --verify` finds chunks whose vectors the vector index lost."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from evals.experiments import concurrent_writers as race

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    if not race.CORPUS.is_file():
        pytest.skip("shared ICLR 2024 corpus not available")
    work = tmp_path_factory.mktemp("race")
    return (work, *race.write_inputs(work, 160))


@pytest.fixture(scope="module")
def sequential(inputs):
    """race.sequential's stores by content, its commands run one after the other into a fresh store, each sequence run
    at most once per module. The four sequences share their starts (ingests: a b, b a; remove: b a rm-b, b rm-b a), so
    each start is run once and the store it leaves copied (a finished command's store is its folder) for the sequences
    that go on from it: 7 commands for the four stores instead of 10."""
    work, a, b = inputs
    folder = work / "sequential"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    done: dict[tuple, Path] = {(): folder / "empty"}  # commands run so far -> an untouched copy of the store they left
    stores: dict[tuple, dict] = {}

    def content(scenario: str, reverse: bool) -> dict:
        todo = race.commands(a, b, scenario, setup=True) + race.commands(a, b, scenario)[::-1 if reverse else 1]
        key = tuple(map(tuple, todo))
        if key not in stores:
            start = max((k for k in done if key[:len(k)] == k), key=len)
            store = folder / f"store-{len(stores)}"
            if done[start].exists():
                shutil.copytree(done[start], store)
            for n in range(len(start), len(key)):
                code, err = race.finish(race.ragqa(store, *key[n]))
                assert code == 0, f"reference run failed: {key[n]}: {err}"
                done[key[:n + 1]] = folder / f"after-{len(done)}"
                shutil.copytree(store, done[key[:n + 1]])
            stores[key] = race.content(store)
        return stores[key]
    return content


@pytest.mark.parametrize("scenario", ["ingests", "remove"])
def test_overlapping_writers_end_as_a_sequential_run(inputs, sequential, scenario):
    work, a, b = inputs
    references = [sequential(scenario, reverse) for reverse in (False, True)]
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
    # the store the two ingests wrote, one after the other, before the damage: what the repair must give back
    shutil.copytree(store, tmp_path / "written")
    shutil.rmtree(segment)
    shutil.copytree(tmp_path / "earlier", segment)
    lost = race.content(store)["vectors"]
    assert sum(v is None for v in lost.values()) > 500
    proc = race.ragqa(store, "ingest", "--verify")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "missing from the vector index" in out, (out, err)
    repaired = race.content(store)
    assert None not in repaired["vectors"].values()
    written = race.content(tmp_path / "written")
    assert None not in written["vectors"].values() and written["vectors"].keys() == lost.keys()
    assert race.differences(repaired, written) == []
