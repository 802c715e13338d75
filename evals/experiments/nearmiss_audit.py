"""Experiment (a label audit, not a stage): how many of the near-miss questions the calibrated model answers does the
paper it would answer from in fact answer? A near-miss is built from a held-out paper, so its label says "no indexed
paper was written for this", not "no indexed paper answers this"; a topic question about a held-out paper may be
answered by an indexed paper on the same topic.

    python -m evals.experiments.nearmiss_audit prep <calibration report folder> <out folder>
    python -m evals.experiments.nearmiss_audit score <out folder>

`prep` draws, from the held-out split and the ICLR transfer rows, near-misses the committed calibration answers
(best P at or above its answer point) and, as controls the judges cannot tell apart, answerable questions it answers
from their gold paper; each item is the question and the best paper's title and abstract, shuffled into files of 60
for helpers (subagents that see one file and prompt.txt), who judge each: yes / partly / no. `score` reads their
verdicts (`verdicts-<n>.jsonl`) against the hidden key (`key.json`).
"""
from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

PROMPT = """You are checking a test set for a question-answering assistant over machine-learning and biomedical \
research papers. Work ONLY with the files named below; do not open or search any other file or folder, and do not use \
the internet.

Input: INPUT_FILE - one JSON object per line: {"item", "question", "paper"} (60 items; "paper" is the title and \
abstract).

For EVERY line, decide whether the paper (as its title and abstract describe it) answers the question - whether a \
researcher who asked it would be well served by being pointed to this paper and told what it says:
- "yes": the abstract answers what is asked, or the paper is clearly one of the works the question is looking for (for \
"is there work on X / which papers study X": the paper is about X itself, not just the broad field).
- "partly": the paper is closely related and answers part of it, or answers a broader or narrower version of the \
question.
- "no": same broad field at most, but it does not answer the question (a different method, setting, finding or claim).
For a claim (a statement rather than a question), "yes" means the abstract states evidence that supports or refutes \
that claim.
Judge each line on its own; do not try to guess how the items were chosen.

Output: write OUTPUT_FILE, one JSON object per input line, in input order:
{"item": "<the line's item>", "verdict": "yes" | "partly" | "no", "why": "<at most 20 words>"}
Then check the file: exactly 60 lines, each valid JSON, items matching the input. Write it with a short Python script \
if that is easier (json.dumps each object), but each verdict must be your own judgement after reading that line - \
never produced by code or keyword matching.
"""


def prep(folder: Path, out: Path, seed: int = 0) -> None:
    from evals.calibrate import _candidates, _half, _model_x
    from evals.experiments.query_likelihood import texts
    from ragqa.answer.answerability import Calibration, judge

    root = Path(__file__).resolve().parents[2]
    cal = Calibration.from_json(json.loads((root / "ragqa" / "calibration" / "all-MiniLM-L6-v2.json").read_text()))
    text = texts()
    rng = random.Random(seed)
    items, key = [], {}
    for name, split in (("rows.jsonl", "held-out"), ("rows-iclr2024.jsonl", "iclr")):
        rows = [json.loads(line) for line in open(folder / name)]
        rows = [r for r in rows if r["x"] and not r["gate"] and (split == "iclr" or _half(r["paper"], 0.3, 1))]
        _model_x(rows)
        near, control = [], []
        for r in rows:
            j = judge(cal, _candidates(r))
            best = max(j.probabilities, key=j.probabilities.get)
            if not j.answerable or best not in text:
                continue
            if r["gold"] is None:
                near.append((r, best, j.best))
            elif best in r["gold"]:
                control.append((r, best, j.best))
        for r, best, p in rng.sample(near, min(90, len(near))) + rng.sample(control, min(30, len(control))):
            n = f"a{len(items) + 1:03d}"
            items.append({"item": n, "question": r["question"], "paper": text[best]})
            key[n] = {"id": r["id"], "split": split, "form": r["form"], "near_miss": r["gold"] is None,
                      "p": round(p, 4)}
    rng.shuffle(items)
    out.mkdir(parents=True, exist_ok=True)
    for g in range(0, len(items), 60):
        (out / f"items-{g // 60}.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items[g:g + 60]),
                                                    encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, indent=1), encoding="utf-8")
    (out / "prompt.txt").write_text(PROMPT, encoding="utf-8")
    print(f"{len(items)} items in {(len(items) + 59) // 60} files: "
          + str(Counter((k["split"], k["near_miss"]) for k in key.values())))


def score(out: Path) -> None:
    key = json.loads((out / "key.json").read_text())
    verdicts = {}
    for path in sorted(out.glob("verdicts-*.jsonl")):
        for line in open(path):
            if line.strip():
                v = json.loads(line)
                verdicts[v["item"]] = v["verdict"]
    table = Counter()
    for item, k in key.items():
        if item in verdicts:
            table[(k["split"], "near-miss" if k["near_miss"] else "control", k["form"], verdicts[item])] += 1
    for group in ("near-miss", "control"):
        for split in ("held-out", "iclr"):
            rows = {key: n for key, n in table.items() if key[0] == split and key[1] == group}
            total = Counter()
            for (_, _, _, verdict), n in rows.items():
                total[verdict] += n
            print(f"{group} {split}: {dict(total)} of {sum(total.values())}")
            for form in sorted({k[2] for k in rows}):
                print(f"    {form}: {dict(Counter({k[3]: n for k, n in rows.items() if k[2] == form}))}")


if __name__ == "__main__":
    if sys.argv[1] == "prep":
        prep(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        score(Path(sys.argv[2]))
