"""Evaluation harness: dataset loaders, metric wiring on a hand-checked example, report writing,
and a CI-sized run (hashing embedder, small dataset)."""
from __future__ import annotations

import json

import pytest

from evals.dataset import load_beir, load_dataset
from evals.metrics import ir_metrics
from ragqa.errors import QueryError
from tests.conftest import ROOT


def _write(tmp_path, lines):
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("line,match", [
    ("{oops", "line 1: invalid JSON"),
    ('{"id": "1", "question": "q"}', "line 1: missing gold"),
    ('{"id": "1", "question": "q", "gold": "p1"}', "'gold' must be a list"),
    ('{"id": "1", "question": " ", "gold": []}', "empty question"),
    ('{"id": "1", "question": "q", "gold": [], "type": "weird"}', "unknown type 'weird'"),
    ('{"id": "1", "question": "q", "gold": [], "filters": {"colour": "red"}}', "unknown filter"),
    ('{"id": "1", "question": "q", "gold": [], "kind": "hard"}', "unknown kind 'hard'"),
])
def test_dataset_errors_name_the_line(tmp_path, line, match):
    with pytest.raises(QueryError, match=match):
        load_dataset(_write(tmp_path, [line]))


def test_duplicate_ids_and_missing_file(tmp_path):
    row = '{"id": "1", "question": "q", "gold": []}'
    with pytest.raises(QueryError, match="line 2: duplicate id"):
        load_dataset(_write(tmp_path, [row, row]))
    with pytest.raises(QueryError, match="No dataset"):
        load_dataset(tmp_path / "nope.jsonl")


def test_seed_dataset_is_valid_and_covers_every_type():
    questions = load_dataset(ROOT / "evals" / "datasets" / "seed_questions.jsonl")
    types = {q.type for q in questions}
    assert len(questions) >= 80 and {"single", "multi", "filtered", "chinese", "followup", "unanswerable"} <= types
    assert all(q.history for q in questions if q.type == "followup")


def test_answer_dataset_tags_every_unanswerable_question_with_a_kind():
    questions = load_dataset(ROOT / "evals" / "datasets" / "answer_questions.jsonl")
    unanswerable = [q for q in questions if q.type == "unanswerable"]
    assert len(questions) >= 20 and all(q.kind for q in unanswerable) and all(not q.kind for q in questions if q.gold)
    assert {q.kind for q in unanswerable} == {"off-topic", "named", "near-miss"}


def test_answer_eval_counts_abstentions_by_kind(indexed):
    from evals.answers import run_answers
    from evals.dataset import EvalQuestion
    from tests.fakes import ScriptedLLM

    indexed.use_llms(ScriptedLLM(["The indexed papers do not answer this question."] * 3))
    from dataclasses import replace

    indexed.calibration = replace(indexed.calibration, answer_threshold=1.01)  # the model accepts no question
    questions = [EvalQuestion("1", "What does the LoRA paper recommend for rank?", (), "unanswerable", kind="named"),
                 EvalQuestion("2", "Which city hosted the 2016 Summer Olympics?", (), "unanswerable", kind="off-topic")]
    result = run_answers(indexed, questions, progress=False)
    assert result["abstained_by_kind"] == {"named": "1/1", "off-topic": "1/1"}
    assert result["abstention_on_unanswerable"] == 1.0 and result["citations_valid_share"] == 1.0
    assert all(row["why"] and "dropped" in row and row["query"] for row in result["rows"])


def test_metric_wiring_hand_checked():
    qrels = {"a": {"p1": 1}, "b": {"p2": 1, "p3": 1}, "c": {"p4": 1}}
    run = {"a": {"p1": 3.0, "p2": 2.0}, "b": {"p9": 3.0, "p3": 2.0, "p2": 1.0}, "c": {}}
    means, per = ir_metrics(qrels, run)
    assert per["recall@1"] == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert per["mrr@10"]["b"] == pytest.approx(0.5)
    # b: DCG = 1/log2(3) + 1/log2(4); ideal = 1 + 1/log2(3)
    assert per["ndcg@10"]["b"] == pytest.approx((0.63093 + 0.5) / 1.63093, abs=1e-4)
    assert means["recall@3"] == pytest.approx(2 / 3, abs=1e-4)


def test_beir_loader(tmp_path):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text('{"_id": "d1", "title": "T", "text": "x"}\n')
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "what"}\n{"_id": "q2", "text": "unjudged"}\n')
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    beir = load_beir(tmp_path, "test")
    assert beir.queries == {"q1": "what"} and beir.qrels == {"q1": {"d1": 1}}
    with pytest.raises(QueryError, match="train.tsv"):
        load_beir(tmp_path, "train")


def test_ci_sized_retrieval_run_and_report(indexed, tmp_path):
    from evals.report import write_compare_report
    from evals.retrieval import run_dataset

    questions = load_dataset(ROOT / "evals" / "datasets" / "smoke.jsonl")
    first = run_dataset(indexed, questions, translate=False, progress=False)
    second = run_dataset(indexed, questions, translate=False, progress=False)
    assert first["overall"] == second["overall"]  # deterministic
    assert first["scored"] == sum(1 for q in questions if q.gold) and not first["errors"]
    assert 0.0 < first["overall"]["recall@10"] <= 1.0
    path = write_compare_report(tmp_path, "smoke", {"hash-hybrid": first}, {"git": "test"})
    text = path.read_text()
    assert "| hash-hybrid |" in text and (tmp_path / "recall_at_k.png").stat().st_size > 1000
    assert json.loads((tmp_path / "report.json").read_text())["results"]["hash-hybrid"]["overall"] == first["overall"]


def test_generated_questions_that_copy_the_abstract_are_detected():
    from evals.generate import clean_question, copied_ngram

    abstract = "We introduce a novel continuous graph neural network framework with fractional calculus."
    assert (copied_ngram("Is there a continuous graph neural network framework for this?", abstract)
            == "continuous graph neural network")
    assert copied_ngram("Which GNNs use derivatives of non-integer order?", abstract) is None
    assert (clean_question('Question: "Which GNNs use non-integer derivatives?"\nextra')
            == "Which GNNs use non-integer derivatives?")


def test_generated_questions_must_stand_alone():
    from evals.generate import _DEICTIC

    assert _DEICTIC.search("What is the main contribution of the paper?")
    assert not _DEICTIC.search("Which methods make sparse autoencoders cheaper to train?")


def test_citation_support_check_can_fail():
    """The check is now the fitted claim-support check the answerer runs (it was the word-share rule), and a related
    answer's first paragraph, written in code to name the closest papers, is left out: the check drops it."""
    from evals.answers import citations_supported
    from ragqa.answer.records import Answer, Citation

    good = Citation(1, "p1", "DRAGON", "ICML 2024", 2024, [],
                    "DRAGON learns the order of fractional derivatives on graphs.", "")
    answer = Answer("q", "DRAGON learns fractional derivative orders on graphs [1].", False, "llm", citations=[good])
    assert citations_supported(answer) is True
    wrong = Answer("q", "The method was tested on speech recordings of children in German [1].", False, "llm",
                   citations=[good])
    assert citations_supported(wrong) is False
    assert citations_supported(Answer("q", "Not covered.", True, "abstain")) is None
    # a record answer's sentence is supported by the cited record's authors and venue, not by its abstract
    byline = Citation(1, "p1", "DRAGON", "ICML 2024", 2024, ["Kai Zhao", "Xuhao Li"], good.abstract, "", title="DRAGON")
    record = "**DRAGON** (ICML 2024) is by Kai Zhao and Xuhao Li [1]."
    assert citations_supported(Answer("q", record, False, "record", citations=[byline])) is True
    other = Citation(1, "p1", "DRAGON", "NeurIPS 2023", 2023, ["Ann Lee"], good.abstract, "", title="DRAGON")
    # not what the record says
    assert citations_supported(Answer("q", record, False, "record", citations=[other])) is False
    # a related answer's first paragraph names the closest papers in code: not a claim of theirs, so not checked
    related = ("No indexed paper clearly does exactly this; the closest is DRAGON [1].\n\n"
               "DRAGON learns fractional derivative orders on graphs [1].")
    assert citations_supported(Answer("q", related, False, "llm", citations=[good], coverage="related")) is True
    assert citations_supported(Answer("q", related, False, "llm", citations=[good])) is False


def test_fact_recall_counts_facts_stated():
    from evals.answers import fact_recall

    facts = ["DRAGON learns a distribution over fractional derivative orders.",
             "It beats GRAND on ogbn-arxiv by 2 points."]
    assert fact_recall("DRAGON learns a distribution over derivative orders [1].", facts) == 0.5
    assert fact_recall("Unrelated text about cats.", facts) == 0.0


def test_prose_fact_recall_leaves_quotes_out():
    from evals.answers import fact_recall, prose

    facts = ["DRAGON learns a distribution over derivative orders."]
    quoted = 'It is a GNN [1].\n\nIn DRAGON\'s words: "DRAGON learns a distribution over derivative orders." [1]'
    assert fact_recall(quoted, facts) == 1.0 and fact_recall(prose(quoted), facts) == 0.0


def test_own_part_key_facts_put_a_papers_background_last():
    from types import SimpleNamespace

    from evals.answers import key_facts

    text = ("Data valuation plays a crucial role in machine learning. Shapley values are slow. "
            "We propose GMV, a training-free valuation method. GMV is ten times faster than sampling.")
    closeness = {"Data valuation plays a crucial role in machine learning.": 0.9, "Shapley values are slow.": 0.8,
                 "We propose GMV, a training-free valuation method.": 0.5,
                 "GMV is ten times faster than sampling.": 0.4}

    class Embedder:
        def get_text_embedding_batch(self, texts):
            return [[closeness[t], 0.0] for t in texts]

        def get_query_embedding(self, _):
            return [1.0, 0.0]

    pipeline = SimpleNamespace(searcher=SimpleNamespace(paper_meta=lambda: {"p1": {"text": text}}), embedder=Embedder())
    q = SimpleNamespace(gold=["p1"], question="How is training data valued?")
    assert (key_facts(pipeline, q) == ["Data valuation plays a crucial role in machine learning.",
                                       "Shapley values are slow."])
    assert key_facts(pipeline, q, own_part=True) == ["We propose GMV, a training-free valuation method.",
                                                     "GMV is ten times faster than sampling."]
    assert (key_facts(pipeline, q, n=4, own_part=True)[2:]
            == ["Data valuation plays a crucial role in machine learning.", "Shapley values are slow."])


def test_the_scale_plot_draws_every_measured_cost_against_size(tmp_path):
    from evals.bench_scale import plot

    rows = [{"store": "embedded", "papers": n, "ingest_papers_per_s": 150 - n / 1000, "store_mb": n / 30,
             "search_p50_ms": 20 + n / 5000} for n in (10_000, 100_000)]
    rows.append({"store": "chroma server", "papers": 10_000, "search_p50_ms": 30.0})
    drawn = plot(rows, tmp_path / "scale.png")
    assert (tmp_path / "scale.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(drawn) == ["ingest_papers_per_s (embedded)", "search_p50_ms (chroma server)",
                             "search_p50_ms (embedded)", "store_mb (embedded)"]


def test_answer_eval_reads_several_sets_and_one_language(tmp_path):
    from evals.cli import _answer_questions

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"id": "q1", "question": "什么是B-cos？", "gold": ["x"], "lang": "zh"}\n'
                 '{"id": "q2", "question": "What is B-cos?", "gold": ["x"]}\n', encoding="utf-8")
    b.write_text('{"id": "q1", "question": "什么是B-cos？", "gold": ["x"], "lang": "zh"}\n'
                 '{"id": "q9", "question": "它们用在哪里？", "gold": ["x"], "lang": "zh", "history": '
                 '["什么是B-cos？"]}\n', encoding="utf-8")
    assert [q.id for q in _answer_questions([a, b], "zh")] == ["a:q1", "b:q9"]  # the repeat asked once
    assert [q.id for q in _answer_questions([a], None)] == ["q1", "q2"]


def test_the_readme_retrieval_command_runs_on_one_and_on_several_sets(indexed, capsys, monkeypatch):
    """`ragqa eval retrieval --dataset FILE` crashed (the parser had no --lang since `eval answers` took it)."""
    from ragqa import cli

    monkeypatch.setenv("RAGQA_VECTORSTORE_DIR", str(indexed.settings.vectorstore_dir))
    monkeypatch.setenv("RAGQA_EMBED_MODEL", "hash")
    smoke = str(ROOT / "evals" / "datasets" / "smoke.jsonl")
    assert cli.main(["eval", "retrieval", "--dataset", smoke, "--no-translate", "--json"]) == 0
    one = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert 0.0 < one["overall"]["recall@10"] <= 1.0
    assert cli.main(["eval", "retrieval", "--dataset", smoke, smoke, "--lang", "en", "--no-translate", "--json"]) == 0
    twice = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert twice["scored"] <= one["scored"]  # a repeat is asked once; English only


@pytest.mark.parametrize("text, number", [
    ("Of the 19 indexed papers matching venue = ICML 2024, 2 address this, most relevant first:", 2),
    ("符合 venue = ICML 2024 的 19 篇论文中，找到 2 篇相关的已索引论文：", 2),
    ("0: of the 19 indexed papers matching venue = ICML 2024, none is on this subject.", 0),
    ("19 indexed papers match venue = ICML 2024, newest first:", 19),
    ("The collection holds 95 papers.", 95),
])
def test_a_count_answer_is_judged_by_the_number_after_its_scope(text, number):
    """The scope an answer within filters opens with (how many they admit, the venue's year) is not the count."""
    from evals.experiments.collection_questions import stated_number

    assert stated_number(text) == number
