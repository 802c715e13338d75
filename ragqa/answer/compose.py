"""Answer text written in code, not by the LLM: list answers (one cited line per paper: its name, venue,
first authors and the abstract sentence closest to the question) and their lead line, group tables,
author and abstention messages, the quoted extractive fallback and quote top-up. Which papers qualify
and which sentences are evidence is decided elsewhere.
"""
from __future__ import annotations

import re

import numpy as np

from ragqa.answer.citations import split_answer_sentences
from ragqa.answer.guards import DEFAULT_KNOBS
from ragqa.answer.messages import messages
from ragqa.answer.naming import own_name, paper_name
from ragqa.answer.records import Source
from ragqa.config import Settings
from ragqa.ingest.paper import authors_of, without_abstract
from ragqa.retrieval.retrieve import SearchResult
from ragqa.text.clean import CJK
from ragqa.text.sentences import content_words, own_part_first
from ragqa.text.untrusted import capped, is_instruction


def display_name(meta: dict, chinese: bool = False) -> str:
    """Title, else method name or authors ("Basu et al."), else "An ICLR 2025 paper"."""
    own = meta.get("title") or own_name(meta)
    if own:
        return capped(own)
    return paper_name(meta, chinese, opening=True)


def byline(meta: dict) -> str:
    authors = authors_of(meta)
    who = ", ".join(authors[:2]) + (" et al." if len(authors) > 2 or (authors and meta.get("authors_truncated"))
                                    else "")
    return "; ".join(x for x in (meta.get("venue") or "", who) if x)


def field_text(question: str, field: str, sources: list[Source], named: set[str] = frozenset()) -> str:
    """"Who wrote X?", "Where / when was X published?": the field of each paper's record, one cited sentence each
    (intent.asks_field); a field the record lacks is said to be missing, never guessed. A paper the question does not
    name (`named`: paper ids) is introduced as the closest match, so its authors are not read as X's inventors."""
    msg, zh = messages(question), bool(CJK.search(question))
    lines = []
    for s in sources:
        m, cite = s.hit.meta, f"[{s.n}]"
        name = f"**{display_name(m, zh)}**"
        hedge = "" if s.hit.paper_id in named else msg("field.closest")
        venue, year, authors = m.get("venue") or "", m.get("year"), authors_of(m)
        venue_in = msg("field.venue_in", venue=venue) if venue else ""
        if field == "authors" and authors:
            sep = msg("field.sep")
            who = sep.join(authors) + msg("field.et_al") if m.get("authors_truncated") else (
                sep.join(authors[:-1]) + msg("field.last_sep") + authors[-1] if len(authors) > 1 else authors[0])
            line = msg("field.authors", name=name, venue_in=venue_in, who=who, cite=cite)
        elif field == "venue" and venue:
            line = msg("field.venue", name=name, venue=venue, cite=cite)
        elif field == "year" and year:
            line = msg("field.year", name=name, year=year, venue_in=venue_in, cite=cite)
        else:
            line = msg("field.missing", name=name, field=msg(f"field.missing_{field}"), cite=cite)
        lines.append(hedge + line)
    return "\n".join(lines)


def best_sentence(question_vec, sentences: list[str], vectors) -> str:
    """The abstract sentence closest to the question among those saying what the paper itself does
    ("we ...", "this paper ..."), else among all, background last (own_part_first); never an instruction-like
    sentence. question_vec None (a question with no subject: "What did X publish?"): the one closest to the
    abstract's centroid, which sums it up."""
    if not sentences:
        return ""
    vectors = np.asarray(vectors)
    if question_vec is None and len(vectors) == len(sentences):
        question_vec = vectors.mean(axis=0)
    sims = (vectors @ np.asarray(question_vec) if question_vec is not None and len(vectors) == len(sentences)
            else np.zeros(len(sentences)))
    order = own_part_first([i for i in np.argsort(-sims).tolist() if not is_instruction(sentences[i])], sentences)
    return sentences[order[0]] if order else ""


def list_items(question: str, question_vec, sources: list[Source], cache) -> list[tuple[int, str, str]]:
    """(source number, one line, its quoted sentence) per source, in the given (ranked) order;
    `cache` (evidence.SentenceCache) gives each paper's sentences and their vectors; question_vec None when the
    question names no subject (each paper's summing-up sentence, best_sentence)."""
    chinese = bool(CJK.search(question))
    items = []
    for s, (sentences, vectors) in zip(sources, cache.get([s.hit for s in sources])):
        name, by = display_name(s.hit.meta, chinese), byline(s.hit.meta)
        head = f"**{name}** ({by})" if by else f"**{name}**"
        if without_abstract(s.hit.meta):  # its record is the evidence: the title is not quoted as if it were text
            items.append((s.n, f"{head}: {messages(question)('text.no_abstract')} [{s.n}]", by or name))
            continue
        sentence = best_sentence(question_vec, sentences, vectors)
        if not sentence:
            continue
        items.append((s.n, f"{head}: {sentence} [{s.n}]", sentence))
    return items


def related_text(question: str, sources: list[Source], answer: str) -> str:
    """A `related` answer (the closest papers answer on the subject, none clearly what is asked): a line naming
    them, cited, then the model's answer without an opening "Yes" (it would claim what the tier does not)."""
    msg = messages(question)
    chinese = msg.lang == "zh"
    papers = list({s.hit.paper_id: s for s in sources}.values())
    names = [f"{display_name(s.hit.meta, chinese)} [{s.n}]" for s in papers]
    joined = ("、" if chinese else ", ").join(names[:-1]) + (("和" if chinese else " and ") if len(names) > 1 else "")
    line = msg("text.related", is_are=msg.plural("is_are", len(names)), names=joined + names[-1]) if names else ""
    body = re.sub(msg("text.affirmation"), "", answer.strip(), flags=re.IGNORECASE)
    body = body[:1].upper() + body[1:]
    return f"{line}\n\n{body}" if line else body


def record_text(question: str, sources: list[Source]) -> str:
    """Papers the library holds without an abstract, asked what they say: who wrote each, where and when, cited to its
    record, and that the rest cannot be answered from the library."""
    lines = [field_text(question, "authors", [s], {s.hit.paper_id}) for s in sources]
    return "\n".join(lines + [messages(question)("text.record_only")])


def weaker_heading(question: str) -> str:
    """Above a list's papers that the answerability model puts below its answer point: each would not be answered on
    its own (on the bundled sets' list questions, half of them are gold papers, against 30 of 34 above the point)."""
    return messages(question)("text.weaker_heading")


def rule_text(active: dict) -> str:
    """Active filters as a reader sees them: "venue = ICML 2024, status = Oral"."""
    return ", ".join(f"{k} = {v}" for k, v in active.items())


def no_match_text(rule: str, question: str) -> str:
    return messages(question)("text.no_match", rule=rule)


def lead(question: str, count: int, total_listed: int | None = None, filters=None,
         labelled: tuple[str, int] | None = None, newest: bool = False, weaker: int = 0,
         scope: tuple[str, int] | None = None) -> str:
    """The sentence before a list: what was counted and how (a metadata filter, or relevance, plus
    `labelled`: the topic label or keyword the question names and how many papers carry it), and in what order
    (`newest`: newest first, as "the latest papers on X" asks). `weaker`: how many of the papers counted are weaker
    matches (listed last, under weaker_heading): the count of papers that address it leaves them out."""
    msg = messages(question)
    if filters is not None and not filters.active():  # the whole collection
        total = total_listed or count
        shown = msg("lead.all_shown", count=count) if total > count else ""
        return msg("lead.all", total=total, papers=msg.plural("paper", total), shown=shown)
    if filters is not None:
        rule = rule_text(filters.active())
        total = total_listed or count
        if not total:
            return no_match_text(rule, question)
        shown = msg("lead.filtered_shown", count=count) if total > count else msg("lead.filtered_newest")
        return msg("lead.filtered", total=total, paper_matches=msg.plural("paper_matches", total), rule=rule,
                   shown=shown)
    total = total_listed if total_listed and total_listed > count else count
    within = ""
    if scope:  # a subject within filters ("Which ICLR 2024 papers study X?"): how many the filters admitted
        rule, admitted = scope
        within = msg("lead.within", admitted=admitted, rule=rule)
    if weaker >= total > 0:  # no paper squarely on the subject: the closest ones, never as an answer
        return msg("lead.none_squarely", within=within, no=msg("lead.no_within" if within else "lead.no_alone"),
                   total=total, matches=msg.plural("match", total))
    weaker = weaker if 0 < weaker < total else 0
    strong = total - weaker
    values = dict(
        within=within, strong=strong, shown=msg("lead.shown", count=count, total=total) if total > count else "",
        tag=msg("lead.tag", n=labelled[1], label=labelled[0]) if labelled else "",
        weak=msg("lead.weak", weaker=weaker, matches=msg.plural("match", weaker)) if weaker else "",
        order=msg("lead.newest" if newest else "lead.relevant"), addresses=msg.plural("addresses", strong),
        paper_addresses=msg.plural("paper_addresses", strong))
    return msg("lead.scoped" if within else "lead.plain", **values)


def no_paper_on_text(question: str, total: int, scope: tuple[str, int] | None = None) -> str:
    """A count that finds no paper on its subject: 0, and out of how many (the collection, or what the filters admit),
    so "How many papers does the collection hold?" reads its number too."""
    msg = messages(question)
    if scope:
        rule, admitted = scope
        return msg("count.none_scoped", admitted=admitted, papers=msg.plural("paper", admitted), rule=rule)
    return msg("count.none", total=total, papers=msg.plural("paper", total))


def author_text(match, question: str) -> str:
    """An ambiguous surname -> the candidates; an author not indexed -> the closest spellings."""
    msg = messages(question)
    if match.candidates:
        names = ", ".join(msg("author.candidate", name=name, n=n, papers=msg.plural("paper", n))
                          for name, n in match.candidates[:8])
        more = msg("author.more", n=len(match.candidates) - 8) if len(match.candidates) > 8 else ""
        return msg("author.several", span=match.span, names=names, more=more)
    near = msg("author.near", names=", ".join(match.closest)) if match.closest else ""
    return msg("author.none", span=match.span, near=near)


def group_order(key: str, groups: dict) -> list[tuple]:
    """(name, members) pairs, the largest group first, then by name; years in order when grouping by year."""
    if key == "year":
        return sorted(groups.items())
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def group_rows(hits, key: str) -> list[tuple[str, list[str]]]:
    """Papers grouped by "author" (a paper counts once for each of its authors), "year" or "venue" -> (name, paper
    ids in the order given), ordered by group_order."""
    groups: dict[str, list[str]] = {}
    for h in hits:
        m = h.meta
        if key == "author":
            names = authors_of(m) or ["(authors not listed)"]
        else:
            names = [str(m.get(key) or f"({key} unknown)")]
        for name in dict.fromkeys(names):
            groups.setdefault(name, []).append(h.paper_id)
    return group_order(key, groups)


GROUPS_SHOWN, CITED_PER_GROUP = 10, 6  # a group answer's lines, and the papers each line cites


def cite_groups(rows: list[tuple[str, list[str]]], shown: int = GROUPS_SHOWN,
                per_group: int = CITED_PER_GROUP) -> tuple[list[tuple[str, int, list[int]]], list[str]]:
    """Citation numbers for a group answer: the first `per_group` papers of each of the first `shown` groups, numbered
    as they appear -> (rows as (name, count, numbers cited), the cited ids in number order). The other papers are
    counted, not cited: a filter may admit a million, and every one a citation would flood the answer."""
    number: dict[str, int] = {}
    for _, ids in rows[:shown]:
        for pid in ids[:per_group]:
            number.setdefault(pid, len(number) + 1)
    lines = [(name, len(ids), [number[pid] for pid in ids[:per_group]] if i < shown else [])
             for i, (name, ids) in enumerate(rows)]
    return lines, list(number)


def group_text(question: str, key: str, rows, total: int, rule: dict | None, query: str, shown: int = GROUPS_SHOWN,
               labelled: str | None = None) -> str:
    """The definition of what was counted, then one line per group (rows: name, count, citation numbers;
    cite_groups)."""
    msg = messages(question)
    if not total:
        return msg("text.not_covered")
    if rule == {}:
        what = msg("group.all")
    elif rule:
        what = rule_text(rule)
    else:
        what = msg("group.matched", query=query,
                   labelled=msg("group.labelled", label=labelled) if labelled else "")
    key_name = msg(f"group.key_{key}") if key in ("author", "year", "venue") else key
    head = msg("group.head", total=total, papers=msg.plural("paper", total), what=what, key=key_name)
    lines = []
    top = rows[0][1] if rows else 0
    tied = sum(1 for _, count, _ in rows if count == top)
    if key != "year" and tied > 1:  # "who works most on X" when nobody stands out: say so, not only alphabetically
        keys = msg(f"group.tie_{key}" if key in ("author", "venue") else "group.tie_other", key=key)
        head += msg("group.tie", tied=tied, keys=keys, top=top, papers=msg.plural("paper", top))
    for name, count, numbers in rows[:shown]:
        cites = "".join(f"[{n}]" for n in numbers) + ("…" if count > len(numbers) else "")
        lines.append(f"- {name}: {count} {cites}")
    more = len(rows) - shown
    if more > 0:
        lines.append(msg("group.more", more=more, key=key))
    return head + "\n" + "\n".join(lines)


def extractive_answer(sources: list[Source], question: str,
                      max_papers: int = DEFAULT_KNOBS.extractive_papers) -> tuple[str, list[int]]:
    """The honest fallback: what each of the top `max_papers` papers (Settings.guards.extractive_papers) says closest
    to the question, its own sentences before its background (Source.closest), quoted and cited: two sentences of the
    best paper (in abstract order), one of each other. Each quote is headed by the paper's title, as list items are (a
    short method name is for running prose)."""
    lines, cited = [], []
    for rank, s in enumerate(sources[:max_papers]):
        picked = list(s.closest[: 2 if rank == 0 else 1] or s.evidence[:1])
        if not picked:
            continue
        text = s.hit.meta.get("text") or ""
        picked.sort(key=lambda x: text.find(x))
        # as list items
        lines.append(f"{display_name(s.hit.meta, bool(CJK.search(question)))}: \"{' '.join(picked)}\" [{s.n}]")
        cited.append(s.n)
    head = messages(question)("text.from_papers")
    return head + "\n" + "\n".join(f"- {line}" for line in lines), cited


def quote_top_up(text: str, sources: list[Source], cited: list[int], question: str,
                 minimum: int = DEFAULT_KNOBS.top_up_below, most: int = DEFAULT_KNOBS.top_up_most) -> str:
    """A thin answer (under `minimum` sentences: Settings.guards.top_up_below) gets up to `most` (top_up_most) of its
    first cited paper's sentences closest to the question, quoted and cited, that it does not already state (half
    their content words)."""
    have = len(split_answer_sentences(text))
    source = next((s for s in sources if cited and s.n == cited[0]), None)
    if source is None or have >= minimum:
        return text
    said = content_words(text)
    new = [x for x in source.closest
           if len(content_words(x) & said) < 0.5 * max(1, len(content_words(x)))][: min(most, minimum - have)]
    if not new:
        return text
    body = source.hit.meta.get("text") or ""
    new.sort(key=lambda x: body.find(x))
    # "In an ICLR 2024 paper's words:"
    head = messages(question)("text.in_words", name=paper_name(source.hit.meta))
    return f"{text}\n\n{head} \"{' '.join(new)}\" [{source.n}]"


def quote_named(text: str, sources: list[Source], cited: list[int], named: tuple[str, ...],
                question: str) -> tuple[str, list[int]]:
    """Each paper `named` (the papers a filter admitting few names as the answer's: ask.judge) that the answer leaves
    uncited gets its sentence closest to the question, quoted and cited: "What do the two ICLR 2024
    orals propose?" is about both. -> (text, cited)."""
    missing = [s for s in sources if s.hit.paper_id in set(named) and s.n not in cited and s.closest]
    for source in missing:
        head = messages(question)("text.in_words", name=paper_name(source.hit.meta))
        text += f"\n\n{head} \"{source.closest[0]}\" [{source.n}]"
    return text, [*cited, *(s.n for s in missing)]


def abstain_text(result: SearchResult, settings: Settings, admitted: int = 0) -> str:
    """Why nothing is answered, and the nearest papers; `admitted`: how many papers the question's filters admit."""
    near = [h for h in result.hits[:3] if (h.relevance or 0) >= settings.min_relevance - 0.1]
    msg = messages(result.question)
    text = msg("text.not_covered")
    if result.missing_name:
        verb = "mentions" if result.missing_verb == "mentions" else "introduces"
        text = msg(f"abstain.missing_{verb}", name=result.missing_name)
    elif not result.hits and result.filters.active():  # nothing passed the filters: say which, exactly
        text = no_match_text(rule_text(result.filters.active()), result.question)
    elif admitted:  # the filters admit papers, none of them on the subject: say how many were looked at
        text = msg("abstain.scoped", admitted=admitted, papers=msg.plural("paper", admitted),
                   rule=rule_text(result.filters.active()))
    if near:
        # the title where known (a label may be a method or dataset the abstract names: "VQA-Constraints")
        names = ", ".join(f"{capped(h.meta.get('title') or h.meta.get('label') or '')} ({h.meta.get('venue') or '?'})"
                          for h in near)
        text += msg("text.nearest", names=names)
    return text
