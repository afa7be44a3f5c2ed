"""The book's full-text search: how text is cut into search terms.

Sphinx's search cuts text at every character that is not a letter, digit or underscore, and its page
script drops every query term made only of digits. So "Theorem 4" searched for "theorem" alone (every page
that names any theorem, with every "Theorem" highlighted) and "96.78" found nothing. Here a numbered item
of a paper ("Theorem 4", "Lemma 2", "Fig. 3", "eq. (3)", "Table 2") is one term, ``theorem 4``, and a
decimal number ("96.78", "10,000") is one term, in the index (:func:`split`, Python) and in the reader's
query (:data:`JS_SPLITTER`, the same pattern in the page's JavaScript); the words are indexed as before.
"""

from __future__ import annotations

import json
import re

#: Kinds of numbered items the papers and the book refer to.
LABELS = tuple(
    "theorem theorems lemma corollary proposition definition figure fig table algorithm alg equation eq "
    "eqs section sec claim fact assumption remark example appendix step".split()
)
#: A numbered item (group 1 the kind, group 2 the number) or a decimal number; the same text is a regular
#: expression in Python and in JavaScript (with the flags ``i`` and ``u``).
ITEM = (
    r"\b(" + "|".join(LABELS) + r")\.?[ \u00a0]?\(?(\d+(?:\.\d+)*[a-z]?)\)?"
    r"|(?<![\w.,])\d+(?:[.,]\d+)+(?![\w])"
)
_ITEM = re.compile(ITEM, re.IGNORECASE)
_WORD = re.compile(r"\w+")


def _term(m: re.Match) -> str:
    return f"{m.group(1).lower()} {m.group(2).lower()}" if m.group(1) else m.group(0)


def split(text: str) -> list[str]:
    """The index terms of ``text``: its words (as Sphinx cuts them) and its numbered items and decimal
    numbers, each as one term (``"Theorem 4 gives 96.78"`` -> ``[..., "theorem 4", "96.78"]``)."""
    return _WORD.findall(text) + [_term(m) for m in _ITEM.finditer(text)]


def query_terms(query: str) -> list[str]:
    """How the page's script cuts a reader's query (:data:`JS_SPLITTER`; here for the tests): a numbered
    item or a decimal number is one term, every other word one term."""
    return [_term(m) for m in re.finditer(f"{ITEM}|\\w+", query, re.IGNORECASE)]


#: The page's query splitter (Sphinx's ``splitQuery``, which its search calls), with :data:`ITEM`.
JS_SPLITTER = (
    "var splitQuery = (query) => {\n"
    f'  const re = new RegExp({json.dumps(ITEM)} + "|[\\\\p{{Letter}}\\\\p{{Number}}_\\\\p{{Emoji_Presentation}}]+", "giu");\n'
    '  return [...query.matchAll(re)].map((m) => (m[1] ? m[1].toLowerCase() + " " + m[2].toLowerCase() : m[0]));\n'
    "};\n"
)
