"""Experiment (a probe, not a stage): on the hand-written sets' standalone English questions with two or more gold papers,
how many gold papers and how many others the answerability decision lists (search and decision only, no LLM), with the
calibration Settings point at (RAGQA_CALIBRATION_FILE to compare another).

    python -m evals.experiments.multi_recall

2026-12-04, bundled papers: the calibration of 2026-12-01 listed 51 of 67 gold papers and 28 others; the one fitted on
2026-12-04 with --list-recall 0.98 lists 56 and 41.
"""
import json
from ragqa.pipeline import Pipeline
from ragqa.retrieve import search
from ragqa.answerability import assess
from ragqa.clean import CJK
p=Pipeline(); s=p.searcher; cal=p.calibration
got=tot=other=0
for f in ['evals/datasets/seed_questions.jsonl','evals/datasets/answer_questions.jsonl','evals/datasets/heldout_mixed.jsonl']:
    for l in open(f):
        d=json.loads(l)
        if d.get('history') or len(d.get('gold') or [])<2 or CJK.search(d['question']): continue
        r=search(s,d['question'],None,20)
        if r.missing_name: continue
        _,j=assess(s,r,p.embedder.get_query_embedding(r.query),cal)
        listed=set(j.listed) if j.answerable else set()
        got+=len(listed & set(d['gold'])); tot+=len(d['gold']); other+=len(listed-set(d['gold']))
print(cal.answer_threshold, cal.list_threshold, 'multi-paper gold listed', got, '/', tot, 'other listed', other)
