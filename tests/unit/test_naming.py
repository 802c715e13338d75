"""Paper names: by title, method name or authors, never a label's opening words."""
from __future__ import annotations

import pytest

from ragqa.naming import paper_name


@pytest.mark.parametrize("meta, name", [
    ({"title": "Vision Transformers Need Registers", "label": "Vision Transformers Need Registers"}, "Vision Transformers Need Registers"),
    ({"label": "DiffAug", "authors": "Chandramouli Sastry; Sri Harsha Dumpala"}, "DiffAug"),  # a method name wins
    ({"label": "Understanding the mechanisms of information…", "authors": "Samyadeep Basu"}, "Basu"),
    ({"label": "Understanding the mechanisms of information…", "authors": "Samyadeep Basu; Martin Grayson"}, "Basu and Grayson"),
    ({"label": "Understanding the mechanisms of information…", "authors": "Samyadeep Basu; Martin Grayson; Cecily Morrison"}, "Basu et al."),
    ({"label": "Understanding the mechanisms of information…", "authors": "Samyadeep Basu", "authors_truncated": True}, "Basu et al."),
    ({"label": "Embedders play a central role in machine learning", "authors": ""}, "a paper"),  # never its opening words
    ({"label": "Embedders play a central role in machine learning", "authors": "", "venue": "ICLR 2024"}, "an ICLR 2024 paper"),
])
def test_a_paper_is_named_by_title_method_or_authors(meta, name):
    assert paper_name(meta) == name
