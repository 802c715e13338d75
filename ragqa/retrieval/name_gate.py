"""The Searcher's name look-ups: papers a question names by their method name (moved to the top of the ranking), and
the unknown-name gate, a method name in the question that no indexed paper introduces or mentions (missing_name).
The name table is query/method_names.py's; the full-text look-ups are query/names.py's NameIndex."""
from __future__ import annotations

import re

from ragqa.query.method_names import _NAME_RUN, name_key, name_like_words
from ragqa.query.spelling import english_words, slips
from ragqa.text.clean import CJK, method_name
from ragqa.text.terms import terms

# a method name: an inner capital or a digit (LoRA, DPO, GPT-4, JKOnet*), or a capitalised word after "the"
_KIND = re.compile(r"-(?:style|like|type|based|inspired)$", re.I)  # "ROME-style": in the manner of ROME
_NAME = re.compile(r"(?<![\w-])(?:[A-Za-z][a-z0-9]*[A-Z0-9][\w-]*\*?|(?<=the )[A-Z][a-z]{2,})(?![\w-])")
_GENERIC = {"llm", "llms", "ml", "ai", "rl", "nlp", "gnn", "gnns", "cnn", "cnns", "rnn", "rnns", "vae", "vaes", "gan",
            "gans", "sae", "saes", "mlp", "mlps", "sgd", "pde", "pdes", "ode", "odes", "kv", "qa", "vqa", "api", "gpu",
            "cpu", "iclr", "icml", "neurips", "acl", "cvpr", "emnlp", "aaai", "ood", "iid", "vlm", "vlms", "3d", "2d"}
# a run of capitalised words: a name of two or three words after a lowercase word is a method name
# (Stable Diffusion, Neural Radiance Fields); longer runs are title-cased text, not names
_ACRONYM = re.compile(r"[A-Z]+(?:-[A-Z]+)*")  # TRACE, CMA-ES: an acronym, hyphenated or not
_PLURAL = re.compile(r"[A-Z]{2,}(?:-[A-Z]+)*s")  # an acronym's plural: DDPMs, CBMs
_CAPS = re.compile(r"(?<![\w-])[A-Z][\w-]+(?: [A-Z][\w-]+)+(?![\w-])")


class NameLookups:
    """Part of Searcher: look-ups of the names a question uses (needs the views of CollectionViews)."""

    def missing_name(self, query: str, phrases: bool = True, context: str | None = None) -> tuple[str, str] | None:
        """A method name in the question that no indexed paper can speak for: either the question asks
        for its own paper ("the LoRA paper", "the Adam optimizer paper", "which paper introduced DPO",
        "originally proposed the Mamba ...", "BERT ... its original paper") and no indexed paper is
        named so or introduces it, or the name (with an inner capital or digit: InstructGPT, GPT-4;
        or two or three capitalised words mid-sentence: Stable Diffusion) appears in no indexed paper
        at all (abstract, title or authors). phrases=False skips the capitalised-words rule, for a
        machine translation, which capitalises its own renderings ("Visual Transformer" for 视觉Transformer).
        `context`: the text whose words say whether an acronym stands among others (a Chinese question's
        translation: its Chinese words are not terms). -> (name, "introduces" | "mentions"), or None."""
        query = CJK.sub(" ", query)  # LoRA论文 -> LoRA
        words = set(terms(CJK.sub(" ", context) if context else query))
        for name in dict.fromkeys(_NAME.findall(query)):
            head, _, tail = name.rpartition("-")
            # "RL-trained", "KL-regularized", "ImageNet-size": a kind of thing made from a name (a lower-case word after
            # it); the name is the part looked up
            looked = head if head and tail.isalpha() and tail.islower() else name
            looked = looked[:-1] if _PLURAL.fullmatch(looked) else looked  # "DDPMs": an abstract writes "DDPM"
            if looked.lower() in _GENERIC:
                continue
            n = re.escape(name)
            asks = (rf"\b{n}(?:\s+[\w-]+)?\s+paper\b", rf"\b{n}\b[^.?]{{0,60}}\b(?:its|their)\s+original\s+paper\b",
                    rf"\b(?:introduc|propos|present|invent)\w*\s+(?:the\s+|an?\s+)?(?:original\s+|first\s+)?{n}(?![\w-])",
                    rf"\boriginal(?:ly)?\s+(?:\w+\s+){{0,3}}{n}(?![\w-])")
            # a bare acronym among other topic words ("a benchmark for smartphone GUI agents") may name a kind of
            # thing as well as a method: unless the question asks for its paper (below), the answerability model
            # weighs it as a word no paper has. Alone ("What is TRACE and what does it do?") it stays a name: on the
            # ICML 2024 calibration index, letting such questions through answered 42 more of 168 near-misses
            # (evals/experiments/acronym_gate.py)
            # so may a name that only says what kind of thing is meant ("ROME-style edits", "a GAN-like model")
            acronym = ((_ACRONYM.fullmatch(looked) or _KIND.search(name))
                       and len(words - {name.lower(), looked.lower()}) >= 2)
            if re.search(r".[A-Z0-9]", looked) and not acronym and not self.names.mentions(looked):
                return name, "mentions"
            if any(re.search(a, query, re.I) for a in asks) and not self.names.introduces(name):
                return name, "introduces"
        for run in _CAPS.finditer(query) if phrases else ():
            before = query[:run.start()].split()[-1:]  # mid-sentence: after a lower-case word that ends no sentence
            mid = before and before[0].rstrip(",:").islower() and not before[0].endswith((".", "?", "!"))
            if mid and run[0].count(" ") <= 2 and not self.names.mentions(run[0]):
                return run[0], "mentions"
        return None

    @property
    def names(self):
        """The name index (names.py): full-text look-ups on the catalog, written at ingest."""
        from ragqa.query.names import NameIndex

        return NameIndex(self.index.catalog, self._papers_by_surname)

    def _named_in(self, query: str, allowed: set[str] | None) -> list[str]:
        """Papers whose method name the question uses (query/method_names.py), each word taken as typed (SF(DA)^2?)
        and as its runs of name characters (JKOnet*'s)."""
        query = CJK.sub(" ", query)  # JKOnet*学到了什么 -> JKOnet*
        typed = query.split() + _NAME_RUN.findall(query)
        found = self._spelled(typed)
        introduced = {k: w for w in typed for k in ("~" + name_key(w), "=" + name_key(w, cased=True))
                      if k in self._names}
        # a name typed in lower case ("flipad" for FLIPAD) or one slip off ("difaug" for DiffAug), when it is no English
        # word (boss, trace): the search-box way of writing a name
        lowered = self._lowered_names()
        for word in {w for w in typed if len(w) >= 4 and w.isalpha() and w.islower() and w not in english_words()
                     and w not in self._names}:
            hits = {lowered[k] for k in [word, *(slips(word) if len(word) >= 6 else ())] if k in lowered}
            if len(hits) == 1:
                key = hits.pop()
                # introduced by an abstract: its paper's own name? checked below, as typed names are
                if key.startswith("="):
                    introduced[key] = key[1:]
                else:
                    found += self._names[key]
        # a name an abstract introduces counts when it is that paper's own (one look-up a name)
        own = self.settings.query.own_name_papers
        for key, word in introduced.items():
            if self.names.mentioned_by(word, own + 1) <= own:
                found += self._names[key]
        # any other word written as a name ("p-annealing", "t-SNE", "InstructGPT") names the paper whose abstract
        # introduces it, when that is its own (at most `own` papers carry it): every name an abstract introduces,
        # not only its label
        for word in name_like_words(query):
            if not any(k in self._names
                       for k in (name_key(word), "~" + name_key(word), "=" + name_key(word, cased=True))):
                found += self.names.own_papers(word, own)
        return [p for p in dict.fromkeys(found) if allowed is None or p in allowed]

    def _spelled(self, typed: list[str]) -> list[str]:
        """Papers whose title's leading name (or untitled label) a typed word spells, in any case; a name that is also
        an English word in lower case (AND, LESS, MOMENT, REST: 121 ICML/ICLR 2024 titles lead with one) only as the
        title writes it, or every "and" named the AND paper."""
        found, english = [], english_words()
        for word in dict.fromkeys(typed):
            key = name_key(word)
            pids = self._names.get(key, ())
            if pids and key in english:
                written, records = name_key(word, cased=True), self._meta.many(list(pids))
                pids = [p for p in pids if p in records and written == name_key(
                    method_name(records[p].get("title")) or records[p].get("label") or "", cased=True)]
            found += pids
        return found

    def _lowered_names(self) -> dict[str, str]:
        """Lower-cased method name -> its key in the name table, for names with no marks of their own (no digit, star
        or Greek letter), once per collection change."""
        return self._facet("lowered names", lambda _: {k.lstrip("=").lower(): k for k in self._names
                                                        if not k.startswith("~") and k.lstrip("=").isalpha()})
