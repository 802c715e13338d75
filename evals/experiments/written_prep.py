"""The input files the helpers wrote evals/datasets/written_{icml,iclr}2024.jsonl from (2026-12-04).

    python -m evals.experiments.written_prep <out folder>

Per corpus: papers with a title and 60+ words of abstract; 300 (ICML 2024) or 100 (ICLR 2024) drawn from the half
`ragqa eval calibrate` indexes (seed 0) and as many from the held-out half, shuffled together (a writer cannot tell the
halves apart), cut into files of 100, each paper given a style in turn. Each helper (a subagent that saw only its file,
styles.json and prompt.txt, both written here) wrote one question per paper.
"""
import json
import random
import sys
from pathlib import Path

from evals.calibrate import _half
from ragqa.ingest.corpus import load_paths

STYLES = {
    "name": "Ask about the paper's method, model, benchmark or dataset BY ITS NAME (as a researcher who has heard the "
            "name), e.g. what it does, how it works, what it beats, what it needs. If the abstract introduces no name, "
            "use style 'finding' instead.",
    "finding": "Ask whether there is work showing / proposing the paper's specific finding or idea, in your own words: "
               "do NOT reuse the title's wording (at most 3 consecutive words from the title or abstract).",
    "problem": "Write 1-3 sentences in first person describing your own research or engineering problem that this "
               "paper's contribution would solve (25-60 words), then ask for work or a method that helps. Do not name "
               "the paper or its method.",
    "searchbox": "Write a short search-box query of 3-8 words for the paper's specific contribution (not just its "
                 "broad field), no question mark needed.",
    "detail": "Ask for a specific detail the abstract states (a number, a speed-up, the benchmark or setting, what is "
              "proven, what the limitation is), describing the approach in your own words rather than by its title.",
    "list": "Ask for papers on the paper's specific contribution, as a researcher scanning a collection: 'Which papers "
            "...', 'Is there work on ...', 'Any papers that ...' - specific enough that a paper merely on the same "
            "broad topic would not qualify.",
}
ORDER = ["finding", "problem", "searchbox", "detail", "list", "name"]
PROMPT = """You are helping build a test set for a question-answering assistant over machine-learning research papers. \
You play researchers who ask it questions. Work ONLY with the files named below; do not open or search any other file \
or folder, and do not use the internet.

Input: INPUT_FILE - one JSON object per line: {"paper_id", "style", "title", "abstract"} (100 papers).
Style guide: styles.json - what each "style" value asks for.

For EVERY line, read the title and abstract and write ONE question a real researcher might type into the assistant, in \
the style the line names, that THIS paper's abstract answers. Rules:
- The question must need this particular paper: its specific method, setting, finding or result - not merely its broad \
field. A paper on the same broad topic but with a different contribution should NOT answer it.
- Write as different people would: vary wording, length, tone (curious, terse, informal, precise); do not start most \
questions the same way; typos are fine occasionally (about 1 in 30). English only.
- Except in style "name", do not copy the title: no more than 3 consecutive words from the title, and paraphrase the \
abstract rather than quoting it.
- Do not mention "this paper", "the abstract", a conference, or the paper's authors.
- The answer must be stated in the abstract (so a person who has only the abstract could answer).

Output: write OUTPUT_FILE, one JSON object per input line, in input order:
{"id": "PREFIX-<line number starting at 1>", "question": "<your question>", "gold": ["<the line's paper_id>"], "type": \
"generated", "lang": "en", "style": "<the line's style>"}
Then check the file: exactly 100 lines, each valid JSON, each gold matching its input line's paper_id, ids unique. \
Write it with a short Python script if that is easier (json.dumps each object), but the questions themselves must be \
written by you, one by one, after reading each paper - never generated from templates or by code.
"""


def prep(corpus: Path, n_each: int, groups: int, tag: str, seed: int, out: Path) -> None:
    report, _ = load_paths([corpus])
    papers = [p for p in report.papers if (p.title or "").strip() and len(p.text.split()) > 60]
    rng = random.Random(seed)
    indexed = [p for p in papers if _half(p.paper_id, 0.5, 0)]
    held = [p for p in papers if not _half(p.paper_id, 0.5, 0)]
    pick = rng.sample(indexed, n_each) + rng.sample(held, n_each)
    rng.shuffle(pick)
    per = len(pick) // groups
    for g in range(groups):
        rows = [{"paper_id": p.paper_id, "style": ORDER[(i + g) % len(ORDER)], "title": p.title, "abstract": p.text}
                for i, p in enumerate(pick[g * per:(g + 1) * per])]
        (out / f"{tag}-{g}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    shared = Path(__file__).resolve().parents[3] / "shared" / "data" / "corpora"
    prep(shared / "icml2024.jsonl", 300, 6, "icml", 11, out)
    prep(shared / "iclr2024.jsonl", 100, 2, "iclr", 12, out)
    (out / "styles.json").write_text(json.dumps(STYLES, indent=1), encoding="utf-8")
    (out / "prompt.txt").write_text(PROMPT, encoding="utf-8")


if __name__ == "__main__":
    main()
