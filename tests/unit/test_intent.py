"""The intent classifier: the form of a question decides the form of its answer."""
import pytest

from ragqa.query.intent import COUNT, EXPLAIN, LIST, classify


@pytest.mark.parametrize("question, form", [
    ("Which papers propose new ways to evaluate interpretability methods?", LIST),
    ("Is there work on making sparse autoencoders cheaper at huge widths?", LIST),
    ("papers by Francis Bach on kernels", LIST), ("Papers from ICLR 2024 on diffusion?", LIST),
    ("Are there any papers on protein folding?", LIST),
    ("Are there studies of label noise in deep nets?", LIST),
    ("What does the collection have on diffusion models?", LIST),
    ("List the papers about graph neural networks", LIST),
    ("Which ICML 2024 orals study robustness?", LIST),
    ("What papers study in-context learning theory?", LIST),
    ("Any works on test-time adaptation?", LIST),
    ("papers on federated learning", LIST),
    ("papers analyzing what happens inside pretrained vision transformers", LIST),
    ("methods for editing facts in language models", LIST),
    ("theoretical work showing that fitting noisy labels need not hurt", LIST),
    ("work on the calibration of neural classifiers' confidence", LIST),
    ("recent approaches to continual learning", LIST),
    ("有没有研究扩散模型采样质量下降原因的论文？", LIST),
    ("哪些论文研究了图神经网络？", LIST),
    ("关于解耦表征如何学习的论文有哪些？", LIST),
    ("有哪些专门针对医学图像设计的模型或方法？", LIST),
    ("有哪些用扩散模型（diffusion models，如 DDPM、score-based 模型）做数据增强的论文？", LIST),  # a gloss
    ("讲扩散模型（diffusion models，如 DDPM）的论文有几篇？", COUNT),
    ("它们在哪些数据集上做了实验？", EXPLAIN),  # "which datasets": about the papers' content, as in English
    ("相关信息存储在哪些层？能据此修正模型里的错误知识吗？", EXPLAIN),
    ("Which datasets did they evaluate on?", EXPLAIN),
    ("How many ICLR 2024 papers study robustness?", COUNT),
    ("how many papers are about sparse autoencoders", COUNT),
    ("ICML 2024 有多少篇关于强化学习的论文？", COUNT), ("我存的 ICML 2024 论文里有几篇是讲扩散模型的？", COUNT),
    ("我收藏的 Hinton 的那几篇文章分别讲了什么？", LIST),  # "those few papers": a list, no count
    ("What is DRAGON and how does it work?", EXPLAIN),
    ("Which paper introduces prospector heads?", EXPLAIN),
    ("Is there a paper that augments training images with a single diffusion step?", EXPLAIN),
    ("How much faster is the proposed sampler?", EXPLAIN),
    ("What did they find about registers in vision transformers?", EXPLAIN),
    ("这篇论文提出的方法是怎么工作的？", EXPLAIN),
    ("training-free guidance of flow matching models on rotation groups", EXPLAIN),
    ("How do these methods work?", EXPLAIN),
    ("Which paper studies earthquake prediction with neural networks?", EXPLAIN),
    ("Which ICML 2024 paper studies robustness?", EXPLAIN),
    ("Which studies examine label noise?", LIST),
    # the body of work after the topic, or "anything on X"; counting needs something countable
    ("disentangled representation learning papers", LIST), ("feature selection methods?", LIST),
    ("medical imaging papers (x-rays, pathology slides)?", LIST), ("anything about grokking?", LIST),
    ("how much do prospector heads improve localization over other attribution methods?", EXPLAIN),
    ("How many label errors did they find in the safety datasets?", EXPLAIN),
    ("Roughly how many questions does it contain?", EXPLAIN),
    ("How many orals are there from ICLR 2024?", COUNT), ("how many are indexed from NeurIPS 2024?", COUNT),
    ("Among my NeurIPS 2024 papers, which ones are about diffusion models?", LIST),
    ("Which one of them proposes a new sampler?", EXPLAIN),
    # "how many are / of them" counts the papers the question names elsewhere
    ("Of my NeurIPS 2024 papers, how many are on diffusion models?", COUNT),
    ("I saved a lot of posters; how many of them study graphs?", COUNT),
    ("The paper reports several ablations; how many are there?", EXPLAIN),
    # a possessive or a short year among the words before "papers"
    ("How many of Yoshua Bengio's papers are about GFlowNets?", COUNT), ("how many ICML'24 orals study RL?", COUNT),
    # a search-box phrase asks what the collection has on it; a bare name or a sentence does not
    ("concept bottleneck models", LIST), ("reinforcement learning theory", LIST), ("DiffAug", EXPLAIN),
    # the reader's own collection as the body of work asked about, and up to four words before "papers"
    ("Which of my ICLR'25 papers deal with graph learning?", LIST),
    ("which of the ICML 2024 orals I bookmarked study robustness?", LIST),
    ("What do I have about federated learning?", LIST), ("what have we saved on protein design", LIST),
    ("Got anything in the collection about speech recognition?", LIST),
    ("anything from my reading list on optimal transport?", LIST),
    ("请帮我列出 ICLR 2024 中关于强化学习的文章", LIST), ("帮我找几篇讲图神经网络可解释性的论文", LIST),
    ("What do I have to change to run it on a GPU?", EXPLAIN), ("Which of the two losses is better?", EXPLAIN),
    ("帮我找一下这篇论文用的数据集", EXPLAIN),
    ("graph neural networks, only the ICML 2024 ones", LIST), ("How do the newer ones differ?", EXPLAIN),
    ("data shapley for valuing individual training points of a classifier", EXPLAIN),
])
def test_form_of_question(question, form):
    assert classify(question) == form


@pytest.mark.parametrize("question, field", [
    ("Who wrote InterpBench?", "authors"), ("Who are the authors of the Switch SAE paper?", "authors"),
    ("Who proposed DRAGON?", "authors"), ("InterpBench的作者是谁？", "authors"), ("这篇论文是谁写的？", "authors"),
    ("Where was TRACE published?", "venue"), ("At which conference was JKOnet* presented?", "venue"),
    ("这篇论文发表在哪个会议？", "venue"), ("When was JKOnet* published?", "year"),
    ("What year did InterpBench come out?", "year"), ("它是哪一年发表的？", "year"),
    # about a paper's content, or a question of another form: not a field of its record
    ("Who works on sparse autoencoders?", None), ("Where is the information stored?", None),
    ("Who has the most papers on graphs?", None), ("What did the authors find about registers?", None),
    ("When does the sampler fail?", None), ("Which venue has the most orals?", None),
    ("where does the double descent peak appear for regularized LSTD?", None), ("When do the artifacts appear?", None),
])
def test_a_question_about_a_papers_record(question, field):
    from ragqa.query.intent import GROUP, asks_field

    assert asks_field(question) == field
    if field:
        assert classify(question) == EXPLAIN
    elif "most" in question:
        assert classify(question) == GROUP


@pytest.mark.parametrize("question, newest", [
    ("What are the latest papers on diffusion models?", True), ("recent approaches to continual learning", True),
    ("扩散模型最新的论文有哪些？", True), ("Which papers study diffusion models?", False),
    ("What is a new method for X?", False),
])
def test_a_question_asking_for_recent_work(question, newest):
    from ragqa.query.intent import asks_newest

    assert asks_newest(question) is newest


@pytest.mark.parametrize("query, topic", [
    ("What are the latest papers on diffusion models?", "What are the papers on diffusion models?"),
    ("Recent work on dictionary learning?", "Work on dictionary learning?"),
    ("Which most recent methods recently improved SAEs?", "Which methods improved SAEs?"),
    ("扩散模型最新的论文有哪些？", "扩散模型论文有哪些？"),
    ("Which papers study recency bias?", "Which papers study recency bias?"),  # a topic, not a recency word
    ("latest", "latest"),  # nothing else left: kept as it is
])
def test_recency_words_are_taken_out_of_the_query(query, topic):
    from ragqa.query.intent import without_recency

    assert without_recency(query) == topic
