"""LaTeX text in a field (BibTeX, arXiv) -> Unicode: a table for the escapes, braces and ligatures our exporter
writes, pylatexenc for the rest, math kept as written. Writing LaTeX is export.py's.
"""
from __future__ import annotations

import re
from functools import cache

_LATEX_MARK = re.compile(r"[\\{}~]|--|``|''|[!?]`")


@cache
def _latex_decoder():
    """pylatexenc as bibtexparser sets it up, plus: math kept verbatim, '~' a plain space, the text
    macros our exporter writes for ^ and unbalanced braces, \\url{x} -> x."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, SpecialsTextSpec, get_default_latex_context_db

    db = get_default_latex_context_db()
    db.add_context_category("ragqa", prepend=True, macros=[
        MacroTextSpec("url", simplify_repl="%s"), MacroTextSpec("textasciicircum", "^"),
        MacroTextSpec("textbraceleft", "{"), MacroTextSpec("textbraceright", "}"),
        MacroTextSpec("LaTeX", "LaTeX"), MacroTextSpec("TeX", "TeX"),
    ], specials=[SpecialsTextSpec("~", " ")])
    return LatexNodes2Text(latex_context=db, math_mode="verbatim", keep_braced_groups=False)


_SIMPLE_LATEX = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
                 r"\textbraceleft{}": "{", r"\textbraceright{}": "}", "---": "\u2014", "--": "\u2013",
                 "``": "\u201c", "''": "\u201d", "!`": "\u00a1", "?`": "\u00bf", "~": " ", "{": "", "}": ""}
_SIMPLE_ESCAPES = r"text(?:backslash|asciitilde|asciicircum|braceleft|braceright)\{\}|[%&$#_{}]"  # after a backslash
_SIMPLE_TOKEN = re.compile(r"\\(?:" + _SIMPLE_ESCAPES + r")|---|--|``|''|[!?]`|[{}~]")
_OTHER_MACRO = re.compile(r"\\(?!" + _SIMPLE_ESCAPES + ")")


def decode_latex(value: str) -> str:
    """LaTeX text -> Unicode ({\\"u} -> ü, {GAN}s -> GANs, \\% -> %, math kept as written). A bare
    % or & is taken literally: in a field value it is text, not a comment or a table column."""
    if not _LATEX_MARK.search(value):
        return value
    value = re.sub(r"(?<!\\)([%&])", r"\\\1", value)
    value = value.replace(r"\^{}", r"\textasciicircum{}").replace(r"\~{}", r"\textasciitilde{}")  # Zotero's ^ and ~
    if "$" not in value.replace("\\$", "") and not _OTHER_MACRO.search(value):
        # only escapes, braces and ligatures (what our exporter writes): a table does what pylatexenc would, 50x faster
        return _SIMPLE_TOKEN.sub(lambda m: _SIMPLE_LATEX.get(m.group(), m.group()[1:]), value)
    return _latex_decoder().latex_to_text(value)
