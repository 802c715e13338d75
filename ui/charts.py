"""The bar chart beside the chat for group answers ("who has the most papers on X", "which venue has
the most orals", "X papers per year"): answer.table as bars, hidden for every other answer. Grouping
and counting live in ragqa/ (ask._group_answer); this only draws what the answer counted."""
from __future__ import annotations

import gradio as gr

from ragqa.query.intent import GROUP, group_key

MAX_BARS = 15
X, Y = "group", "papers"  # the chart's columns


def chart_component() -> gr.BarPlot:
    """The (hidden) chart; group_chart(answer) fills and shows it."""
    return gr.BarPlot(x=X, y=Y, y_title="Papers", y_lim=[0, None], height=260, visible=False, label="Papers per group",
                      show_label=True, elem_id="rq-chart", tooltip="axis")


def chart_rows(table: list[dict], key: str, limit: int = MAX_BARS) -> list[tuple[str, int]]:
    """(group, count) bars: the `limit` largest groups, largest first; years in year order."""
    rows = sorted(((str(r["group"]), int(r["count"])) for r in table), key=lambda r: (-r[1], r[0]))[:limit]
    return sorted(rows) if key == "year" else rows


def group_chart(answer=None):
    """The chart's update for a finished answer: its counts for a group answer, else hidden."""
    if answer is None or answer.form != GROUP or not answer.table:
        return gr.update(visible=False)
    import pandas as pd

    key = group_key(answer.question) or "year"  # the key ask._group_answer grouped by (its default: year)
    rows = chart_rows(answer.table, key)
    frame = pd.DataFrame({X: [g for g, _ in rows], Y: [n for _, n in rows]}).astype({X: str, Y: int})
    more = len(answer.table) - len(rows)
    caption = f"The {len(rows)} largest of {len(answer.table)} groups." if more else ""
    return gr.update(value=frame, visible=True, sort=[g for g, _ in rows], x_title=key.capitalize(),
                     label=f"Papers per {key}", caption=caption,  # "" clears an earlier answer's caption
                     y_lim=[0, max(4, *(n for _, n in rows))],  # at least 0-4: whole-number ticks
                     x_label_angle=-35 if max(len(g) for g, _ in rows) > 12 else 0)
