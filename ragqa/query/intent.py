"""What form of answer a question wants, from its form alone (not its topic):

- "list": which papers / is there work on / what does the collection have on X -> every indexed paper
  that answers it, one cited line each;
- "count": how many papers ... -> the number and the counted papers;
- "explain": what is X / how does X work / what did they find -> a short cited answer from the best papers;
- "group": who has the most papers on X / X papers per year / which venue has the most X papers ->
  the counted papers grouped by author, year or venue (group_key), with counts.
An explain question may ask for a paper's record rather than its content (asks_field: who wrote X, where or when was
X published), answered from the record.
Rules over the question's wording, English and Chinese; a follow-up keeps the form of its own words.
"""
from __future__ import annotations

import re

LIST, COUNT, EXPLAIN, GROUP = "list", "count", "explain", "group"

_GROUPS = (  # (key, wording that asks for papers grouped by it)
    ("author", r"\bwho\b(?=.{0,60}\b(?:papers?|publish\w*|publications?|works?|wrote|written|authored|prolific)\b)"
               r".{0,40}\b(?:most|the largest number)\b"
               r"|\bwhich (?:authors?|researchers?|people|groups?)\b.{0,40}\bmost\b"
               r"|\b(?:most|top) (?:prolific )?authors?\b|\b(?:papers )?(?:per|by|for each|each) author\b"
               r"|哪些?位?作者.{0,12}最多|作者.{0,6}排名|每一?位作者|按作者"),
    ("year", r"\b(?:per|by|each|every) year\b|\bover (?:the )?(?:time|years)\b"
             r"|\b(?:grow|grew|growth|change|changed|trend)\w*\b.{0,60}\b(?:from|between|since|over)\b"
             r"|\bfrom (?:19|20)\d\d to (?:19|20)\d\d\b|每年|逐年|历年|年份分布|按年份?"),
    ("venue", r"\b(?:per|by|each|every) (?:venue|conference)\b|\bwhich (?:venue|conference)s?\b.{0,40}\bmost\b"
              r"|哪个会议.{0,12}最多|各会议|每一?个会议|按会议"),
)

_FIELDS = (  # (field of a paper's record, wording that asks for it about a paper)
    ("authors", r"\bwho (?:wrote|writes|authored|is behind|are behind|proposed|introduced|invented|came up with)\b"
                r"|\bwho (?:are|is|were|was) (?:the |its |their )?(?:authors?|first author|last author)\b"
                r"|\b(?:list|name|give|tell)\b.{0,20}\bauthors\b(?! (?:who|that|from|at|in|on))"
                r"|\bauthors? (?:of|behind)\b|\b(?:written|authored) by whom\b"
                r"|作者是谁|谁写的|作者有哪些|是谁提出的|由谁"),
    # "where was/did …" asks where a paper appeared; "where does the double descent peak appear" asks about its
    # content
    ("venue", r"\b(?:where (?:was|were|is|are|did|has|have|had)"
              r"|(?:which|what) (?:venue|conference|journal|workshop))\b"
              r".{0,80}?\b(?:published|appear(?:ed|s)?|presented|accepted)\b"
              r"|\b(?:which|what) (?:venue|conference|journal|workshop) (?:is|was) "
              r"(?:it|this|that|the paper|this paper|that paper) (?:from|in|at)\b"
              r"|\b(?:venue|conference|journal) (?:of|for)\b|发表在哪|发表于哪|在哪个会议|什么会议"),
    ("year", r"\b(?:when (?:was|were|is|are|did|has|have|had)|(?:which|what) year)\b"
             r".{0,80}?\b(?:published|appear(?:ed|s)?|presented|released|come out|came out)\b"
             r"|\b(?:publication )?year of\b"
             r"|\b(?:which|what) year (?:is|was) (?:it|that|this|the paper|this paper|that paper)\b"
             r"|哪一?年发表|什么时候发表|何时发表"),
)

_COUNT = re.compile(  # "how many papers / orals …", "how many are indexed"; not "how many label errors did they find"
    r"\bhow many\b(?=(?:\s+[\w'’.-]+){0,4}?\s+"  # words between: "of David Bau's", "NeurIPS'24"
    r"(?:papers|works|studies|articles|publications|orals|spotlights|posters|ones|entries)\b)"
    r"|\bhow many\b(?=.{0,60}\b(?:indexed|in (?:the|this|your|my) (?:collection|library|index|corpus))\b)"
    r"|\bnumber of (?:papers|works|studies)\b|\bcount (?:the )?(?:papers|works)\b"
    # "那几篇": "those few", "找几篇": "find a few": no count
    r"|多少篇|(?<![那这哪找荐])几篇|多少(?:个|项)?(?:研究|论文|工作)",
    re.I)
# "how many are / of them …" counts what the question names elsewhere: papers, when it names them or the collection
# ("Out of the ICLR 2024 papers, how many are on RL?"); not "how many did they find" of one paper
_COUNT_BARE = re.compile(r"\bhow many\s+(?:of (?:them|these|those)|are|were|is|have|has|do|does)\b", re.I)
_PAPERS_NAMED = re.compile(r"\b(?:papers|works|studies|articles|publications|orals|spotlights|posters|collection"
                           r"|library)\b", re.I)
_WORK_ZH = r"(?:论文|文章|研究|工作|方法|文献|成果|篇)"  # paper, article, study, work, method, literature, result
# plural asks for papers, or existence of work on a topic (not "is there a paper that ...", which wants one)
_LIST = re.compile(
    # ("which paper studies X" asks for one paper: "studies" is its verb there)
    # (up to four words between, a venue's short year among them: "which of my NeurIPS'24 papers")
    r"\b(?:which|what|any|list(?: the| all)?|show(?: me)?(?: the| all)?|find(?: me)?(?: the| all)?)\s+"
    r"(?!(?:[\w'’.-]+\s+){0,4}?(?:paper|work|one|article)\s)(?:[\w'’.-]+\s+){0,4}?"
    r"(?:papers|works|studies|articles|publications|approaches|methods|orals|spotlights|posters|ones)\b"
    r"|\b(?:is|are) there (?:any )?(?:\w+\s+)?(?:work|works|research|papers|studies|literature)\b"
    r"|\b(?:papers|works|studies|research) "
    r"(?:on|about|that|which|in|by|from|studying|proposing|addressing|mentioning|using)\b"
    # a topic followed by the body of work asked for ("disentangled representation learning papers", "feature selection
    # methods?"), or "anything on X"
    r"|^(?!\s*(?:how|what|why|when|where|whats|does|do|did|is|are|can|could|would|should|will|was|were|has|have)\b)"
    r".*\b(?:papers|works|studies|articles|publications|methods|approaches|techniques|ones)\s*(?:\([^)]*\))?\s*[?.!]*\s*$"
    r"|^\s*(?:is there\s+|(?:have )?(?:i|we|you) got\s+|got\s+)?anything\s+"
    r"(?:(?:in|from|among) (?:my|our|the|this|your) [\w'’ -]{1,30}?\s+)?"
    r"(?:on|about|regarding|related to|new on|new about)\b"
    # a search-style phrase that opens with a body of work ("work on X", "methods for X", "theoretical work showing X")
    r"|^\s*(?:[\w-]+\s+){0,2}?(?:papers|works?|studies|research|literature|methods|approaches|techniques)\s+"
    r"(?:on|about|for|of|in|into|that|which|where|to|\w+ing)\b"
    r"|\bwhat (?:does|do) (?:the|this|your|my|our) (?:collection|index|library|corpus) (?:have|contain|hold|say)\b"
    # what the reader keeps ("what do I have on X", "what have we saved about Y")
    r"|\bwhat (?:do|did|have) (?:i|we) (?:have|got|saved?|kept|keep|collected|bookmarked)\s+"
    r"(?:(?:in|from) [\w'’ -]{1,30}?\s+)?(?:on|about|regarding|for|related to)\b"
    r"|\bwho (?:works|worked|has worked|is working) on\b"
    # Chinese "which / what ... are there" asks for papers when a body-of-work noun goes with it, as "which" does in
    # English ("哪些论文", "论文有哪些", "有哪些…方法"); "在哪些层 / 哪些数据集" asks about one paper's content
    r"|有没有|[哪那这]几篇|相关(?:的)?(?:论文|研究|工作)"
    # a request to find or list papers ("find me the papers on …"), in one clause
    r"|(?:找|列出|列一下|列举|推荐)(?![^。？?！!，,]{0,40}?[这那该]篇)[^。？?！!，,]{0,40}?(?:论文|文章|文献)"
    # in one clause
    r"|哪(?:些|几)[^。？?！!，,]{0,40}?" + _WORK_ZH + r"|" + _WORK_ZH + r"[^。？?！!，,]{0,30}?哪(?:些|几)",
    re.I)


def group_key(question: str) -> str | None:
    """"author", "year" or "venue" when the question asks for papers grouped by it."""
    for key, pattern in _GROUPS:
        if re.search(pattern, question, re.I):
            return key
    return None


def asks_field(question: str) -> str | None:
    """"authors", "venue" or "year" when the question asks for that field of a paper's record ("Who wrote
    InterpBench?", "Where was TRACE published?", "这篇论文的作者是谁？"); meant for explain questions (a group-by
    such as "which venue has the most X" is classified first)."""
    for field, pattern in _FIELDS:
        if re.search(pattern, question, re.I):
            return field
    return None


_NEWEST = re.compile(r"\b(?:latest|newest|most recent|recent(?:ly)?)\b|最新|近期|最近", re.I)


def asks_newest(question: str) -> bool:
    """The question asks for recent work ("the latest papers on X", "recent approaches to Y", 最新): a list of it
    puts the newest first."""
    return bool(_NEWEST.search(question))


_RECENCY_WORDS = re.compile(r"\b(?:most recent|latest|newest|recent(?:ly)?)\s*|最新的?|近期的?|最近的?", re.I)


def without_recency(query: str) -> str:
    """The query less the words that ask for recent work ("the latest papers on X" -> "the papers on X"): they set the
    order of a list (asks_newest), not its subject, and searched as words they match "the latest GPT-3.5 models" in an
    abstract."""
    out = re.sub(r"\s{2,}", " ", _RECENCY_WORDS.sub("", query)).strip()
    return out[:1].upper() + out[1:] if out and query[:1].isupper() else out or query


# a question word, a request verb or a question mark: what a search-box phrase ("sparse autoencoders", "reinforcement
# learning theory") does not have
_ASKS = re.compile(r"\b(?:how|what|whats|why|when|where|which|who|whom|whose|does|do|did|is|are|can|could|would|should|"
                   r"will|was|were|has|have|explain|describe|tell|show|list|give|compare|summari[sz]e|find)\b"
                   r"|[?？\u3400-\u9fff]",
                   re.I)


# a gloss in full-width parentheses inside a Chinese clause (an English term, examples: "扩散模型（diffusion models，如
# DDPM、score-based）"): its commas do not end the clause
_GLOSS = re.compile(r"（[^（）]{0,80}）")


def classify(question: str, form=None) -> str:
    """-> "group", "count", "list" or "explain". A phrase of two to six words that asks nothing (a search-box query:
    "concept bottleneck models") is a list: what the collection has on it. `form` (form.FormModel, fitted on labelled
    questions) also makes a list of what its point reads as one, in wordings the rules do not know."""
    if group_key(question):
        return GROUP
    plain = _GLOSS.sub(" ", question)  # a clause's words are read past a gloss in it
    if _COUNT.search(plain) or (_COUNT_BARE.search(plain) and _PAPERS_NAMED.search(plain)):
        return COUNT
    if _LIST.search(plain) or (2 <= len(question.split()) <= 6 and not _ASKS.search(question)):
        return LIST
    if form is not None and form.asks_for_a_list(question):
        return LIST
    return EXPLAIN
