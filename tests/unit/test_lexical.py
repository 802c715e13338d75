"""The lexical index built page by page with packed token ids ranks as bm25s does over the whole corpus at once."""
from __future__ import annotations

import numpy as np

from ragqa.store.lexical import LexicalIndex, _bm25s
from ragqa.store.lexical import stemmer as _stemmer

TEXTS = ["Sparse autoencoders find interpretable features in language model activations.",
         "Diffusion models sample images; sampling quality degrades with few steps.",
         "Graph neural networks predict molecular properties from graphs.",
         "Scaling sparse autoencoders to millions of latents is expensive.",
         "Robust reinforcement learning under adversarial perturbations of states.",
         "A study of in-context learning in transformers and induction heads.",
         "Contrastive learning of visual representations without labels.",
         "Federated learning keeps data private while training shared models."]
QUERIES = ["sparse autoencoders", "diffusion sampling quality", "graph molecules", "learning",
           "transformers in-context"]


def test_pages_of_packed_token_ids_rank_as_one_bm25s_index_over_every_text():
    ids = [f"p{i}:0" for i in range(len(TEXTS))]
    built = LexicalIndex.build([(ids[:3], TEXTS[:3]), (ids[3:5], TEXTS[3:5]), (ids[5:], TEXTS[5:])], generation=1)
    bm25s = _bm25s()
    whole = bm25s.BM25()
    whole.index(bm25s.tokenize(TEXTS, stopwords="en", stemmer=_stemmer(), show_progress=False), show_progress=False)
    for query in QUERIES:
        docs, scores = whole.retrieve(bm25s.tokenize(query, stemmer=_stemmer(), show_progress=False), k=len(TEXTS),
                                      show_progress=False, n_threads=1)
        expected = [(ids[int(d)], round(float(s), 5)) for d, s in zip(docs[0], scores[0]) if s > 0]
        got = [(cid, round(score, 5)) for cid, score in built.search(query, len(TEXTS))]
        assert got == expected and got, query
    assert list(built.paper_of) == list(range(len(TEXTS))) and built.paper_ids == [f"p{i}" for i in range(len(TEXTS))]
    assert isinstance(built.paper_of, np.ndarray)


def test_a_filter_ranks_only_its_papers_chunks_and_the_same_set_reuses_its_mask():
    ids = [f"p{i // 2}:{i % 2}" for i in range(len(TEXTS))]  # two chunks a paper
    built = LexicalIndex.build([(ids, TEXTS)], generation=1)
    allowed = frozenset({"p0", "p1"})
    got = built.search("learning sparse autoencoders diffusion", 10, allowed)
    assert got and {cid.split(":")[0] for cid, _ in got} <= allowed
    assert ([c for c, _ in got] == [c for c, _ in built.search("learning sparse autoencoders diffusion", 10)
                                    if c.split(":")[0] in allowed])
    mask = built._admitted_docs
    built.search("graph", 10, allowed)
    assert built._admitted_docs is mask  # the same set again: the same mask, no pass over every paper
    assert {cid.split(":")[0] for cid, _ in built.search("learning", 10, frozenset({"p3"}))} == {"p3"}
    assert built.search("graph", 10, frozenset({"nobody"})) == []


def test_the_paged_score_matrix_is_bm25s_own_to_the_bit():
    """Every (token, document) score, its position and every column's extent equal what bm25s's own build makes from the
    same token ids: a random corpus with repeated tokens, over pages of uneven size."""
    from bm25s.tokenization import Tokenized

    from ragqa.store.lexical import _Packed, _paged_bm25

    rng = np.random.default_rng(0)
    n_vocab = 300
    docs = [rng.zipf(1.3, size=int(rng.integers(1, 60))) % n_vocab for _ in range(400)]
    docs = [[int(t) for t in d] for d in docs]
    vocab = {f"t{i}": i for i in range(n_vocab)}
    packed = _Packed()
    for start, end in [(0, 7), (7, 150), (150, 151), (151, 400)]:
        packed.add(docs[start:end])
    paged = _paged_bm25()()
    paged.index(Tokenized(ids=packed, vocab=dict(vocab)), show_progress=False)
    own = _bm25s().BM25()
    own.index(Tokenized(ids=docs, vocab=dict(vocab)), show_progress=False)
    for key in ("data", "indices", "indptr"):
        assert paged.scores[key].dtype == own.scores[key].dtype, key
        assert np.array_equal(paged.scores[key], own.scores[key]), key
    assert paged.scores["num_docs"] == own.scores["num_docs"] == 400 and paged.vocab_dict == own.vocab_dict


def test_saved_tokens_come_back_for_their_generation_only(tmp_path):
    """build(stage=...) keeps each chunk's token ids and the tokenizer's vocabulary with the saved index; they are
    offered to the next write only for the generation they were built for, and a build that takes every chunk from
    them makes the same index as one that tokenizes every text again."""
    from ragqa.store.lexical import SavedTokens

    ids = [f"p{i}:0" for i in range(len(TEXTS))]
    folder = tmp_path / "x.bm25"
    built = LexicalIndex.build([(ids[:4], TEXTS[:4]), (ids[4:], TEXTS[4:])], generation=3,
                               stage=LexicalIndex.staging(folder))
    built.save(folder)
    assert SavedTokens.open(folder, 2) is None and SavedTokens.open(folder, None) is None
    kept = SavedTokens.open(folder, 3)
    assert [list(kept.get(cid)) for cid in ids] == [list(t) for t in bm25s_ids(TEXTS)]
    again = LexicalIndex.build([(ids, [None] * len(ids))], generation=4, kept=kept)
    assert kept.get(ids[0]) is None  # let go of once every page is assembled
    for query in QUERIES:
        assert again.search(query, 10) == built.search(query, 10), query
    (folder / "vocab.tokenizer.json").unlink()  # an index saved before tokens were kept
    assert SavedTokens.open(folder, 3) is None


def bm25s_ids(texts):
    from bm25s.tokenization import Tokenizer

    return Tokenizer(stopwords="en", stemmer=_stemmer()).tokenize(texts, update_vocab=True, return_as="ids",
                                                                  show_progress=False, allow_empty=False)
