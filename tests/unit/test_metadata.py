"""Metadata named in a question: the parser (table), and the answers it leads to on the bundled
papers, with gold counted from data/metadata/titles.jsonl directly (not by the code under test)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragqa.answer.ask import ask
from ragqa.ingest.paper import authors_of
from ragqa.query.metadata import AuthorIndex, names_a_topic, status_in
from tests.conftest import ingest_bundled
from tests.fakes import ScriptedLLM

PAPERS = {"a": {"authors": "Yoshua Bengio; Ann Lee", "text": "We train with Adam on long contexts."},
          "b": {"authors": "Yoshua Bengio"}, "c": {"authors": "Bo Chen; Wei Chen; Sam Long"},
          "d": {"authors": "Bernhard Schölkopf; Kim Adam; Li Gan"}}


@pytest.mark.parametrize("question, name, candidates, topical", [
    ("What did Yoshua Bengio publish here?", "Yoshua Bengio", 0, False),
    ("what did yoshua bengio publish here?", "Yoshua Bengio", 0, False),
    # lower case in a question with capitals elsewhere: a name with a word no English word is read
    ("yoshua bengio's work on LLMs?", "Yoshua Bengio", 0, True),
    ("Bengio's papers on causality", "Yoshua Bengio", 0, True),
    ("Which papers are by Bengio et al.?", "Yoshua Bengio", 0, False),
    ("work by Scholkopf", "Bernhard Schölkopf", 0, False),
    ("Adam et al. on optimisers", "Kim Adam", 0, True),
    ("Show me Bernhard Schölkopf's papers.", "Bernhard Schölkopf", 0, False),
    ("Yoshua Bengio 发表了哪些论文？", "Yoshua Bengio", 0, False),
    ("Bengio 等人关于因果推断的论文", "Yoshua Bengio", 0, True),
    ("papers by Chen", None, 2, False),
    ("Chen et al. on graph neural networks", None, 2, True),
    ("Anything from Yoshua Bengio?", "Yoshua Bengio", 0, False),  # request wording names no subject
    ("I'm looking for work by Yoshua Bengio", "Yoshua Bengio", 0, False),
    ("Which papers did Y. Bengio write?", "Yoshua Bengio", 0, False),  # initials + surname, from the indexed names
    ("B. Schölkopf 参与了哪些论文？", "Bernhard Schölkopf", 0, False),
    ("Which papers did W. Chen write?", "Wei Chen", 0, False),  # of two Chens, the one whose initial fits
    ("What did X. Bengio publish?", None, 0, False),  # no indexed Bengio's given name starts with X
    # no cue: a capitalised word one indexed author has as surname, no English word nor word of the indexed texts
    ("anything from Bengio on causality?", "Yoshua Bengio", 0, True),
    ("Schölkopf on causal inference", "Bernhard Schölkopf", 0, True),
    # a question all in lower case: the same surnames, read as if capitalised
    ("anything from schölkopf on causality?", "Bernhard Schölkopf", 0, True),
])
def test_author_named_in_a_question(question, name, candidates, topical):
    match = AuthorIndex(PAPERS).find(question)
    assert match.name == name and len(match.candidates) == candidates
    assert names_a_topic(question, [match.span]) is topical


@pytest.mark.parametrize("question", [
    "Which papers study diffusion models?", "methods improved by LoRA", "Is there work on Long context?",
    "What is the robustness of Transformers?", "yoshua's favourite methods",
    "Which methods are improved by Adam?", "robustness of GAN training", "papers on Long sequences",
    "Which papers were trained by Adam et",
    "Do LLMs need sam long contexts?",  # "Sam Long" in lower case, both English words, capitals elsewhere
    "Is Chen mentioned anywhere?",  # a surname two authors share needs a cue
    "Is Adam better than SGD here?",  # a word of the indexed texts
    "is adam better than sgd for long contexts?",  # lower case: words of the indexed texts or English all the same
    "papers by graph people",  # lower case: no unknown name is read from a cue
])
def test_no_author_where_none_is_named(question):
    assert AuthorIndex(PAPERS).find(question) is None


@pytest.mark.parametrize("question, names", [
    ("papers by Bengio and Lee?", ("Yoshua Bengio", "Ann Lee")),
    ("Lee and Bengio on causality", ("Ann Lee", "Yoshua Bengio")),  # no cue but the join of two indexed surnames
    ("What have Yoshua Bengio and Ann Lee written?", ("Yoshua Bengio", "Ann Lee")),
    ("Scholkopf 和 Gan 的论文", ("Bernhard Schölkopf", "Li Gan")),
    ("work by Sam Long, Bengio and Lee", ("Sam Long", "Yoshua Bengio", "Ann Lee")),
])
def test_authors_joined_by_and_are_all_read(question, names):
    match = AuthorIndex(PAPERS).find(question)
    assert (match.name, *match.others) == names
    assert not set(match.span.split()) & {"papers", "by", "on", "What", "work", "的论文"}


@pytest.mark.parametrize("question", [
    "Compare Adam and Long context training",  # both are words of the indexed texts
    "Bengio and colleagues on causality",  # one author, a cue
])
def test_no_second_author_where_the_join_names_none(question):
    match = AuthorIndex(PAPERS).find(question)
    assert match is None or not match.others


def test_a_name_written_with_or_without_a_middle_initial_is_the_same_author():
    """"James Y. Zou" was an unknown author while the records hold "James Y Zou" and "James Zou" (held-out set 7)."""
    index = AuthorIndex({"a": {"authors": "James Y Zou; Ann Lee"}, "b": {"authors": "James Zou"},
                         "c": {"authors": "James Zhou"}})
    for written in ("What has James Y. Zou published?", "papers by James Zou", "James Y Zou's work"):
        match = index.find(written)
        assert match and not match.unknown and match.name in ("James Y Zou", "James Zou"), written
    assert sorted(index.same_person("James Y. Zou")) == ["James Y Zou", "James Zou"]
    assert index.same_person("James Zhou") == ["James Zhou"]


@pytest.mark.parametrize("question, name", [
    ("我收藏的 Bengio 的那几篇文章分别提出了什么方法？", "Yoshua Bengio"),  # a Latin name set in Chinese
    ("Schölkopf 的论文讲了什么？", "Bernhard Schölkopf"),
    ("Did Bengio write anything on causality?", "Yoshua Bengio"),  # a known surname after a strong cue
    ("how many papers has Bengio co-authored in here", "Yoshua Bengio"),
    ("Adam 的收敛性有哪些论文研究？", None),  # a word of the indexed texts is no author without a strong cue
])
def test_a_surname_alone_is_an_author_where_the_question_sets_it_as_one(question, name):
    match = AuthorIndex(PAPERS).find(question)
    assert (match.name if match else None) == name


def test_an_unknown_author_gets_the_closest_spellings():
    match = AuthorIndex(PAPERS).find("Which papers by Yoshua Bengoi are indexed?")
    assert match.unknown and match.closest == ("Yoshua Bengio",)
    assert AuthorIndex(PAPERS).find("papers by Geoffrey Hinton").unknown
    assert AuthorIndex({**PAPERS, "e": {"authors": "Hao Fei; Bo Li"}}).find(
        "What papers by Fei-Fei Li are indexed?").unknown


@pytest.mark.parametrize("question, status", [
    ("Which ICLR 2024 orals study robustness?", "Oral"), ("list the spotlight papers", "Spotlight"),
    ("哪些口头报告论文研究扩散模型？", "Oral"), ("Which papers study posterior sampling?", None),
    ("my ICLR 2025 papers that got an oral or a spotlight", "Oral or Spotlight"),  # either admits a paper
])
def test_status_named_in_a_question(question, status):
    assert status_in(question, {"Oral", "Spotlight", "Poster"}) == status


@pytest.fixture()
def llm():
    return ScriptedLLM(["An answer [1]."])


@pytest.fixture()
def pipeline(settings, llm, tmp_path_factory):
    from ragqa.pipeline import Pipeline

    pipeline = Pipeline(settings, llm=llm, fast_llm=llm)
    ingest_bundled(pipeline, tmp_path_factory)  # = pipeline.ingest(pipeline.load()[0], progress=False)
    return pipeline


def _gold_by(author: str) -> int:
    rows = [json.loads(line) for line in Path("data/metadata/titles.jsonl").read_text().splitlines()]
    return len({r["abstract_prefix"] for r in rows if author in r.get("authors", [])})


def test_what_an_author_published_lists_exactly_their_papers(pipeline, llm):
    answer = ask(pipeline, "What did David Bau publish here?")
    assert not answer.abstained and answer.mode == "list"
    assert "author=David Bau" in " ".join(answer.notes)
    gold = _gold_by("David Bau")
    assert gold >= 2 and len(answer.citations) == gold
    assert all("David Bau" in c.authors for c in answer.citations)
    assert all(c.as_json()["title"] for c in answer.citations)  # the bundled papers' titles reach ask --json
    assert answer.text.startswith(f"{gold} indexed papers match author = David Bau")
    assert llm.prompts == []  # metadata answers need no LLM


def test_an_author_written_with_accents_the_records_lack_is_found_not_refused(pipeline, llm):
    """"Csaba Szepesvári" against the indexed "Csaba Szepesvari": the author filter folds accents, and the name it
    matched is no unknown method name for the name gate (it refused the question before)."""
    answer = ask(pipeline, "Is there anything from Csaba Szepesvári in the collection?")
    assert not answer.abstained
    assert "author=Csaba Szepesvari" in " ".join(answer.notes) and answer.citations
    assert all("Csaba Szepesvari" in c.authors for c in answer.citations)


def test_a_topic_label_in_capitals_is_no_unknown_method_name(pipeline, llm):
    """A label written as the records print it ("Social Aspects · …") names the collection's own value: the unknown-name
    gate refused it as a method no paper mentions (a held-out collection question, set 3)."""
    metas = pipeline.searcher.paper_meta()
    label = "Social Aspects · Accountability, Transparency and Interpretability"
    carry = {p for p, m in metas.items() if m.get("topic") == label}
    answer = ask(pipeline, f"Which papers are labelled {label}?")
    assert carry and not answer.abstained and carry <= set(answer.counted)


def test_how_many_orals_counts_the_status_exactly(pipeline, llm):
    answer = ask(pipeline, "How many oral papers are indexed?")
    rows = [json.loads(line) for line in Path("data/metadata/titles.jsonl").read_text().splitlines()]
    gold = len({r["abstract_prefix"] for r in rows if r.get("status") == "Oral"})
    assert answer.text.startswith(f"{gold} indexed papers match status = Oral") and len(answer.citations) == gold


def test_a_question_naming_two_statuses_admits_papers_with_either(pipeline, llm):
    """"oral or spotlight" read one status before (held-out set 7): now both, and a paper with either is counted."""
    rows = [json.loads(line) for line in Path("data/metadata/titles.jsonl").read_text().splitlines()]
    gold = len({r["abstract_prefix"] for r in rows if r.get("status") in ("Oral", "Spotlight")})
    answer = ask(pipeline, "How many papers got an oral or a spotlight?")
    assert "filter from question: status=Oral or Spotlight" in answer.notes
    assert gold > len({r["abstract_prefix"] for r in rows if r.get("status") == "Oral"})
    assert len(answer.counted) == gold


def test_an_author_filter_admits_every_spelling_of_the_name(pipeline, llm):
    """The records spell one author "James Y Zou" and "James Zou": either written admits the papers of both."""
    from ragqa.query.request import Filters

    by = {name: set(pipeline.searcher.matching(Filters(author=name))) for name in ("James Y Zou", "James Zou")}
    from ragqa.query.metadata import authors_of

    metas = pipeline.searcher.paper_meta()
    spelled = {name: {pid for pid, m in metas.items() if name in authors_of(m)} for name in by}
    assert all(spelled.values())
    assert by["James Y Zou"] == by["James Zou"] == spelled["James Y Zou"] | spelled["James Zou"]
    answer = ask(pipeline, "What has James Y. Zou published in my library?")
    assert not answer.abstained and set(answer.counted) == by["James Zou"]


def test_two_authors_admit_their_joint_papers_else_each_ones(pipeline, llm):
    """"papers by Lubana and Tanaka": no cue but the join; both wrote the same two papers, so the filter is their
    joint papers; two who never wrote together admit each one's papers (gold from the records, not the filter)."""
    metas = pipeline.searcher.paper_meta()

    def by(name):
        return {pid for pid, m in metas.items() if name in authors_of(m)}

    joint = by("Ekdeep Singh Lubana") & by("Hidenori Tanaka")
    for asked in ("papers by Lubana and Tanaka?", "lubana & tanaka papers?"):  # lower case: read capitalised
        answer = ask(pipeline, asked)
        assert joint and set(answer.counted) == joint and not answer.abstained, asked
        assert "author=Ekdeep Singh Lubana and Hidenori Tanaka" in " ".join(answer.notes), asked
    either = by("Gal Vardi") | by("Bruno Loureiro")
    assert not by("Gal Vardi") & by("Bruno Loureiro")
    answer = ask(pipeline, "Vardi and Loureiro papers?")
    assert set(answer.counted) == either and not answer.abstained


def test_an_ambiguous_surname_lists_the_candidates_instead_of_guessing(pipeline, llm):
    answer = ask(pipeline, "Which papers are by Liu et al.?")
    assert answer.abstained and answer.why == "ambiguous author"
    assert "Yang Liu (3 papers)" in answer.text and "full name" in answer.text


def test_an_unknown_author_says_so(pipeline, llm):
    answer = ask(pipeline, "What papers by Geoffrey Hinton are indexed?")
    assert answer.abstained and answer.why == "unknown author" and "No indexed paper by Geoffrey Hinton" in answer.text


@pytest.mark.parametrize("question, key", [
    ("Who has the most papers on sparse autoencoders?", "author"),
    ("Which authors published most on diffusion?", "author"),
    ("How many diffusion papers per year?", "year"), ("How did diffusion papers grow from 2024 to 2025?", "year"),
    ("Which venue has the most oral papers?", "venue"), ("每年有多少篇扩散模型论文？", "year"),
    ("哪位作者发表的稀疏自编码器论文最多？", "author"),
    ("who works most on sparse autoencoders in this collection?", "author"),
    ("Who proposed the most cited method?", None), ("每个会议各有多少篇论文？", "venue"),
    ("按年份统计论文数量", "year"),
    ("Which papers study diffusion?", None), ("How many papers study robustness?", None),
    ("What is the most robust method?", None),
])
def test_group_key(question, key):
    from ragqa.query.intent import GROUP, classify, group_key

    assert group_key(question) == key and (classify(question) == GROUP) is (key is not None)


def test_which_venue_has_the_most_orals_groups_the_status_filter_exactly(pipeline, llm):
    rows = [json.loads(line) for line in Path("data/metadata/titles.jsonl").read_text().splitlines()]
    venue_of = {name: facts["venue"]
                for name, facts in json.loads(Path("data/manifest.json").read_text())["files"].items()}
    gold: dict[str, set] = {}
    for r in rows:
        if r.get("status") == "Oral":
            gold.setdefault(venue_of[r["file"]], set()).add(r["abstract_prefix"])
    answer = ask(pipeline, "Which venue has the most oral papers?")
    assert answer.form == "group" and "status = Oral" in answer.text
    assert {row["group"]: row["count"] for row in answer.table} == {v: len(p) for v, p in gold.items()}
    assert llm.prompts == []


@pytest.mark.parametrize("question", ["How many papers per venue?", "Which venue has the most papers?"])
def test_a_group_by_without_filter_or_subject_counts_the_whole_collection(pipeline, llm, question):
    answer = ask(pipeline, question)
    assert answer.form == "group" and not answer.abstained and "(all of them)" in answer.text
    got = {row["group"]: row["count"] for row in answer.table}
    assert got == dict(pipeline.searcher.counts("venue", None))  # the venue postings, not the records grouped
    assert len(answer.counted) == sum(got.values()) == len(pipeline.searcher.paper_meta())
    # the listings' own venues (data/manifest.json, one venue per file), counted over the titles found for them
    venue_of = {name: facts["venue"]
                for name, facts in json.loads(Path("data/manifest.json").read_text())["files"].items()}
    for venue in set(venue_of.values()):
        rows = [json.loads(line) for line in Path("data/metadata/titles.jsonl").read_text().splitlines()]
        assert got[venue] >= sum(venue_of[r["file"]] == venue for r in rows) > 0
    assert llm.prompts == []


def test_a_count_without_filter_or_subject_counts_the_whole_collection_and_a_subject_does_not(pipeline, llm):
    whole = ask(pipeline, "How many papers are indexed?")
    total = len(pipeline.searcher.paper_meta())
    assert (whole.form == "count" and whole.text.startswith(f"{total} indexed papers in all")
            and len(whole.counted) == total)
    assert len(whole.citations) == pipeline.settings.list_max < total
    topical = ask(pipeline, "How many papers study sparse autoencoders?")
    assert "in all" not in topical.text and len(topical.counted) < total


def test_who_has_the_most_papers_on_a_topic_counts_the_accepted_papers(pipeline, llm):
    answer = ask(pipeline, "Who has the most papers on sparse autoencoders?")
    assert answer.form == "group" and not answer.abstained and answer.table
    assert set(answer.counted) == set(answer.judgement["listed"])  # what a list answer for the topic would list
    records = pipeline.searcher.paper_meta().many(answer.counted)
    for row in answer.table:
        assert row["count"] == len(row["papers"]) and all(row["group"] in authors_of(records[p]) for p in row["papers"])
    # the citations are the papers the lines cite, numbered in order, each in its group's row
    assert [c.n for c in answer.citations] == list(range(1, len(answer.citations) + 1))
    assert set(re.findall(r"\[(\d+)\]", answer.text)) == {str(c.n) for c in answer.citations}
    assert {c.paper_id for c in answer.citations} <= set(answer.counted)
    counts = [row["count"] for row in answer.table]
    assert counts == sorted(counts, reverse=True) and "by author" in answer.text


TOPICAL = {"a": {"topic": "Deep Learning->Robustness"}, "b": {"topic": "Theory · Learning Theory"},
           "c": {"topic": "Applications->Computer Vision",
                 "extra": '{"keywords": "graph neural networks, RL, diffusion models"}'},
           "d": {"topic": "Reinforcement Learning", "extra": '{"keywords": "offline reinforcement learning"}'}}


@pytest.mark.parametrize("question, span, papers, cued", [
    ("Which papers study robustness?", "robustness", {"a"}, False),
    ("How many papers are in the robustness area?", "robustness", {"a"}, True),
    ("Is there work on graph neural network?", "graph neural network", {"c"}, False),  # a keyword, plural folded
    ("learning theory papers", "learning theory", {"b"}, False),
    ("Which papers are in the vision area?", "vision", {"c"}, True),  # part of a label, when cued
    ("What does the collection have on reinforcement learning?", "reinforcement learning", {"d"}, False),
    ("papers with the keyword diffusion models", "diffusion models", {"c"}, True),
    ("Which papers study vision transformers?", None, None, False),  # "vision" alone is no label
    ("Which papers study sparse autoencoders?", None, None, False),
    ("Which papers study RL?", None, None, False),  # a label of one short word names nothing
    ("How can I rank embedding models without labeled benchmarks?", None, None, False),  # "labeled" is no cue
    ("How do agents keep track of robustness?", "robustness", {"a"}, False),  # a cue word not next to the label
    ("Which papers are in the area of reinforcement learning?", "reinforcement learning", {"d"}, True),
    ("ICLR 2024 中 computer vision 领域的论文有多少篇？", "computer vision", {"c"}, True),
    # a label quoted whole, as the collection writes it, is named as a label whatever verb goes with it (#44 3)
    ("Which papers are categorized under 'Robustness'?", "Robustness", {"a"}, True),
    ("Which papers are filed under the topic “Learning Theory”?", "Learning Theory", {"b"}, True),
    ("Show me what is listed under \"reinforcement learning\"", "reinforcement learning", {"d"}, True),
    ("哪些论文属于「Learning Theory」？", "Learning Theory", {"b"}, True),
    ("Which papers say 'robust' things about robustness?", "robustness", {"a"}, False),  # the quote is another word
    # a Chinese verb between the cue word and the label ("topic labelled as …")
    ("帮我列一下 topic 标成 robustness 的所有论文", "robustness", {"a"}, True),
])
def test_topic_named_in_a_question(question, span, papers, cued):
    from ragqa.query.metadata import TopicIndex

    match = TopicIndex(TOPICAL).find(question)
    if span is None:
        assert match is None
    else:
        assert (match.span, set(match.papers), match.cued) == (span, papers, cued)


def _names_label(topic: str, value: str) -> bool:
    """The label, or one of its "·" parts, is `value` whole."""
    return value in [topic.lower().strip(), *(part.strip() for part in topic.lower().split("·"))]


def test_an_area_named_as_such_is_an_exact_filter(pipeline, llm):
    """The area is the label the collection has by that name (or a label's "·" part): "Interpretability", not
    "Social Aspects · Accountability, Transparency and Interpretability", which only has the word."""
    answer = ask(pipeline, "How many papers are in the interpretability area?")
    assert "topic=interpretability" in answer.read_from_question and not answer.abstained
    topics = [c.paper_id for c in answer.citations]
    metas = pipeline.searcher.paper_meta()
    assert topics and all(_names_label(metas[p].get("topic") or "", "interpretability") for p in topics)
    assert len(topics) == sum(_names_label(m.get("topic") or "", "interpretability") for m in metas.values())
    assert any("interpretability" in (m.get("topic") or "").lower() and p not in topics for p, m in metas.items())
    assert llm.prompts == []  # the filter is the answer


def test_a_list_on_a_topic_label_takes_every_labelled_paper_too(pipeline, llm):
    answer = ask(pipeline, "Which papers study interpretability?")
    metas = pipeline.searcher.paper_meta()
    labelled = {p for p, m in metas.items() if "interpretability" in (m.get("topic") or "").lower()}
    titled = {p for p, m in metas.items() if "interpretability" in (m.get("title") or "").lower().split()}
    assert labelled and titled - labelled
    assert any(r.startswith("interpretability (") for r in answer.read_from_question)
    assert labelled | titled <= set(answer.counted)
    assert f'({len(labelled | titled)} with "interpretability" in their topic, keywords or title)' in answer.text


def test_a_parsed_filter_can_be_switched_off(pipeline, llm):
    answer = ask(pipeline, "How many papers are in the interpretability area?", auto_filters=False)
    assert answer.read_from_question == [] and not any(n.startswith("filter from question") for n in answer.notes)


def test_filters_the_caller_gives_are_not_read_from_the_question(pipeline, llm):
    """The UI's "Read from your question" line (and its undo) shows only what the question itself set."""
    from ragqa.query.request import Filters

    given = ask(pipeline, "How many papers are in the interpretability area?",
                filters=Filters(topic="interpretability"))
    read = ask(pipeline, "How many papers are in the interpretability area?")
    assert given.read_from_question == [] and read.read_from_question == ["topic=interpretability"]
    assert given.as_json()["read_from_question"] == [] and read.as_json()["read_from_question"]


@pytest.mark.parametrize("question, key, status, yearless",
                         [("How many papers are indexed per year?", "year", None, True),
                          ("Which venue has the most oral papers?", "venue", "Oral", False)])
def test_a_metadata_group_counts_what_the_records_say_and_cites_each_groups_newest(pipeline, llm, tmp_path, question,
                                                                                   key, status, yearless):
    from ragqa.answer.compose import CITED_PER_GROUP
    from ragqa.query.request import Filters

    if yearless:  # papers with no year group under "(year unknown)", as the records say
        extra = tmp_path / "undated.jsonl"
        extra.write_text("\n".join(json.dumps({"id": f"u{i}", "title": f"Undated study {i}",
                                               "abstract": "We study graph kernels "
                                                           "for proteins and report accuracy on three benchmarks.",
                                               "venue": "Preprint"})
                                    for i in range(3)))
        pipeline.ingest(pipeline.load([extra])[0], progress=False, library="undated")
    records = pipeline.searcher.matching(Filters(status=status))
    gold: dict[str, set] = {}
    for pid, meta in records.items():
        gold.setdefault(str(meta.get(key) or f"({key} unknown)"), set()).add(pid)
    answer = ask(pipeline, question)
    assert answer.form == "group" and {row["group"]: set(row["papers"]) for row in answer.table} == gold
    assert [row["count"] for row in answer.table] == [len(row["papers"]) for row in answer.table]
    newest = lambda pid: (-(records[pid].get("year") or 0), records[pid].get("label") or "", pid)
    number = {c.paper_id: c.n for c in answer.citations}
    for row in answer.table:
        firsts = sorted(row["papers"], key=newest)[:CITED_PER_GROUP]
        assert row["papers"][:len(firsts)] == firsts and all(pid in number for pid in firsts)
        line = next(line for line in answer.text.splitlines() if line.startswith(f"- {row['group']}: {row['count']} "))
        assert re.findall(r"\[(\d+)\]", line) == [str(number[pid]) for pid in firsts]
    assert len(answer.citations) == len(number) == sum(min(len(ids), CITED_PER_GROUP) for ids in gold.values())


def test_every_indexed_author_a_question_writes_is_a_person_not_a_subject():
    index = AuthorIndex(PAPERS)
    question = "I'm looking for work by Yoshua Bengio and Ann Lee"
    assert index.find(question).name == "Yoshua Bengio"
    assert index.full_names(question) == ["Yoshua Bengio", "Ann Lee"]
    assert names_a_topic(question, ["Yoshua Bengio"]) and not names_a_topic(question, index.full_names(question))


def test_a_work_cited_as_x_et_al_is_searched_not_refused_as_an_unknown_author(indexed):
    """The bundled offline-RL abstract cites "Foster et al."; no indexed author is called Foster."""
    from ragqa.retrieval.retrieve import search

    cited = search(indexed.searcher,
                   "Do full trajectories get around the Foster et al. impossibility result in offline RL?",
                   translate=False)
    assert cited.author is None and any("Foster et al." in n for n in cited.notes)
    for asked in ("papers by Foster et al.", "What did Foster publish?"):  # a request for the person's papers
        result = search(indexed.searcher, asked, translate=False)
        assert result.author is not None and result.author.unknown, asked
    never_cited = search(indexed.searcher, "Does the Zyxwv et al. bound hold for offline RL?", translate=False)
    assert never_cited.author is not None and never_cited.author.unknown


@pytest.mark.parametrize("question, spans, subject", [
    ("How many papers does the collection hold in total?", [], ""),
    ("Which ICLR 2024 papers in the collection deal with large language models?", ["ICLR 2024"],
     "large language models"),
    ("Which papers are categorized under 'Interpretability'?", ["Interpretability"], ""),
    ("Which papers from the NeurIPS 2024 list tackle reinforcement learning?", ["NeurIPS 2024"],
     "reinforcement learning"),
    ("这个库里有多少篇ICLR 2024的论文？", ["ICLR 2024"], ""),
    # Chinese request wording (frame_words.zh) names no subject: "help me list", "labelled as", "my saved"
    ('帮我列一下 topic 标成 "Interpretability" 的所有论文', ["Interpretability"], ""),
    ("我收藏的 ICLR 2024 oral 论文都列出来", ["ICLR 2024", "oral"], ""),
    ("有没有时间序列预测的论文？", [], "时间序列预测"),
    ("How many papers are about quantum chemistry?", [], "quantum chemistry"),
    # verbs the request wording list lacks, learned from ML abstracts (lexicon/verbs.en.txt), frame no subject
    ("Which ICLR 2024 papers fall under the topic 'Computer Vision'?", ["ICLR 2024", "Computer Vision"], ""),
    ("Which papers carry the topic label Robotics?", ["Robotics"], ""),
    ("Which NeurIPS 2024 papers appear under 'Deep Learning'?", ["NeurIPS 2024", "Deep Learning"], ""),
    ("Which ICML 2024 papers can be found under 'Theory'?", ["ICML 2024", "Theory"], ""),
    # nouns a paper frames itself with (lexicon/nouns.en.txt, learned the same way) frame no subject either
    ("Give me the contributions and limitations of my ICML 2024 papers", ["ICML 2024"], ""),
    ("Which NeurIPS 2024 papers are on diffusion, and what are their results?", ["NeurIPS 2024"], "diffusion"),
    # participles after a form of "be" (lexicon/participles.en.txt) and function words go
    ("Among my ICLR 2025 papers, which ones are built around generative models?", ["ICLR 2025"], "generative models"),
    # function words go; a hyphenated word stays whole, as the indexed terms hold it, unless no part is subject
    ("Out of my ICML 2024 papers, how many are on diffusion?", ["ICML 2024"], "diffusion"),
    ("Which papers study off-policy evaluation?", [], "off-policy evaluation"),
    ("Which ICML 2024 papers are about in-context learning?", ["ICML 2024"], "in-context learning"),
    ("Which paper did Gal Vardi co-author?", ["Gal Vardi"], ""),
    # a function word only hyphenated keywords hold ("one-shot learning") goes when it stands alone
    ("Of my ICML 2024 papers, which one does data valuation?", ["ICML 2024"], "data valuation"),
    ("Which papers study one-shot learning?", [], "one-shot learning"),
    # the singular of a learned framing noun goes too
    ("My NeurIPS 2024 papers: what is the main result of each?", ["NeurIPS 2024"], ""),
    # a subject keeps its words, verbs aside: a keyword word ("jailbreak") is never taken for a verb
    ("Which papers explore jailbreak attacks?", [], "jailbreak attacks"),
    ("Which ICLR 2024 papers improve calibration?", ["ICLR 2024"], "calibration"),
    # request wording typed with a slip (no English word, one slip from a frame or function word) goes; a subject
    # word typed with one stays (retrieval's spelling corrects it against the indexed terms)
    ("Could you fetch evrything I saved from Yoshua Bengio?", ["Yoshua Bengio"], ""),
    ("Show me papers abuot graph learnign", [], "graph learnign"),
    # a span goes whatever punctuation the question (or its translation) writes between its words
    ('The papers tagged "Social Aspects · Accountability, Transparency, and Interpretability"?',
     ["Social Aspects · Accountability, Transparency and Interpretability"], ""),
    ("NeurIPS'24 papers on GNNs", ["NeurIPS 24"], "gnns"),
    # request verbs in every inflection
    ("Which ICLR 2024 papers addressed or covered robustness?", ["ICLR 2024"], "robustness"),
    ("Papers by Gal Vardi: what each one contributes", ["Gal Vardi"], ""),
    # the noun a presentation status is written with names no subject either
    ("Which papers did the oral presentations at ICLR 2024 cover?", ["ICLR 2024", "oral"], ""),
    ("Spotlight talks at ICML 2024 on diffusion?", ["ICML 2024", "Spotlight"], "diffusion"),
])
def test_the_subject_is_what_metadata_and_request_wording_leave(question, spans, subject):
    """#44 3: what a list must be about (topical.topical_query), and whether anything is (names_a_topic)."""
    from ragqa.query.metadata import names_a_topic, subject_of

    assert subject_of(question, spans) == subject and names_a_topic(question, spans) == bool(subject)


def test_request_wording_is_a_lexicon_per_language():
    """#43 4: the words that say what kind of request a question is (not its subject) are data files per language,
    ragqa/query/lexicon/frame_words.<lang>.txt, not lists in the code."""
    from ragqa.query import metadata

    english = set(metadata._lexicon("frame_words.en"))
    assert {"papers", "collection", "categorized"} <= english and english <= metadata.FRAME_WORDS
    assert "有哪些" in metadata._lexicon("frame_words.zh")
    assert metadata.subject_of("库中有哪些关于扩散模型的论文？", []) == "扩散模型"
    assert metadata.subject_of("Which papers in the collection are categorized under robustness?", []) == "robustness"


@pytest.mark.parametrize("question, counted", [("How many papers study interpretability?", "Counted:"),
                                               ("有多少篇论文研究 interpretability？", "计数口径")])
def test_a_count_on_a_subject_says_what_it_counted(pipeline, llm, question, counted):
    """#44: a count with a subject is a number with its definition (what was counted, the topical point), in the
    question's language; the LLM writes none of it (it may translate the question)."""
    answer = ask(pipeline, question, auto_filters=False)
    assert answer.form == "count" and not answer.abstained and not any("<source" in p for p in llm.prompts)
    assert counted in answer.text and f"{pipeline.topical.on_point:.2f}" in answer.text
    assert answer.text.lstrip()[0].isdigit() or answer.text.lstrip().startswith("找到")


def test_a_label_s_parts_are_split_as_the_listings_write_them():
    from ragqa.query.metadata import label_parts

    assert label_parts("Deep Learning->Robustness") == ["Deep Learning", "Robustness"]
    assert label_parts("Theory · Learning Theory") == ["Theory", "Learning Theory"]
    assert label_parts("Interpretability") == ["Interpretability"] and label_parts("") == []


def test_an_author_written_without_a_middle_name_is_the_indexed_author():
    """Held-out set 31: "Ekdeep Lubana" for the indexed "Ekdeep Singh Lubana" was an unknown name (refused); a given
    name and surname name the author whose middle names they leave out, and no one else."""
    from ragqa.query.metadata import AuthorIndex

    index = AuthorIndex({"a": {"authors": "Ekdeep Singh Lubana; Hidenori Tanaka"}, "b": {"authors": "Ekdeep Lubanova"}})
    for written in ("Of the papers Ekdeep Lubana is on, which use probing?", "papers by Ekdeep S. Lubana"):
        match = index.find(written)
        assert match and not match.unknown and match.name == "Ekdeep Singh Lubana", written
    assert index.same_person("Ekdeep Lubana") == ["Ekdeep Singh Lubana"]
    assert index.same_person("Hidenori Lubana") == [] and index.same_person("Lubana") == []
    assert AuthorIndex({"a": {"authors": "ZhengTingHuang"}}).same_person("Tanaka") == []  # a one-word name


def test_whether_a_word_is_in_the_indexed_texts_is_asked_of_the_term_table():
    """At 1M papers the vocabulary of every abstract is minutes and gigabytes: with the catalog's term table attached,
    a bare surname is checked against it, and the abstracts are never read whole."""
    def term_df(terms):
        return {t: 3 for t in terms if t == "mamba"}  # "mamba" is a term indexed papers write

    index = AuthorIndex({"a": {"authors": "Soheil Feizi; Ann Mamba", "text": "We study Feizi."}})
    index.use_terms(term_df)
    assert index.find("anything from Feizi on multimodal LLMs?").name == "Soheil Feizi"  # the table lacks it
    assert index.find("Is Mamba faster than attention?") is None
    assert index._vocabulary is None
