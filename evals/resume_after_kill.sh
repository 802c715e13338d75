#!/usr/bin/env bash
# Resumability at scale (issue #17): a 100k ingest killed with SIGKILL after 300 s, then run again.
# Needs the bench corpus: python -m evals.bench_scale --sizes 100000 --work /tmp/scale (writes corpus-100000.jsonl).
export HF_HUB_OFFLINE=1 RAGQA_EMBED_MODEL=hash RAGQA_VECTORSTORE_DIR=/tmp/scale/resume-store RAGQA_DATA_DIR=/tmp/scale/no-data
R="$(dirname "$0")/../.venv/bin/ragqa"
start=$(date +%s)
$R ingest --quiet /tmp/scale/corpus-100000.jsonl > /tmp/resume1.out 2>&1 &
pid=$!
sleep 300; kill -9 $pid; wait $pid; rc=$?; echo "first run killed after $(( $(date +%s) - start )) s (exit $rc)"
$R stats 2>&1 | head -5
s2=$(date +%s)
$R ingest --quiet /tmp/scale/corpus-100000.jsonl 2>&1 | tail -2
echo "second run $(( $(date +%s) - s2 )) s"
$R stats 2>&1 | head -5
$R ingest --verify 2>&1 | tail -2
$R search "sparse autoencoders" 2>&1 | head -3
