"""The answerability model on fixed feature rows, its features, and its calibration file."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ragqa.answer.answerability import (
    FEATURES,
    Calibration,
    Candidate,
    candidate_features,
    judge,
    load_calibration,
    with_context,
)
from ragqa.errors import RagqaError
from ragqa.retrieval.hits import Hit
from ragqa.text.terms import TermStats, terms


def _calibration(**kw) -> Calibration:
    five = ("cosine", "closeness", "coverage", "gap", "named")  # a calibration file may hold any subset of the features
    base = dict(embed_model="test", features=five, mean=(0.0,) * len(five), scale=(1.0,) * len(five),
                coef=(4.0, 2.0, 1.0, -2.0, 3.0), intercept=-3.0, answer_threshold=0.6, list_threshold=0.4)
    base.update(kw)
    return Calibration(**base)


def _row(pid, cosine, closeness=None, coverage=0.5, rarest=0.5, unseen=0.0, gap=0.0, named=0.0):
    return Candidate(pid, cosine, cosine if closeness is None else closeness, coverage, rarest, unseen, gap, named)


def test_probability_rises_with_each_positive_signal():
    cal = _calibration()
    low, high = cal.probability([_row("a", 0.3), _row("b", 0.7)])
    assert high > low
    plain, named = cal.probability([_row("a", 0.5), _row("a", 0.5, named=1.0)])
    assert named > plain
    near, far = cal.probability([_row("a", 0.6), _row("a", 0.6, gap=0.3)])
    assert far < near


def test_judge_answers_lists_and_abstains_at_the_operating_points():
    cal = _calibration()
    strong = judge(cal, [_row("a", 0.9, coverage=1, rarest=1), _row("b", 0.6), _row("c", 0.1, gap=0.8)])
    assert strong.answerable and strong.listed[0] == "a" and "c" not in strong.listed
    assert list(strong.listed) == sorted(strong.listed, key=lambda p: -strong.probabilities[p])
    assert strong.answering == ("a", "b") and strong.explain(2) == ["a", "b"] and strong.explain(1) == ["a"]
    # P(b) ~0.5: listed, not answering
    only_listed = judge(cal, [_row("a", 0.9, coverage=1, rarest=1), _row("b", 0.42)])
    assert cal.list_threshold <= only_listed.probabilities["b"] < cal.answer_threshold
    # an explain answer's 2nd paper must answer
    assert only_listed.top(2) == ["a", "b"] and only_listed.explain(2) == ["a"]
    weak = judge(cal, [_row("a", 0.2, coverage=0, rarest=0)])
    assert not weak.answerable and weak.best < cal.answer_threshold
    assert not judge(cal, []).answerable


def test_a_paper_the_question_names_makes_it_answerable_and_leads_the_list():
    cal = _calibration(coef=(4.0, 2.0, 1.0, -2.0, 0.0))  # even with no weight on the flag
    rows = [_row("a", 0.8, coverage=1, rarest=1), _row("b", 0.1, coverage=0, rarest=0, gap=0.7, named=1.0)]
    named = judge(cal, rows)
    assert named.probabilities["b"] < cal.list_threshold and named.answerable and named.listed[0] == "b"
    alone = judge(cal, [rows[1]])
    assert alone.answerable and alone.best < cal.answer_threshold and alone.top(1) == ["b"]
    assert not judge(cal, [_row("b", 0.1, coverage=0, rarest=0, gap=0.7)]).answerable
    # an explain answer is written from the named paper alone, even when another paper would answer on its own
    assert named.answering[0] == "b" and "a" in named.answering and named.explain(2) == ["b"]


def test_calibration_round_trips_and_rejects_other_features(tmp_path):
    cal = _calibration()
    assert Calibration.from_json(json.loads(json.dumps(cal.to_json()))) == cal
    with pytest.raises(RagqaError, match="calibrate"):  # a feature this version does not measure
        Calibration.from_json(cal.to_json() | {"features": list(FEATURES[:-1]) + ["bm25_rank"]})
    with pytest.raises(ValueError, match="features"):  # weights for five inputs, one feature named
        Calibration.from_json(cal.to_json() | {"features": ["cosine"]})


def test_context_features_say_how_far_a_paper_leads_the_others():
    cols = with_context({"cosine": [0.7, 0.5, 0.4], "closeness": [0.6, 0.65, 0.1], "coverage": [1.0, 0.5, 0.5]})
    assert cols["lead"] == pytest.approx([0.2, -0.2, -0.3])  # the best leads the next; the others trail the best
    assert cols["lead_closeness"] == pytest.approx([-0.05, 0.05, -0.55])
    assert cols["lead_coverage"] == pytest.approx([0.5, -0.5, -0.5])
    assert cols["spread"] == pytest.approx([0.7 - 1.6 / 3] * 3)
    # a lone paper leads nobody
    assert with_context({"cosine": [0.5], "closeness": [0.5], "coverage": [1.0]})["lead"] == [0.0]


def test_candidate_features_carry_the_context_of_the_question():
    hits = [Hit.of_paper("a", {"text": "sparse autoencoders"}, 0.7), Hit.of_paper("b", {"text": "autoencoders"}, 0.5)]
    stats = TermStats({"a": {"text": "sparse autoencoders"}, "b": {"text": "autoencoders"}})
    a, b = candidate_features("sparse autoencoders", hits, {}, stats)
    assert a.lead == pytest.approx(0.2) and b.lead == pytest.approx(-0.2) and a.lead_coverage > 0 > b.lead_coverage


def test_a_calibration_reads_the_features_it_names():
    """A file fitted on other features (a context one first) takes those columns of each candidate, in its order."""
    cal = Calibration(embed_model="test", features=("lead", "cosine"), mean=(0.0, 0.0), scale=(1.0, 1.0),
                      coef=(40.0, 0.0), intercept=-1.0, answer_threshold=0.5, list_threshold=0.5)

    def judged(cosines):
        rows = [_row(str(i), c) for i, c in enumerate(cosines)]
        cols = with_context({f: [getattr(r, f) for r in rows] for f in ("cosine", "closeness", "coverage")})
        return judge(cal, [replace(r, **{k: v[i] for k, v in cols.items()}) for i, r in enumerate(rows)])
    assert judged([0.6, 0.4]).answerable and not judged([0.6, 0.6]).answerable
def test_missing_or_broken_calibration_file_is_one_clear_error(settings, tmp_path):
    with pytest.raises(RagqaError, match="No calibration file"):
        load_calibration(settings.model_copy(update={"calibration_file": tmp_path / "none.json"}), "x")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(RagqaError, match="not valid"):
        load_calibration(settings.model_copy(update={"calibration_file": broken}), "x")


def test_committed_calibrations_load_for_both_embedders(settings):
    for name in ("all-MiniLM-L6-v2", "hash-256"):
        cal = load_calibration(settings.model_copy(update={"calibration_file": None}), name)
        assert set(cal.features) <= set(FEATURES) and 0 < cal.list_threshold < 1 and 0 < cal.answer_threshold < 1
    assert (load_calibration(settings.model_copy(update={"calibration_file": None}), "all-MiniLM-L6-v2").features
            == FEATURES)


def _hit(pid, relevance, text):
    return Hit(paper_id=pid, score=0.0, relevance=relevance, text=text, meta={"text": text, "label": pid})


def test_features_see_rare_terms_and_unseen_terms():
    papers = {f"p{i}": {"text": "graph neural networks for molecules"} for i in range(8)}
    papers["rare"] = {"text": "we study zeroshot quokka detection with graph networks"}
    stats = TermStats(papers)
    assert stats.idf("quokka") > stats.idf("graph")
    hits = [_hit("rare", 0.5, papers["rare"]["text"]), _hit("p0", 0.55, papers["p0"]["text"])]
    rare, common = candidate_features("Which papers study quokka detection?", hits, {}, stats)
    assert rare.rarest == 1.0 and common.rarest == 0.0 and rare.coverage > common.coverage
    assert rare.unseen == common.unseen == 0.0
    (outside,) = candidate_features("papers on watermarking quokka text", hits[:1], {}, stats)
    assert 0 < outside.unseen < 1  # "watermarking" and "text" occur in no indexed paper
    assert rare.gap == pytest.approx(0.05) and common.gap == 0.0


def test_a_hyphenated_question_word_no_paper_writes_as_one_is_read_as_its_parts():
    """An abstract's "Wasserstein space" covers a question's "Wasserstein-space", as an abstract's "high-norm tokens"
    already covered a question's "high norm tokens"; a compound some paper writes as one stays one term."""
    papers = {"ot": {"text": "gradient flows in the wasserstein space of measures"},
              "hn": {"text": "we remove high-norm tokens from vision transformers"},
              **{f"p{i}": {"text": "graph neural networks for molecules"} for i in range(6)}}
    stats = TermStats(papers)
    hits = [_hit("ot", 0.5, papers["ot"]["text"]), _hit("p0", 0.5, papers["p0"]["text"])]
    ot, other = candidate_features("Which papers use Wasserstein-space gradient flows?", hits, {}, stats)
    assert ot.coverage == pytest.approx(1.0) and other.coverage == 0.0 and ot.qlen == 4.0
    (hn,) = candidate_features("Which papers remove high-norm tokens?", [_hit("hn", 0.5, papers["hn"]["text"])], {},
                               stats)
    assert hn.coverage == pytest.approx(1.0) and hn.qlen == 3.0  # remove, high-norm, token: the compound stays whole


def test_a_named_paper_takes_the_best_cosine_and_the_named_flag():
    stats = TermStats({"a": {"text": "x"}, "b": {"text": "y"}})
    named, other = candidate_features("What is DRAGON?", [_hit("a", 1.0, "x"), _hit("b", 0.4, "y")], {}, stats)
    assert named.named == 1.0 and named.cosine == 0.4 and other.named == 0.0


def test_terms_drop_question_form_words():
    assert (terms("Which papers propose new ways to evaluate interpretability methods?")
            == ["evaluate", "interpretability"])
    # conversational request wording is form too: "whats the deal with" made a question about high-norm tokens abstain
    assert terms("whats the deal with high norm tokens in vits") == ["high", "norm", "token", "vits"]
    assert terms("Please explain briefly what registers do") == ["register"]
    # what a list request says its papers do with the subject, in any form: "mentioning" made a list question whose
    # subject is a bundled paper's title abstain (P 0.007 -> 0.73 without it)
    for asked in ("papers mentioning double descent?", "Any work discussing double descent",
                  "studies investigating double descent",
                  "Is there a paper proposing double descent?", "work focused on double descent"):
        assert terms(asked) == ["double", "descent"], asked


def test_a_papers_hyphenated_words_also_give_their_parts():
    """A question's "high norm tokens" finds an abstract's "high-norm tokens"; the compound itself stays a term."""
    from ragqa.text.terms import paper_terms

    found = paper_terms({"title": "Vision Transformers Need Registers", "text": "Artifacts are high-norm tokens."})
    assert {"high-norm", "high", "norm", "token", "register"} <= found
    assert "high" not in paper_terms({"text": "Artifacts are tokens."})
    # and written as one: a question's "multimodal" finds a title's "Multi-Modal"
    assert ({"multimodal", "multi-modal"}
            <= paper_terms({"title": "Information Storage in Multi-Modal Large Language Models"}))


def test_a_candidates_longer_hyphenated_words_hold_their_inner_runs():
    """#44: a subject's "in-context" finds an abstract's "in-context-learning (ICL) tasks" in the candidate's own terms;
    the catalog's counts keep paper_terms' definition (they are added and taken away with it)."""
    from ragqa.text.terms import TermStats, paper_terms

    meta = {"title": "Function Vectors", "text": "Across diverse in-context-learning (ICL) tasks."}
    stats = TermStats({"p": meta})
    assert {"in-context", "context-learning", "in-context-learning"} <= stats.terms_of("p")
    assert "in-context" not in paper_terms(meta) and stats.df(["in-context"]) == {}


def test_a_model_profile_can_have_its_own_calibration(settings, tmp_path):
    import json

    base = load_calibration(settings.model_copy(update={"calibration_file": None}), "all-MiniLM-L6-v2")
    (tmp_path / "all-MiniLM-L6-v2.json").write_text(json.dumps(base.to_json()))
    (tmp_path / "all-MiniLM-L6-v2-strong.json").write_text(json.dumps({**base.to_json(), "answer_threshold": 0.5}))
    mine = settings.model_copy(update={"calibration_file": None, "calibration_dir": tmp_path})
    assert load_calibration(mine, "all-MiniLM-L6-v2", "strong").answer_threshold == 0.5
    # no file: shared
    assert load_calibration(mine, "all-MiniLM-L6-v2", "small").answer_threshold == base.answer_threshold


def _synthetic_rows(questions: int, candidates: int, seed: int) -> list[dict]:
    """Calibration rows of random features where a candidate answers when cosine + coverage > 1.2; none is named."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = []
    for q in range(questions):
        x = rng.uniform(0, 1, size=(candidates, len(FEATURES)))
        x[:, FEATURES.index("named")] = 0.0
        y = [int(v[0] + v[2] > 1.2) for v in x]
        rows.append({"x": x.tolist(), "y": y, "paper": f"p{q}", "gold": ["g"] if any(y) else None, "gate": "",
                     "form": "claim"})
    return rows


@pytest.fixture(scope="module", autouse=True)
def one_openmp_thread():
    """scikit-learn's gradient boosting fits on one OpenMP thread in this module: on a few thousand rows its threads
    spend the fit waiting on each other, and with another job on the machine's two cores a fit took 8-40 s instead of
    1.5 s. The fitted trees are the same (each feature's histogram is summed by one thread, however many there are)."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: F401  (loads the OpenMP runtime limited here)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="openmp"):
        yield


@pytest.fixture(scope="module")
def trees(one_openmp_thread):
    """Trees fitted by the calibrate path on fixed synthetic rows: P rises with cosine and coverage."""
    from evals.calibrate import fit

    return fit(_synthetic_rows(200, 5, 0), "test", 0.04, 0)[0]


def test_exported_trees_match_scikit_learn_and_respect_monotone_features(trees):
    cal = trees  # fit() raises if the exported trees' P differs from scikit-learn's
    assert cal.trees and not cal.coef and "gradient-boosted trees" in cal.describe()
    p = cal.probability([_row("a", c, coverage=0.6, gap=0.0) for c in (0.1, 0.4, 0.7, 0.95)])
    assert list(p) == sorted(p) and p[-1] - p[0] > 0.5
    near, far = cal.probability([_row("a", 0.8, coverage=0.8), _row("a", 0.8, coverage=0.8, gap=0.5)])
    assert far <= near  # gap may only lower P


def test_tree_calibration_round_trips_through_its_file(trees, tmp_path):
    cal = trees
    path = tmp_path / "trees.json"
    path.write_text(json.dumps(cal.to_json()))
    again = Calibration.from_json(json.loads(path.read_text()))
    rows = [_row("a", 0.2), _row("b", 0.9, coverage=0.9)]
    assert again.probability(rows).tolist() == pytest.approx(cal.probability(rows).tolist())
    assert judge(again, rows).answerable == judge(cal, rows).answerable


def test_calibration_report_gives_each_form_its_rates_and_auc(trees):
    from evals.calibrate import evaluate

    strong, weak = [0.9, 0.9, 1.0, 0.0, 0.0], [0.1, 0.1, 0.0, 0.5, 0.0]
    rows = [{"ids": ["a"], "x": [strong], "y": [1], "gold": ["a"], "gate": "", "form": "span"},
            {"ids": ["b"], "x": [weak], "y": [0], "gold": None, "gate": "", "form": "span"},
            {"ids": ["c"], "x": [strong], "y": [1], "gold": ["c"], "gate": "", "form": "method"}]
    out = evaluate(trees, rows)
    assert out["by_form"]["span"]["roc_auc"] == 1.0 and "roc_auc" not in out["by_form"]["method"]
    assert out["false_abstention"] == "0/2" and out["near_miss_abstention"] == "1/1"



def test_the_report_and_the_operating_point_count_a_named_paper_as_the_product_does(trees):
    """A question that names an indexed paper is answered whatever its P (judge): the report counts it answered (a
    near-miss naming a paper by accident is not abstained on), and the point spends no false-abstention budget on it."""
    from evals.calibrate import evaluate, fit

    weak, weak_named = [0.1, 0.1, 0.0, 0.5, 0.0, 3.0], [0.1, 0.1, 0.0, 0.5, 1.0, 3.0]
    rows = [{"ids": ["a"], "x": [weak_named], "y": [0], "gold": None, "gate": "", "form": "span"},
            {"ids": ["b"], "x": [weak], "y": [0], "gold": None, "gate": "", "form": "span"}]
    out = evaluate(trees, rows)
    assert out["near_miss_abstention"] == "1/2"
    base = _synthetic_rows(300, 4, 1)
    # the same rows plus answerable questions that name their paper with a low P: the point must not fall to admit them
    named = [{"x": [[0.05, 0.05, 0.05, 0.5, 1.0, 3.0]], "y": [1], "paper": f"n{q}", "gold": ["g"], "gate": "",
              "form": "claim"}
             for q in range(60)]
    assert (fit(base + named, "test", 0.04, 0)[0].answer_threshold
            >= 0.9 * fit(base, "test", 0.04, 0)[0].answer_threshold)


def test_generated_questions_join_as_answerable_or_near_miss_by_where_their_paper_went(settings, tmp_path):
    """`--generated` rows: answerable (gold = the paper) when their paper was indexed, near-misses when it was
    held out, skipped when it is no paper of the corpus; outside --limit, form "generated"."""
    import json

    from evals.calibrate import build, read_generated
    from ragqa.pipeline import Pipeline

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"p{i}", "title": f"Paper number {i} on topic {i}", "authors": ["A B"],
                                          "abstract": f"We study topic {i} with a method that works. " * 5}) + "\n"
                              for i in range(12)), encoding="utf-8")

    def factory(prefix):
        return Pipeline(settings if prefix is None else settings.model_copy(update={"collection_prefix": prefix}))
    from ragqa.ingest.corpus import load_paths
    ids = [p.paper_id for p in load_paths([corpus])[0].papers]
    generated = [{"id": f"g{i}", "question": f"question about {i}?", "gold": [pid]} for i, pid in enumerate(ids)]
    generated.append({"id": "gx", "question": "about no paper here?", "gold": ["not-a-paper"]})
    written = tmp_path / "generated.jsonl"
    written.write_text("".join(json.dumps(g) + "\n" for g in generated), encoding="utf-8")
    pipeline, questions = build(factory, corpus, 0.5, 0, limit=3, progress=False, generated=read_generated([written]))
    gen = [q for q in questions if q.form == "generated"]
    indexed = set(pipeline.searcher.paper_meta())
    assert len(questions) - len(gen) == 3 and len(gen) == len(ids)
    assert {q.paper for q in gen} == set(ids)
    assert all((q.gold == (q.paper,)) == (q.paper in indexed) and (q.gold is None) == (q.paper not in indexed)
               for q in gen)
    assert any(q.gold is None for q in gen) and any(q.gold for q in gen)


def test_a_check_set_is_scored_from_its_saved_rows_which_stay_as_measured(trees):
    """`--check` rows are saved with the report as measured (every MEASURED feature), so a `--rows` refit scores them
    without the bundled index; scoring leaves them as they were."""
    from evals.calibrate import check_dataset
    from ragqa.answer.answerability import MEASURED

    strong = dict(cosine=0.9, closeness=0.9, coverage=1.0, rarest=1.0, unseen=0.0, gap=0.0, named=0.0, qlen=4.0)
    weak = dict(strong, cosine=0.1, closeness=0.1, coverage=0.0, gap=0.5)
    rows = [{"id": "1", "ids": ["a"], "x": [[strong[f] for f in MEASURED]], "y": [1], "gold": ["a"], "gate": "",
             "form": "single"},
            {"id": "2", "ids": ["b"], "x": [[weak[f] for f in MEASURED]], "y": [0], "gold": None, "gate": "",
             "form": "near-miss"}]
    saved = json.loads(json.dumps(rows))
    out = check_dataset(trees, rows)
    assert out["false_abstention"] == "0/1" and out["near_miss_abstention"] == "1/1" and rows == saved
    # a check set with no standalone English question (follow-ups only) has no rows: reported as empty, not a crash
    # (a 30-minute calibration run died here after fitting)
    empty = check_dataset(trees, [])
    assert empty["questions"] == 0 and empty["false_abstention"] == "0/0"


def test_the_question_length_is_measured_and_old_saved_rows_get_it_from_their_question():
    from evals.calibrate import _model_x

    stats = TermStats({"a": {"text": "sparse autoencoders for vision"}})
    hits = [Hit.of_paper("a", {"text": "sparse autoencoders for vision"}, 0.7)]
    short, long = (candidate_features(q, hits, {}, stats)[0] for q in
                   ("sparse autoencoders",
                    "my sparse autoencoders keep dying on vision features, is there a fix for that"))
    assert short.qlen == 2 and long.qlen > 5 and long.coverage < short.coverage
    # 7 columns: before qlen
    row = {"question": "sparse autoencoders", "x": [[0.7, 0.7, 1.0, 1.0, 0.0, 0.0, 0.0]], "y": [1]}
    _model_x([row])
    assert row["x"] == [[0.7, 0.7, 1.0, 0.0, 0.0, 2.0]] and row["features"] == FEATURES


def test_the_answered_point_is_interpolated_in_log_size_between_the_sizes_it_was_set_at():
    cal = _calibration(answered_threshold=0.32, answered_by_size=((185, 0.12), (1410, 0.32)))
    assert cal.for_collection(185).answered_threshold == 0.12
    assert cal.for_collection(1410).answered_threshold == 0.32
    middle = cal.for_collection(int((185 * 1410) ** 0.5)).answered_threshold  # the geometric mean: half way
    assert abs(middle - 0.22) < 0.002
    assert cal.for_collection(95).answered_threshold == 0.12  # outside the sizes: the nearest one's
    assert cal.for_collection(1_000_000).answered_threshold == 0.32
    plain = _calibration(answered_threshold=0.32)
    assert plain.for_collection(95) is plain  # no sizes: the file's own point
    # a file written with the sizes reads back with them
    again = Calibration.from_json(json.loads(json.dumps(cal.to_json())))
    assert again.for_collection(185).answered_threshold == 0.12
