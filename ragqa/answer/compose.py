"""Answer text written in code, not by the LLM: list answers (one cited line per paper: its name, venue,
first authors and the abstract sentence closest to the question) and their lead line, group tables,
author and abstention messages, the quoted extractive fallback and quote top-up. Which papers qualify
and which sentences are evidence is decided elsewhere.
"""
from __future__ import annotations

import numpy as np

from ragqa.answer.citations import split_answer_sentences
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
    zh = bool(CJK.search(question))
    lines = []
    for s in sources:
        m, cite = s.hit.meta, f"[{s.n}]"
        name = f"**{display_name(m, zh)}**"
        hedge = "" if s.hit.paper_id in named else "最接近的已索引论文：" if zh else "Closest indexed match: "
        venue, year, authors = m.get("venue") or "", m.get("year"), authors_of(m)
        if field == "authors" and authors:
            more = bool(m.get("authors_truncated"))
            if zh:
                line = (f"{name}{f'（{venue}）' if venue else ''}的作者是 "
                        f"{'、'.join(authors)}{' 等' if more else ''} {cite}。")
            else:
                who = ", ".join(authors) + " et al." if more else (
                    f"{', '.join(authors[:-1])} and {authors[-1]}" if len(authors) > 1 else authors[0])
                line = f"{name}{f' ({venue})' if venue else ''} is by {who} {cite}."
        elif field == "venue" and venue:
            line = f"{name} 发表于 {venue} {cite}。" if zh else f"{name} appeared at {venue} {cite}."
        elif field == "year" and year:
            where = (f"（{venue}）" if zh else f" ({venue})") if venue else ""
            line = f"{name} 发表于 {year} 年{where} {cite}。" if zh else f"{name} is from {year}{where} {cite}."
        else:
            missing = {"authors": ("作者", "authors"), "venue": ("会议", "venue"), "year": ("年份", "year")}[field]
            line = (f"{name} — 索引中没有其{missing[0]}信息 {cite}。" if zh
                    else f"{name} — the index holds no {missing[1]} for it {cite}.")
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
            items.append((s.n, f"{head}: {NO_ABSTRACT_ZH if chinese else NO_ABSTRACT} [{s.n}]", by or name))
            continue
        sentence = best_sentence(question_vec, sentences, vectors)
        if not sentence:
            continue
        items.append((s.n, f"{head}: {sentence} [{s.n}]", sentence))
    return items


NO_ABSTRACT = "(no abstract in the library: its record only)"
NO_ABSTRACT_ZH = "（库中没有摘要，仅有题录信息）"


def record_text(question: str, sources: list[Source]) -> str:
    """Papers the library holds without an abstract, asked what they say: who wrote each, where and when, cited to its
    record, and that the rest cannot be answered from the library."""
    zh = bool(CJK.search(question))
    lines = [field_text(question, "authors", [s], {s.hit.paper_id}) for s in sources]
    tail = ("库中只有这些论文的题录信息（没有摘要），无法据此回答其内容；导入带摘要的记录后即可回答。" if zh else
            "The library holds only the record of this paper, no abstract, so what it proposes cannot be answered from "
            "it; import a record with its abstract to ask about its content.")
    return "\n".join(lines + [tail])


def weaker_heading(question: str) -> str:
    """Above a list's papers that the answerability model puts below its answer point: each would not be answered on
    its own (on the bundled sets' list questions, half of them are gold papers, against 30 of 34 above the point)."""
    if CJK.search(question):
        return "以下论文匹配较弱，可能相关但未必直接回答："
    return "Weaker matches, which may be related without answering it directly:"


def rule_text(active: dict) -> str:
    """Active filters as a reader sees them: "venue = ICML 2024, status = Oral"."""
    return ", ".join(f"{k} = {v}" for k, v in active.items())


def no_match_text(rule: str, zh) -> str:
    return f"没有已索引的论文符合 {rule}。" if zh else f"No indexed paper matches {rule}."


def lead(question: str, count: int, total_listed: int | None = None, filters=None,
         labelled: tuple[str, int] | None = None, newest: bool = False, weaker: int = 0,
         scope: tuple[str, int] | None = None) -> str:
    """The sentence before a list: what was counted and how (a metadata filter, or relevance, plus
    `labelled`: the topic label or keyword the question names and how many papers carry it), and in what order
    (`newest`: newest first, as "the latest papers on X" asks). `weaker`: how many of the papers counted are weaker
    matches (listed last, under weaker_heading): the count of papers that address it leaves them out."""
    zh = CJK.search(question)
    if filters is not None and not filters.active():  # the whole collection
        total = total_listed or count
        shown = (f"（显示最新的 {count} 篇）" if zh else f" (showing {count}, newest first)") if total > count else ""
        return (f"共 {total} 篇已索引论文{shown}：" if zh
                else f"{total} indexed {'paper' if total == 1 else 'papers'} in all{shown}:")
    if filters is not None:
        rule = rule_text(filters.active())
        total = total_listed or count
        if not total:
            return no_match_text(rule, zh)
        if zh:
            return f"共 {total} 篇已索引论文符合 {rule}" + (f"（显示前 {count} 篇）" if total > count else "") + "："
        noun = "paper matches" if total == 1 else "papers match"
        shown = f" (showing {count}, newest first)" if total > count else ", newest first"
        return f"{total} indexed {noun} {rule}{shown}:"
    total = total_listed if total_listed and total_listed > count else count
    within = ""
    if scope:  # a subject within filters ("Which ICLR 2024 papers study X?"): how many the filters admitted
        rule, admitted = scope
        within = (f"符合 {rule} 的 {admitted} 篇论文中，" if zh
                  else f"Of the {admitted} indexed papers matching {rule}, ")
    if weaker >= total > 0:  # no paper squarely on the subject: the closest ones, never as an answer
        return ((f"{within}没有论文正好针对这个问题；最接近的 {total} 篇可能相关：" if zh else
                 f"{within}{'n' if within else 'N'}o indexed paper is squarely on this; the closest "
                 f"{total} {'match' if total == 1 else 'matches'}, which may be related (quoted from each abstract):"))
    weaker = weaker if 0 < weaker < total else 0
    strong = total - weaker
    if zh:
        tag = f"，其中 {labelled[1]} 篇的主题、关键词或标题含“{labelled[0]}”" if labelled else ""
        weak = f"，另有 {weaker} 篇较弱的匹配" if weaker else ""
        order = "按年份从新到旧" if newest else "按相关度排序"
        return (f"{within}找到 {strong} 篇相关的已索引论文{tag}{weak}"
                + (f"（显示前 {count} 篇）" if total > count else "")
                + f"（{order}，原文摘录）：")
    more = f" (showing {count} of {total})" if total > count else ""
    noun = "paper addresses" if strong == 1 else "papers address"
    tag = f" ({labelled[1]} with \"{labelled[0]}\" in their topic, keywords or title)" if labelled else ""
    weak = f", and {weaker} weaker {'match' if weaker == 1 else 'matches'} may be related" if weaker else ""
    order = "newest first" if newest else "most relevant first"
    if within:
        return (f"{within}{strong} {'addresses' if strong == 1 else 'address'} this{tag}{weak}{more}, "
                f"{order} (quoted from each abstract):")
    return f"{strong} indexed {noun} this{tag}{weak}{more}, {order} (quoted from each abstract):"


def no_paper_on_text(question: str, total: int, scope: tuple[str, int] | None = None) -> str:
    """A count that finds no paper on its subject: 0, and out of how many (the collection, or what the filters admit),
    so "How many papers does the collection hold?" reads its number too."""
    zh = CJK.search(question)
    if scope:
        rule, admitted = scope
        return (f"符合 {rule} 的 {admitted} 篇已索引论文中，没有一篇与此主题相关（0 篇）。" if zh else
                f"0: of the {admitted} indexed {'paper' if admitted == 1 else 'papers'} matching {rule}, "
                "none is on this subject.")
    return (f"0：库中共有 {total} 篇已索引论文，没有一篇与此主题相关。" if zh else
            f"0: the collection holds {total} indexed {'paper' if total == 1 else 'papers'}, "
            "none of them on this subject.")


def author_text(match, question: str) -> str:
    """An ambiguous surname -> the candidates; an author not indexed -> the closest spellings."""
    zh = CJK.search(question)
    if match.candidates:
        names = ", ".join(f"{name} ({n} {'paper' if n == 1 else 'papers'})" for name, n in match.candidates[:8])
        more = f" and {len(match.candidates) - 8} more" if len(match.candidates) > 8 else ""
        if zh:
            return f"已索引的作者中有多位姓 {match.span}：{names}{more}。请用全名再问一次。"
        return f"Several indexed authors are named {match.span}: {names}{more}. Ask again with the full name."
    near = f" Closest indexed names: {', '.join(match.closest)}." if match.closest else ""
    if zh:
        return (f"没有 {match.span} 的已索引论文。"
                + (f"最接近的作者名：{', '.join(match.closest)}。" if match.closest else ""))
    return f"No indexed paper by {match.span}.{near}"


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
    zh = CJK.search(question)
    if not total:
        return "已索引的论文没有涉及这个问题。" if zh else "The indexed papers don't cover this question."
    what = (("全部" if zh else "all of them") if rule == {} else rule_text(rule) if rule else
            (f"与“{query}”相关的论文" + (f"或主题、关键词、标题含“{labelled}”的论文" if labelled else "") if zh else
             f"papers the retriever and answerability model match to \"{query}\""
             + (f", or whose topic, keywords or title include \"{labelled}\"" if labelled else "")))
    head = (f"共 {total} 篇已索引论文（{what}），"
            f"按{ {'author': '作者', 'year': '年份', 'venue': '会议'}[key]}统计：" if zh else
            f"{total} indexed {'paper' if total == 1 else 'papers'} ({what}), by {key}:")
    lines = []
    top = rows[0][1] if rows else 0
    tied = sum(1 for _, count, _ in rows if count == top)
    if key != "year" and tied > 1:  # "who works most on X" when nobody stands out: say so, not only alphabetically
        noun = {"author": ("authors", "位作者"), "venue": ("venues", "个会议")}.get(key, (f"{key}s", "组"))
        head += (f"\n有 {tied} {noun[1]}并列最多，各 {top} 篇（按名称排序）。" if zh else
                 f"\n{tied} {noun[0]} tie for the most, with {top} {'paper' if top == 1 else 'papers'} each "
                 "(listed alphabetically).")
    for name, count, numbers in rows[:shown]:
        cites = "".join(f"[{n}]" for n in numbers) + ("…" if count > len(numbers) else "")
        lines.append(f"- {name}: {count} {cites}")
    more = len(rows) - shown
    if more > 0:
        lines.append(f"- … 另有 {more} 组" if zh else f"- … and {more} more {key}s")
    return head + "\n" + "\n".join(lines)


def extractive_answer(sources: list[Source], question: str, max_papers: int = 3) -> tuple[str, list[int]]:
    """The honest fallback: what each top paper says closest to the question, its own sentences before its
    background (Source.closest), quoted and cited: two sentences of the best paper (in abstract order), one of each
    other. Each quote is headed by the paper's title, as list items are (a short method name is for running prose)."""
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
    head = "相关论文原文摘录：" if CJK.search(question) else "From the most relevant papers:"
    return head + "\n" + "\n".join(f"- {line}" for line in lines), cited


def quote_top_up(text: str, sources: list[Source], cited: list[int], question: str, minimum: int = 3,
                 most: int = 2) -> str:
    """A thin answer (under `minimum` sentences) gets up to `most` of its first cited paper's sentences
    closest to the question, quoted and cited, that it does not already state (half their content words)."""
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
    head = "原文：" if CJK.search(question) else f"In {paper_name(source.hit.meta)}'s words:"
    return f"{text}\n\n{head} \"{' '.join(new)}\" [{source.n}]"


def abstain_text(result: SearchResult, settings: Settings, admitted: int = 0) -> str:
    """Why nothing is answered, and the nearest papers; `admitted`: how many papers the question's filters admit."""
    near = [h for h in result.hits[:3] if (h.relevance or 0) >= settings.min_relevance - 0.1]
    zh = bool(CJK.search(result.question))
    text = "已索引的论文没有涉及这个问题。" if zh else "The indexed papers don't cover this question."
    if result.missing_name:
        name = result.missing_name
        mentions = result.missing_verb == "mentions"
        text = (f"已索引的论文中没有{'提到' if mentions else '提出'} {name} 的论文。" if zh
                else f"No indexed paper {'mentions' if mentions else 'introduces'} {name}, "
                "so they don't cover this question.")
    elif not result.hits and result.filters.active():  # nothing passed the filters: say which, exactly
        text = no_match_text(rule_text(result.filters.active()), zh)
    elif admitted:  # the filters admit papers, none of them on the subject: say how many were looked at
        rule = rule_text(result.filters.active())
        text = (f"符合 {rule} 的 {admitted} 篇已索引论文中，没有一篇涉及这个问题。" if zh else
                f"Of the {admitted} indexed {'paper' if admitted == 1 else 'papers'} matching {rule}, "
                "none covers this question.")
    if near:
        # the title where known (a label may be a method or dataset the abstract names: "VQA-Constraints")
        names = ", ".join(f"{capped(h.meta.get('title') or h.meta.get('label') or '')} ({h.meta.get('venue') or '?'})"
                          for h in near)
        text += (f" 最接近的论文：{names}。" if zh else f" Nearest papers, which may not answer it: {names}.")
    return text
