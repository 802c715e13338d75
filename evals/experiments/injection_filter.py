"""The injection filter (ragqa/text/untrusted.py) on paraphrases and on real abstracts (#46 5g): how many injected \
sentences
it catches, on the set written beside the filter (tests/data/injection_paraphrases.txt) and on a held-out set written
by someone who never saw it (tests/data/injection_heldout.jsonl: injections and research near-misses), and how many
sentences of real ICLR/ICML 2024 abstracts it flags (each a sentence the answers never use).

    python -m evals.experiments.injection_filter [--show 20]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT.parent / "shared" / "data" / "corpora"


def main(argv=None) -> int:
    from ragqa.text.sentences import split_sentences
    from ragqa.text.untrusted import is_instruction

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=20, help="flagged real sentences and misses to print")
    args = parser.parse_args(argv)
    written = (ROOT / "tests" / "data" / "injection_paraphrases.txt").read_text(encoding="utf-8").splitlines()
    print(f"written beside the filter: {sum(map(is_instruction, written))} of {len(written)} caught")
    heldout_path = ROOT / "tests" / "data" / "injection_heldout.jsonl"
    if heldout_path.is_file():
        rows = [json.loads(line) for line in heldout_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        injections = [r["text"] for r in rows if r["injection"]]
        benign = [r["text"] for r in rows if not r["injection"]]
        missed = [t for t in injections if not is_instruction(t)]
        wrong = [t for t in benign if is_instruction(t)]
        print(f"held out: {len(injections) - len(missed)} of {len(injections)} injections caught; "
              f"{len(wrong)} of {len(benign)} research near-misses flagged")
        for t in missed[:args.show]:
            print("  missed:", t)
        for t in wrong[:args.show]:
            print("  flagged near-miss:", t)
    sentences = [s for name in ("iclr2024.jsonl", "icml2024.jsonl") if (CORPORA / name).is_file()
                 for line in (CORPORA / name).open(encoding="utf-8")
                 for s in split_sentences(json.loads(line)["abstract"])]
    flagged = [s for s in sentences if is_instruction(s)]
    print(f"real ICLR/ICML 2024 abstract sentences flagged: {len(flagged)} of {len(sentences)}")
    for s in flagged[:args.show]:
        print("  flagged:", s[:160])
    return 0


if __name__ == "__main__":
    sys.exit(main())
