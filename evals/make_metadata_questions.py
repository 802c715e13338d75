"""Write evals/datasets/metadata.jsonl: metadata and aggregate questions over the bundled papers
plus the ICLR/ICML 2024 corpora, with gold counted from the source files by this script alone.

Independent of ragqa on purpose (it reads the JSONL corpora and data/metadata/titles.jsonl with the
stdlib; the paper id is re-derived: sha1 of the NFKC-lowercased abstract with non-word runs as one
space, first 16 hex digits). Usage: python evals/make_metadata_questions.py [--seed 7]
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import random
import re
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "data" / "corpora"


def paper_id(abstract: str) -> str:
    norm = re.sub(r"[^\w]+", " ", unicodedata.normalize("NFKC", abstract.strip()).lower()).strip()
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:16]


def load() -> dict[str, dict]:
    """paper id -> {venue, authors, status}; the bundled papers' metadata from titles.jsonl, joined to the
    listings by the same 80-character abstract prefix the manifest uses."""
    papers: dict[str, dict] = {}
    for name, venue in (("iclr2024.jsonl", "ICLR 2024"), ("icml2024.jsonl", "ICML 2024")):
        for line in (CORPORA / name).read_text("utf-8").splitlines():
            r = json.loads(line)
            papers[paper_id(r["abstract"])] = {"venue": venue, "authors": list(r["authors"]), "status": r.get("status"),
                                               "title": r.get("title"), "labels": labels_of(r)}
    titles = {re.sub(r"\s+", " ", t["abstract_prefix"].strip())[:80].rstrip(): t
              for t in map(json.loads, (ROOT / "data" / "metadata" / "titles.jsonl").read_text("utf-8").splitlines())}
    venue_of = {name: facts.get("venue")
                for name, facts in json.loads((ROOT / "data" / "manifest.json").read_text("utf-8"))["files"].items()}
    for path in sorted((ROOT / "data").glob("*.txt")):
        for para in re.split(r"\n\s*\n", path.read_text("utf-8").strip())[1:]:
            row = titles.get(re.sub(r"\s+", " ", para.strip())[:80].rstrip())
            if row and len(para.split()) > 40:
                pid = paper_id(para)
                known = papers.setdefault(pid, {"venue": row.get("venue") or venue_of.get(path.name), "authors": [],
                                                "status": None, "labels": {"areas": [], "keywords": []}})
                if len(row.get("authors") or []) > len(known["authors"]):
                    known["authors"] = list(row["authors"])
                known["status"] = known["status"] or row.get("status")
    return papers


def words(text: str) -> list[str]:
    """Lower-case words, a plural "s" dropped (networks -> network), accents folded."""
    out = []
    for w in re.findall(r"[^\W_]+", fold(text)):
        out.append(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def labels_of(record: dict) -> dict[str, list[tuple[str, list[str]]]]:
    """A listing record's labels as (text, words): its topic (else its primary area) split at "->",
    most specific part first ("Deep Learning->Robustness": robustness), then the whole; its keywords."""
    topic = record.get("topic") or record.get("primary_area") or ""
    areas = [t.strip() for t in reversed(re.split(r"->", topic))] + ([topic] if "->" in topic else [])
    return {"areas": [(t, words(t)) for t in areas if words(t)],
            "keywords": [(k, words(k)) for k in record.get("keywords", []) if words(k)]}


def labelled(papers: dict[str, dict], phrase: str, venue: str) -> set[str]:
    """The venue's papers with the phrase, word for word, inside one of their labels."""
    want = words(phrase)
    n = len(want)
    return {pid for pid, p in papers.items() if p["venue"] == venue and
            any(label[i:i + n] == want for _, label in p["labels"]["areas"] + p["labels"]["keywords"]
                for i in range(len(label) - n + 1))}


def _contains(text: list[str], want: list[str]) -> bool:
    return any(text[i:i + len(want)] == want for i in range(len(text) - len(want) + 1))


def fold(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)).lower()


def build(seed: int) -> list[dict]:
    rng = random.Random(seed)
    papers = load()
    by_author: dict[str, list[str]] = collections.defaultdict(list)
    for pid, p in papers.items():
        for a in dict.fromkeys(p["authors"]):
            by_author[a].append(pid)
    surnames: dict[str, set[str]] = collections.defaultdict(set)
    for a in by_author:
        surnames[fold(a.split()[-1])].add(a)
    rows: list[dict] = []

    def add(kind, question, gold, expect, **extra):
        rows.append({"id": f"m{len(rows) + 1:03d}", "question": question, "kind": kind, "expect": expect,
                     "gold": sorted(gold), "count": len(gold), **extra})

    prolific = sorted(a for a, ids in by_author.items() if 3 <= len(ids) <= 12 and len(a.split()) >= 2)
    for a in rng.sample(prolific, 12):
        add("author", rng.choice(["What did {a} publish here?", "Which papers by {a} are indexed?",
                                  "List the papers of {a}.", "Show me {a}'s papers."]).format(a=a), by_author[a],
            "list")
    for a in rng.sample(prolific, 4):
        add("author-zh", f"{a} 发表了哪些论文？", by_author[a], "list")
    for a in rng.sample(prolific, 6):
        add("author-count", f"How many papers by {a} are in the collection?", by_author[a], "count")
    unique_surname = [a for a in prolific if len(surnames[fold(a.split()[-1])]) == 1 and len(a.split()[-1]) >= 5]
    for a in rng.sample(unique_surname, 6):
        add("surname", f"Which papers are by {a.split()[-1][:1].upper() + a.split()[-1][1:]} et al.?", by_author[a],
            "list")
    for venue in ("ICLR 2024", "ICML 2024"):
        for status in ("Oral", "Spotlight"):
            ids = [pid for pid, p in papers.items() if p["venue"] == venue and p["status"] == status]
            add("venue-status-count", f"How many {venue} {status.lower()} papers are indexed?", ids, "count")
    for a in rng.sample([a for a in prolific if len({papers[p]["venue"] for p in by_author[a]}) > 1], 4):
        venue = papers[by_author[a][0]]["venue"]
        ids = [p for p in by_author[a] if papers[p]["venue"] == venue]
        add("author-venue", f"What did {a} publish at {venue}?", ids, "list")
    shared = sorted(s for s, names in surnames.items() if 3 <= len(names) <= 30 and s.isalpha() and len(s) >= 3)
    for s in rng.sample(shared, 5):
        add("ambiguous", f"Which papers are by {s.title()} et al.?", [], "ambiguous",
            candidates=sorted(surnames[s]))
    # topic areas and keywords named as such ("in the X area", "keyword X"): exact, from the listings' labels
    iclr = [p for p in papers.values() if p["venue"] == "ICLR 2024"]
    areas = collections.Counter(p["labels"]["areas"][0][0].lower() for p in iclr if p["labels"]["areas"])
    common = sorted(a for a, n in areas.items() if 10 <= n <= 120 and not re.search(r"\b(?:other|general|none)\b", a))
    for area in rng.sample(common, 8):
        add("venue-area-count", rng.choice(["How many ICLR 2024 papers are in the {a} area?",
                                            "Which ICLR 2024 papers are in the {a} topic area?"]).format(a=area),
            labelled(papers, area, "ICLR 2024"), "count")
    for area in rng.sample(common, 3):
        add("area-zh", f"ICLR 2024 中 {area} 领域的论文有多少篇？", labelled(papers, area, "ICLR 2024"), "count")
    kw = collections.Counter(text.lower() for p in iclr for text, w in p["labels"]["keywords"] if len(w) >= 2)
    for k in rng.sample(sorted(k for k, n in kw.items() if 8 <= n <= 60), 4):
        add("keyword-count", f"How many ICLR 2024 papers have the keyword {k}?", labelled(papers, k, "ICLR 2024"),
            "count")
    # semantic counts: a subject asked about without a cue; gold = the papers whose own labels (topic, keywords) or
    # title carry it, word for word: the authors' own judgement of what the paper is about
    for k in rng.sample(sorted(k for k, n in kw.items() if 8 <= n <= 40), 6):
        gold = labelled(papers, k, "ICLR 2024") | {pid for pid, p in papers.items() if p["venue"] == "ICLR 2024" and
                                                   _contains(words(p.get("title") or ""), words(k))}
        add("semantic-count",
            rng.choice(["How many ICLR 2024 papers study {k}?", "Which ICLR 2024 papers are about {k}?"]).format(k=k),
            gold, "semantic")
    # group-by over a metadata filter: the whole table is gold
    for status in ("Oral", "Spotlight"):
        ids = [pid for pid, p in papers.items() if p["status"] == status]
        groups = collections.Counter(papers[pid]["venue"] for pid in ids)
        add("group-venue", f"Which venue has the most {status.lower()} papers?", ids, "group",
            groups={g: n for g, n in groups.items()})
    for name in ("Geoffrey Hinton", "Yann LeCun", "Fei-Fei Li", "Demis Hassabis", "Jürgen Schmidhuber"):
        if fold(name) not in {fold(a) for a in by_author}:
            add("unknown", f"What papers by {name} are indexed?", [], "unknown")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=ROOT / "evals" / "datasets" / "metadata.jsonl")
    args = ap.parse_args()
    rows = build(args.seed)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"wrote {len(rows)} questions to {args.out}: {dict(collections.Counter(r['kind'] for r in rows))}")


if __name__ == "__main__":
    main()
