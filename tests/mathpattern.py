"""The pattern of plain-text mathematics (ε_c, n_p, e^ε, n^(1/6)) that the book must typeset instead, and of
raw program values (Python reprs) that it must format instead: shared by the fast check of the notebooks'
markdown (tests/book/test_math_typeset.py) and the browser check of the rendered pages
(tests/book/test_browser.py)."""

import re

GREEK = "εδμαβγσλθνρφτηΔ"
#: Plain-text mathematics: a Greek letter with an ASCII subscript (ε_c, δ_cd), a single Latin letter with a
#: one- or two-letter subscript (n_p; not identifiers such as eps_c or n_max), a parenthesised superscript
#: (n^(1/6), log^(1/3)(…)), a letter with a numeric superscript (n^1.1; not powers of ten such as 10^6), a
#: superscript Greek letter (e^ε, e^−ε), Greek or capital subscripts (α_φ, f_ε,δ, T_RR) and max_α.
PLAIN_MATH = re.compile(
    rf"[{GREEK}]_[A-Za-z0-9{GREEK}]|(?<![\w\\])[A-Za-z]_[a-z]{{1,2}}\b(?![\w(])|\w\^\(|\^[−-]?[{GREEK}]"
    rf"|(?<![\w\\])[A-Za-z]\^[−-]?\d|(?<![\w\\])[A-Za-z]_(?:[{GREEK}]|[A-Z]{{2,3}}\b)"
    rf"|\b(?:max|min|sup|inf)_[{GREEK}]"
)

#: Raw program values where a formatted number or text belongs: a container's repr ({'a': 1}, ['x'],
#: [False, True]), numpy's reprs (np.float64(…), array(…)), an object's default repr (… at 0x7f…), and a float
#: printed with all its digits (0.6213495923329396: twelve or more digits after the point, as a repr writes a
#: double; not inside a DOI; a published value quoted to ten digits is a quote).
RAW_REPR = re.compile(
    r"[{\[]['\"]|\[(?:True|False|None)\b|\b(?:True|False|None)\]|\bnp\.\w+\(|\barray\(|\bat 0x[0-9a-f]"
    r"|(?<![\w./])\d\.\d{12,}"
)

# What MyST does not show as prose: code fences and directives, display and inline math, inline code and
# roles ({glue}`x`, {doc}`x`), HTML comments, link targets.
_HIDDEN = re.compile(
    r"```.*?```|\$\$.*?\$\$|\$[^$\n]+\$|(\{[\w:-]+\})?`[^`]*`|<!--.*?-->|\]\([^)]*\)", re.S
)


def plain_math(text: str) -> list[str]:
    """The fragments of markdown ``text`` that MyST would render as plain-text mathematics."""
    prose = _HIDDEN.sub(" ", text)
    return [prose[max(0, m.start() - 25) : m.end() + 25] for m in PLAIN_MATH.finditer(prose)]
