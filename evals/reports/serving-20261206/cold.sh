#!/bin/bash
# cold `ragqa ask` first token: a9963ca (before) and HEAD (after), interleaved; the HEAD's first run without a saved
# prefix state (as a fresh install), the rest with it
export RAGQA_DATA_DIR=/work/main/data RAGQA_VECTORSTORE_DIR=/work/main/vectorstore
Q="What problem does JKOnet* solve and how?"
ask() { (cd $1 && /usr/bin/time -f "%e" /work/main/.venv/bin/python -c "from ragqa.cli import run; import sys; sys.argv=['ragqa','ask','--json',sys.argv[1]]; run()" "$Q" 2>/tmp/cold-err.txt | python3 -c "import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print('first_token', d['timings']['first_token_s'], 'total', d['timings']['total_s'], 'mode', d['mode'])"; echo "wall $(tail -1 /tmp/cold-err.txt)"); }
rm -f ~/.cache/ragqa/states/prefix-*.npz
echo "HEAD, no saved state:"; ask /work/main
for i in 1 2 3; do
  echo "a9963ca run $i:"; ask /tmp/wt-base
  echo "HEAD run $i (saved state):"; ask /work/main
done
