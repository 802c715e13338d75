"""ui/charts.py (no server, no browser): a group answer's table as bars (the largest first, at most
MAX_BARS; years in year order), and no chart for any other answer."""
from __future__ import annotations

import pytest

from ragqa.answer.records import Answer
from ui.charts import MAX_BARS, chart_rows, group_chart


def _table(counts: dict) -> list[dict]:
    return [{"group": g, "count": n, "papers": [f"{g}-{i}" for i in range(n)]} for g, n in counts.items()]


def _answer(question: str, table: list[dict], form: str = "group") -> Answer:
    return Answer(question, "text", False, "list", form=form, table=table)


@pytest.mark.parametrize("key, counts, bars", [
    ("venue", {"ICLR 2024": 2, "NeurIPS 2024": 5, "ICML 2024": 2},
     [("NeurIPS 2024", 5), ("ICLR 2024", 2), ("ICML 2024", 2)]),
    ("year", {"2025": 1, "2023": 4, "2024": 2}, [("2023", 4), ("2024", 2), ("2025", 1)]),
    ("author", {f"Author {i:02d}": i for i in range(1, 21)},
     [(f"Author {i:02d}", i) for i in range(20, 20 - MAX_BARS, -1)]),
    ("year", {str(2000 + i): i + 1 for i in range(20)}, [(str(2000 + i), i + 1) for i in range(20 - MAX_BARS, 20)]),
])
def test_chart_rows(key, counts, bars):
    assert chart_rows(_table(counts), key) == bars


def test_group_answer_gets_a_chart():
    update = group_chart(_answer("How many diffusion papers per year?", _table({"2025": 3, "2024": 7})))
    assert update["visible"] is True and update["x_title"] == "Year" and update["label"] == "Papers per year"
    assert update["value"].values.tolist() == [["2024", 7], ["2025", 3]] and update["sort"] == ["2024", "2025"]
    assert update["caption"] == "" and update["y_lim"] == [0, 7]


def test_a_long_table_says_what_the_chart_shows():
    update = group_chart(_answer("Who has the most papers on sparse autoencoders?",
                                 _table({f"A{i}": 1 for i in range(27)})))
    assert len(update["value"]) == MAX_BARS and update["caption"] == f"The {MAX_BARS} largest of 27 groups."
    assert update["y_lim"] == [0, 4]  # small counts: whole-number ticks


@pytest.mark.parametrize("answer", [None, _answer("What is DRAGON?", [], form="explain"),
                                    # an abstained group answer
                                    _answer("Which venue has the most orals on Zorblat?", [])])
def test_no_chart_for_other_answers(answer):
    assert group_chart(answer) == {"__type__": "update", "visible": False}
