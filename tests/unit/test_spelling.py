"""Spelling: a word no paper has, one slip from a term several papers have, is read as that term."""
from __future__ import annotations

from ragqa.query.spelling import correct, corrections, slips

DF = {"bottleneck": 5, "learning": 40, "model": 60, "concept": 7, "tuned": 3, "nerf": 1, "articulated": 4, "broad": 9}


def frequencies(terms):
    return {t: DF[t] for t in terms if t in DF}


def test_a_slip_inside_a_word_is_corrected_to_the_term_papers_have():
    fixes = corrections("concept bottlenck models for graph learing", frequencies)
    assert fixes == {"bottlenck": "bottleneck", "learing": "learning"}
    assert correct("concept bottlenck models", fixes) == "concept bottleneck models"


def test_the_last_two_letters_swapped_and_a_hyphenated_words_part_are_slips_too():
    known = {"learning", "tuning"}
    fixes = corrections("in-context learnign and fine-tunning", lambda ts: {t: 5 for t in ts if t in known})
    assert fixes == {"learnign": "learning", "tunning": "tuning"}
    assert correct("in-context learnign and fine-tunning", fixes) == "in-context learning and fine-tuning"


def test_a_corrected_plural_keeps_its_s():
    # the slip is found on the folded term (supresse), the correction is written as the word was typed: a plural
    known = {"suppresse", "bottleneck"}
    fixes = corrections("it supresses the bottlencks", lambda ts: {t: 5 for t in ts if t in known})
    assert fixes == {"supresses": "suppresses", "bottlencks": "bottlenecks"}
    assert correct("it supresses the bottlencks", fixes) == "it suppresses the bottlenecks"


def test_real_words_names_and_rare_terms_are_left_alone():
    assert corrections("which layers turned out to matter", frequencies, frozenset({"turned"})) == {}  # an English word
    assert corrections("What is NeWRF?", frequencies) == {}  # as typed with capitals: a name, the name check's to judge
    assert corrections("a newrf variant", frequencies) == {}  # one slip from a term only one paper has
    assert corrections("it articulates a forward model", frequencies) == {}  # a plural gains no letter before its s
    assert corrections("banana bread", frequencies) == {}  # a wrong letter in a short word is too often another word
    assert corrections("concept bottleneck models", frequencies) == {}  # known words


def test_slips_keep_the_first_and_last_letter():
    found = slips("roads")
    assert ("rods" in found and "raods" in found and "broads" not in found and "road" not in found
            and "roadsx" not in found and "roasd" in found)


def test_search_reads_a_slip_as_the_word_and_says_so(indexed):
    result = indexed.search("concept bottlenck models", k=3, translate=False)
    assert "bottleneck" in result.query and any(n.startswith("spelling: bottlenck -> bottleneck") for n in result.notes)
    assert "Concept Bottleneck" in (result.hits[0].meta.get("title") or "")
