"""What form of answer a question wants, from its form alone (not its topic):

- "list": which papers / is there work on / what does the collection have on X -> every indexed paper
  that answers it, one cited line each;
- "count": how many papers ... -> the number and the counted papers;
- "explain": what is X / how does X work / what did they find -> a short cited answer from the best papers.
Rules over the question's wording, English and Chinese; a follow-up keeps the form of its own words.
"""
from __future__ import annotations

import re

LIST, COUNT, EXPLAIN = "list", "count", "explain"

_COUNT = re.compile(
    r"\bhow many\b|\bnumber of (?:papers|works|studies)\b|\bcount (?:the )?(?:papers|works)\b|多少篇|几篇|多少(?:个|项)?(?:研究|论文|工作)",
    re.I)
# plural asks for papers, or existence of work on a topic (not "is there a paper that ...", which wants one)
_LIST = re.compile(
    r"\b(?:which|what|any|list(?: the| all)?|show(?: me)?(?: the| all)?|find(?: me)?(?: the| all)?)\s+(?:\w+\s+){0,3}?"
    r"(?:papers|works|studies|articles|publications|approaches|methods|orals|spotlights|posters)\b"
    r"|\b(?:is|are) there (?:any )?(?:\w+\s+)?(?:work|works|research|papers|studies|literature)\b"
    r"|\b(?:papers|works|studies|research) (?:on|about|that|which|in|studying|proposing|addressing)\b"
    r"|\bwhat (?:does|do) (?:the|this|your) (?:collection|index|library|corpus) (?:have|contain|hold|say)\b"
    r"|\bwho (?:works|worked|has worked|is working) on\b"
    r"|有没有|有哪些|哪些|哪几篇|相关(?:的)?(?:论文|研究|工作)",
    re.I)


def classify(question: str) -> str:
    """-> "count", "list" or "explain"."""
    if _COUNT.search(question):
        return COUNT
    if _LIST.search(question):
        return LIST
    return EXPLAIN
