#!/bin/bash
# current code (/work/main) on /tmp/sci-vs with suspects switched off at runtime (dump_cur.py), hybrid only
cd /work/main
export RAGQA_VECTORSTORE_DIR=/tmp/sci-vs RAGQA_DATA_DIR=/work/main/data
run() { name=$1; shift; env "$@" /work/main/.venv/bin/python /tmp/scifact-diag/dump_cur.py /tmp/scifact-diag/t-$name.json hybrid > /tmp/scifact-diag/t-$name.log 2>&1; echo "$name ($*): $(grep -E '^hybrid ' /tmp/scifact-diag/t-$name.log)" >> /tmp/scifact-diag/toggles.txt; }
run own_title NO_OWN=1 NO_TITLE=1
run names_title NO_NAMES=1 NO_TITLE=1
run spell NO_SPELL=1
run recency NO_RECENCY=1
run all_q NO_NAMES=1 NO_TITLE=1 NO_SPELL=1 NO_RECENCY=1 RAGQA_QUERY_BACKEND=torch
run all_q_exact NO_NAMES=1 NO_TITLE=1 NO_SPELL=1 NO_RECENCY=1 RAGQA_QUERY_BACKEND=torch EXACT=/tmp/scifact-diag/emb-vs.npz
run cur_exact RAGQA_QUERY_BACKEND=torch EXACT=/tmp/scifact-diag/emb-vs.npz
