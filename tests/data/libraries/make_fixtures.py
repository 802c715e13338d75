"""Writes the library-import fixtures in this folder from the shared ICLR/ICML 2024 corpora.

Real titles, authors and abstracts (picked for $ % _ { } \\ ~ ^ & # -- '' and non-ASCII), shaped as
Zotero BibTeX and RIS, Kaggle's arXiv snapshot and OpenReview API notes, plus hand-written awkward
cases. arXiv ids, dates and DOIs are synthetic. Run: .venv/bin/python tests/data/libraries/make_fixtures.py
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = HERE.parents[2].parent / "shared" / "data" / "corpora"
MARKS = ["$", "%", "_", "{", "\\", "~", "^", "&", "#", "--", "''"]


def pick(rows: list[dict], n: int) -> list[dict]:
    """The first row holding each awkward mark, one with non-ASCII text, then the first rows."""
    chosen = [next(r for r in rows if m in r["abstract"]) for m in MARKS if any(m in r["abstract"] for r in rows)]
    chosen.append(next(r for r in rows if any(ord(c) > 127 for c in r["abstract"] + " ".join(r["authors"]))))
    unique = list({r["id"]: r for r in chosen + rows}.values())
    return unique[:n]


def zotero_escape(text: str) -> str:
    """Zotero's BibTeX escaping (not ours): \\^{} and \\~{}, backslash as \\textbackslash."""
    table = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "%": r"\%", "&": r"\&", "#": r"\#",
             "_": r"\_", "^": r"\^{}", "~": r"\~{}"}
    return "".join(table.get(c, c) for c in text)


def last_first(name: str) -> str:
    *first, last = name.split()
    return f"{last}, {' '.join(first)}" if first else last


def zotero_bib(rows: list[dict]) -> str:
    out = []
    for r in rows:
        key = f"{r['authors'][0].split()[-1].lower()}_{r['title'].split()[0].lower().strip(':,')}_{r['year']}"
        out.append(
            f"@inproceedings{{{key},\n"
            f"\ttitle = {{{{{zotero_escape(r['title'])}}}}},\n"
            f"\tauthor = {{{' and '.join(zotero_escape(last_first(a)) for a in r['authors'])}}},\n"
            f"\tbooktitle = {{{r['venue']} {r['year']}}},\n"
            f"\tyear = {{{r['year']}}},\n"
            f"\turl = {{https://openreview.net/forum?id={r['id']}}},\n"
            f"\tkeywords = {{{', '.join(r.get('keywords') or [])}}},\n"
            f"\tabstract = {{{zotero_escape(r['abstract'])}}},\n}}\n")
    return "\n".join(out)


HAND_BIB = r"""
@comment{jabref-meta: databaseType:bibtex; an @article{inside, a comment} is not an entry}
@string{neurips = "Advances in Neural Information Processing Systems"}
% A line comment, then text between entries that is not BibTeX at all.

@article{mueller2023gans,
  title     = {{GAN}s for M{\"u}ller's caf\'e: na\"ive {B}ayes~revisited},
  author    = {M{\"u}ller, J{\"o}rg and Jos\'e Garc\'{\i}a and {OpenAI Team} and de la Fontaine, Jean and others},
  journal   = neurips # " 36",
  year      = 2023,
  doi       = {10.0000/synthetic\_doi},
  abstract  = {Generative adversarial networks (GANs) trained on caf\'e menus reach 50\% accuracy
               on $\mathcal{O}(n^2)$ problems; we show \emph{why} the {\"u}mlaut matters and
               that $x_i \in \{0, 1\}$ holds -- in practice.},
}

@inproceedings{smith2020foo,
  title = {A Paper Without an Abstract},
  author = {Smith, John},
  booktitle = {ICML},
  year = {2020},
}

@misc{dup2024,
  title = {The First of Two Entries With One Key},
  author = {Doe, Jane},
  year = {2024},
  abstract = {The first entry with this key is kept; it studies duplicate citation keys in BibTeX files exported by several reference managers.},
}

@misc{dup2024,
  title = {The Second of Two Entries With One Key},
  author = {Doe, Jane},
  year = {2024},
  abstract = {The second entry with this key is skipped and reported, with its key and line, so that the user can rename it.},
}

@article{broken2021,
  title = {An entry whose abstract brace never closes},
  abstract = {This abstract never closes its brace,
  year = {2021},

@misc{after2022broken,
  title = {Recovered After a Broken Entry},
  author = {Lee, Ann and Kim, Bo},
  howpublished = {arXiv preprint},
  year = {2022},
  abstract = {Parsing resumes at the next entry after a malformed one, so the good records in a file still load and only the bad one is reported.},
}
"""  # noqa: E501 - literal BibTeX fixture: an abstract is one line in the file, as reference managers write it


def arxiv_lines(rows: list[dict]) -> str:
    out = []
    for i, r in enumerate(rows):
        arxiv_id = f"2401.{i + 1:05d}"
        parsed = [[a.split()[-1], " ".join(a.split()[:-1]), ""] for a in r["authors"]]
        out.append(json.dumps({
            "id": arxiv_id, "submitter": r["authors"][0],
            "authors": ", ".join(r["authors"][:-1]) + " and " + r["authors"][-1]
            if len(r["authors"]) > 1 else r["authors"][0], "title": "\n  ".join(textwrap.wrap(r["title"], 60)),
            "comments": "Accepted at ICML 2024", "journal-ref": None, "doi": None,
            "report-no": None, "categories": "cs.LG stat.ML" if i % 2 else "cs.CL cs.AI", "license": None,
            "abstract": "  " + "\n".join(textwrap.wrap(r["abstract"], 78)) + "\n",
            "versions": [{"version": "v1", "created": f"Mon, {i + 1} Jan 2024 10:00:00 GMT"},
                         {"version": "v2", "created": "Tue, 4 Jun 2024 09:00:00 GMT"}],
            "update_date": "2024-06-04", "authors_parsed": parsed,
        }))
    out.append(json.dumps({  # no authors_parsed, LaTeX in the author string, no versions: year from update_date
        "id": "hep-th/9901001", "authors": "J. M\\\"uller and A. Garc\\'ia", "title": "An Old-Style\n  Identifier",
        "categories": "hep-th", "abstract": "  Old-style arXiv identifiers carry the archive name; this record has\nno "
        "parsed authors, so the author string is split and its LaTeX accents decoded.\n", "update_date": "1999-01-05"}))
    out.append(json.dumps({"id": "2401.99999", "title": "No Abstract Here", "abstract": "", "categories": "cs.LG",
                           "versions": [{"version": "v1", "created": "Wed, 3 Jan 2024 10:00:00 GMT"}]}))
    out.append('{"id": "2401.99998", "title": "Truncated line')
    return "\n".join(out) + "\n"


def openreview_v2(rows: list[dict]) -> str:
    notes = []
    for i, r in enumerate(rows):
        status = r["status"].lower()
        notes.append({
            "id": r["id"], "forum": r["id"], "cdate": 1695300000000 + i, "pdate": 1705300000000 + i,
            "content": {"title": {"value": r["title"]}, "authors": {"value": r["authors"]},
                        "abstract": {"value": r["abstract"]}, "keywords": {"value": r.get("keywords") or []},
                        "primary_area": {"value": r.get("primary_area")},
                        "venue": {"value": f"ICLR 2024 {status}"}, "venueid": {"value": "ICLR.cc/2024/Conference"}},
        })
    notes.append({"id": "RejSub0001", "forum": "RejSub0001", "cdate": 1695300000000,
                  "content": {"title": {"value": "A Rejected Submission"}, "authors": {"value": ["Ann Lee"]},
                              "abstract": {"value": "Rejected submissions are listed too; their venue says "
                                                    "Submitted to, and the venue id ends in Rejected_Submission."},
                              "venue": {"value": "Submitted to ICLR 2024"},
                              "venueid": {"value": "ICLR.cc/2024/Conference/Rejected_Submission"}}})
    notes.append({"id": "NoAbs00001",
                  "content": {"title": {"value": "No abstract"}, "venue": {"value": "ICLR 2024 poster"}}})
    return json.dumps({"notes": notes, "count": len(notes)}, indent=1, ensure_ascii=False) + "\n"


def openreview_v1(rows: list[dict]) -> str:
    lines = []
    for i, r in enumerate(rows):
        content = {"title": r["title"], "authors": r["authors"], "abstract": r["abstract"], "keywords": ["icml"]}
        note = {"id": r["id"], "forum": r["id"], "cdate": 1706700000000 + i, "content": content}
        if i % 2:
            content["venue"], content["venueid"] = f"ICML 2024 {r['status']}", "ICML.cc/2024/Conference"
        else:  # no venue string: the venue comes from the venue id, the status from the decision reply
            content["venueid"] = "ICML.cc/2024/Conference"
            note["details"] = {"directReplies": [{"content": {"decision": f"Accept ({r['status']})"}}]}
        lines.append(json.dumps(note, ensure_ascii=False))
    lines.append(json.dumps({"id": "YearOnly01", "cdate": 1577836800000, "content": {  # 2020-01-01, no venue at all
        "title": "Year From The Creation Date", "authors": ["Bo Kim"],
        "abstract": "Without a venue or venue id the year comes from the note's creation date "
                    "in milliseconds since the epoch."}}))
    lines.append(json.dumps({"id": "NotANote01", "title": "no content object"}))
    return "\n".join(lines) + "\n"


def ris(rows: list[dict]) -> str:
    out = []
    for i, r in enumerate(rows):
        tags = [("TY", "CONF"), ("TI", r["title"])] + [("AU", last_first(a)) for a in r["authors"]]
        tags += [("AB", r["abstract"]), ("PY", f"{r['year']}///"), ("T2", f"{r['venue']} {r['year']}"),
                 ("UR", r.get("proceedings_url") or f"https://openreview.net/forum?id={r['id']}"),
                 ("DO", f"10.0000/synthetic.{i}"), ("ID", r["id"]), ("ER", "")]
        out.append("\n".join(f"{t}  - {v}" for t, v in tags))
    out.append("TY  - JOUR\nT1  - Alternative Tags From EndNote\nA1  - Lee, Ann\nA1  - Kim, Bo, Jr.\n"
               "N2  - EndNote writes the title as T1, authors as A1 and the abstract as N2; the journal is JO\n"
               "and this abstract continues on an untagged second line.\nY1  - 2023/05/01/\nJO  - Journal of Tests\n"
               "KW  - ris\nKW  - endnote\nER  - ")
    out.append("TY  - GEN\nTI  - A Record Without an Abstract\nAU  - Smith, John\nPY  - 2021\nER  - ")
    out.append("This line is not RIS at all.")
    out.append("TY  - CONF\nTI  - The Last Record Has No End Tag\nAU  - Doe, Jane\n"
               "AB  - A file cut short still yields its last record, which has every field but the ER line.\n"
               "PY  - 2022")
    return "\n\n".join(out) + "\n"


def main(corpora: Path = CORPORA) -> None:
    iclr = [json.loads(line) for line in (corpora / "iclr2024.jsonl").open(encoding="utf-8")]
    icml = [json.loads(line) for line in (corpora / "icml2024.jsonl").open(encoding="utf-8")]
    bib = zotero_bib(pick(iclr, 8)) + HAND_BIB
    (HERE / "zotero.bib").write_text(bib, encoding="utf-8")
    (HERE / "zotero-utf16.bib").write_bytes(zotero_bib(pick(icml, 3)).encode("utf-16"))  # with a BOM
    (HERE / "arxiv-snapshot.jsonl").write_text(arxiv_lines(pick(icml, 6)), encoding="utf-8")
    (HERE / "openreview-v2.json").write_text(openreview_v2(pick(iclr, 6)[2:]), encoding="utf-8")
    (HERE / "openreview-v1.jsonl").write_text(openreview_v1(icml[10:14]), encoding="utf-8")
    (HERE / "endnote.ris").write_text(ris(pick(icml, 5)[1:]), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPORA)
