"""Every table of the book, rendered the same way.

:func:`table` turns a pandas DataFrame into an HTML table with a caption above it, human-readable
headers, numbers formatted to a sensible precision, a horizontal scroll container (nothing wider than
the page), and — for long tables — a collapsed ``<details>`` block. Text containing ``$...$`` is
typeset by MathJax (the span class Sphinx's MathJax configuration processes).

Formatting rules: a column whose numbers are all integers (also as floats, e.g. ``n`` after a pivot)
prints them as integers with thousands separators, unless the column has a format of its own; every
other column without a format of its own gets **one** notation for all its cells (:func:`column_format`:
plain 4 significant digits when all magnitudes are in [1e-3, 1e6), otherwise scientific with 3), so
``0.002871`` and ``7.86e-04`` never share a column. A header without an explicit name has its plain-text
subscripts (``ε_c``, ``δ_cd``, ``n_p``) typeset (:func:`plain_math`), as have the caption, the note and
text cells.
"""

from __future__ import annotations

import html
import math
import re

_MATH = re.compile(r"\$([^$]+)\$")
_CODE = re.compile(r"`([^`]+)`")


def tex_html(text) -> str:
    """HTML-escape ``text``, turn each ``$...$`` into inline math for MathJax and each ```...``` into code (a
    program's output quoted verbatim)."""
    out, pos = [], 0
    s = str(text)
    for m in _MATH.finditer(s):
        out.append(_code_html(s[pos : m.start()]))
        out.append(
            f'<span class="math notranslate nohighlight">\\({html.escape(m.group(1))}\\)</span>'
        )
        pos = m.end()
    out.append(_code_html(s[pos:]))
    return "".join(out)


def _code_html(text: str) -> str:
    out, pos = [], 0
    for m in _CODE.finditer(text):
        out += [html.escape(text[pos : m.start()]), f"<code>{html.escape(m.group(1))}</code>"]
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def raw_tex(text) -> list[str]:
    """The fragments of ``text`` that look like TeX (``_{`` or ``^{``) outside ``$...$``: MathJax
    would leave them raw on the page."""
    prose = _MATH.sub(" ", str(text))
    return [
        prose[max(0, i - 20) : i + 20]
        for i in range(len(prose))
        if prose.startswith(("_{", "^{"), i)
    ]


_GREEK = {
    "ε": r"\varepsilon",
    "δ": r"\delta",
    "μ": r"\mu",
    "α": r"\alpha",
    "β": r"\beta",
    "γ": r"\gamma",
    "σ": r"\sigma",
    "λ": r"\lambda",
    "ν": r"\nu",
    "ρ": r"\rho",
    "τ": r"\tau",
    "φ": r"\phi",
    "θ": r"\theta",
    "η": r"\eta",
}
_NAMED = {"mu": r"\mu", "nu": r"\nu", "pi": r"\pi"}  # G_mu: a subscript spelled out
_SUBSCRIPT = re.compile(
    r"(?<![\w\\])(?:e\^(−|-)?([%s])(?:_([A-Za-z0-9]+)|([ᵢⱼ₀₁]))?|([%s])_([A-Za-z0-9]+)\b|([A-Za-z])_([a-z]{1,2}|\d)\b(?![\w(]))"
    % ("".join(_GREEK), "".join(_GREEK))
)
#: a Greek subscript (G_μ, α_φ), a capital one (T_RR) and an operator's (sup_α, max_α)
_GREEK_INDEX = re.compile(
    r"(?<![\w\\])(sup|inf|max|min|[A-Za-z%s])_([%s]|[A-Z]{2,3}\b)"
    % ("".join(_GREEK), "".join(_GREEK))
)
#: a letter with a numeric or parenthesised superscript: n^1.1, k^(3/4) (not powers of ten: 10^6 is read as such)
_POWER = re.compile(r"(?<![\w\\])([A-Za-z])\^(?:\(([^()]+)\)|([−-]?\d+(?:\.\d+)?))")


def _index(idx: str) -> str:
    if idx in _NAMED:
        return _NAMED[idx]
    return idx if len(idx) == 1 else ("{\\mathrm{%s}}" % idx if len(idx) > 2 else "{%s}" % idx)


def plain_math(text) -> str:
    """``text`` with plain-text mathematics outside ``$...$`` typeset as inline TeX: a Greek letter with
    any subscript (``ε_c``, ``δ_cd``, ``ε_GSPA``), a single Latin letter with a one- or two-letter
    subscript (``n_p``, ``G_mu``), a Greek or capital subscript (``G_μ``, ``α_φ``, ``T_RR``, ``sup_α``), ``e^ε``,
    ``e^−ε``, ``e^ε_l`` and a letter's power (``n^1.1``, ``k^(3/4)``);
    identifiers such as ``eps_c`` or ``n_max`` and powers of ten (``10^6``) are left alone."""

    def sub(m):
        minus, eg, esub, uni, greek, gsub, latin, lsub = m.groups()
        esub = esub or (uni and "ij01"["ᵢⱼ₀₁".index(uni)])
        if eg:
            inner = ("-" if minus else "") + _GREEK[eg] + ("_" + _index(esub) if esub else "")
            return "$e^{" + inner + "}$"
        if greek:
            return "$" + _GREEK[greek] + "_" + _index(gsub) + "$"
        return "$" + latin + "_" + _index(lsub) + "$"

    def power(m):
        exponent = (m.group(2) or m.group(3)).replace("−", "-")
        return "$" + m.group(1) + "^{" + exponent + "}$"

    parts = _MATH.split(str(text))  # odd parts: the contents of $...$

    def greek_index(m):
        base, idx = m.groups()
        base = "\\" + base if base in ("sup", "inf", "max", "min") else _GREEK.get(base, base)
        return "$" + base + "_" + (_GREEK[idx] if idx in _GREEK else "{\\mathrm{%s}}" % idx) + "$"

    return "".join(
        f"${p}$"
        if i % 2
        else _POWER.sub(power, _SUBSCRIPT.sub(sub, _GREEK_INDEX.sub(greek_index, p)))
        for i, p in enumerate(parts)
    )


_UNGREEK = {v: k for k, v in _GREEK.items()} | {
    r"\epsilon": "ε",
    r"\max": "max",
    r"\min": "min",
    r"\dots": "…",
    r"\cdot": "·",
    r"\le": "≤",
    r"\ge": "≥",
}


def tex_text(text) -> str:
    """``text`` for a place where MathJax does not run (a tooltip): each ``$...$`` written with Greek letters
    instead of TeX commands (``$\varepsilon_{lk}$`` → ``ε_lk``)."""

    def plain(m):
        t = re.sub(r"\\mathrm\{([^}]*)\}", r"\1", m.group(1))
        t = re.sub(r"\\[A-Za-z]+", lambda c: _UNGREEK.get(c.group(0), c.group(0)[1:]), t)
        return t.replace("{", "").replace("}", "")

    return _MATH.sub(plain, str(text))


def column_kind(values) -> str:
    """How a column of numbers is printed (see the module docstring): ``"int"`` when every finite value
    is integral, ``"sci"`` when some non-zero magnitude is outside [1e-3, 1e6), ``"plain"`` otherwise."""
    xs = []
    for v in values:
        if v is None or isinstance(v, (bool, str)):
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            xs.append(f)
    if xs and all(f == int(f) and abs(f) < 1e15 for f in xs):
        return "int"
    mags = [abs(f) for f in xs if f != 0]
    return "sci" if mags and (min(mags) < 1e-3 or max(mags) >= 1e6) else "plain"


def column_format(values):
    """The formatter of one column: integers with thousands separators, or one notation for all cells."""
    kind = column_kind(values)
    if kind == "int":
        return lambda v: f"{int(v):,}"
    if kind == "sci":
        return lambda v: f"{float(v):.2e}"
    return number


def number(x, digits: int = 4) -> str:
    """A number to ``digits`` significant digits: plain for moderate magnitudes, scientific otherwise;
    integers with thousands separators; inf as ∞; None/NaN as an em dash."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int) or (hasattr(x, "dtype") and getattr(x, "dtype").kind in "iu"):
        return f"{int(x):,}"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    a = abs(v)
    if 1e-3 <= a < 1e6:
        s = f"{v:.{digits}g}"
        return s if "e" not in s else f"{v:.{digits - 1}e}"
    return f"{v:.{max(digits - 2, 1)}e}"


def value_text(x, digits: int = 4) -> str:
    """The one text of a value shown in a table or a claim: a number as :func:`number` writes it, a mapping as
    ``key: value; …``, a sequence as ``value, …`` (each value so written), text as it is; never a program's
    repr."""
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        return "; ".join(f"{k}: {value_text(v, digits)}" for k, v in x.items())
    if isinstance(x, (list, tuple, set, frozenset)) or (
        hasattr(x, "ndim") and getattr(x, "ndim") > 0
    ):
        return ", ".join(value_text(v, digits) for v in x)
    return number(x, digits)


def _cell(v, fmt) -> str:
    if isinstance(v, (dict, list, tuple, set)):
        return tex_html(plain_math(value_text(v)))
    if isinstance(v, str):
        return tex_html(plain_math(v))
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, bool):
        return number(v)
    if isinstance(v, float) and math.isinf(v):
        return number(v)
    if fmt is not None:
        return html.escape(fmt(v) if callable(fmt) else fmt.format(v))
    return html.escape(number(v))


def _label(c) -> str:
    return " / ".join(str(x) for x in c) if isinstance(c, tuple) else str(c)


def table(
    df,
    caption: str,
    *,
    formats: dict | str | None = None,
    headers: dict | None = None,
    index: bool = False,
    collapse_after: int = 20,
    note: str = "",
):
    """An IPython HTML object for ``df`` (see the module docstring). ``formats`` maps a column to a
    format string or a callable, or is one format string for every number (integer columns still print as
    integers); text cells are never formatted and missing values show as an em dash. ``headers`` renames
    columns for display (``$...$`` allowed; other headers get :func:`plain_math`); ``index=True`` shows the
    index as the first columns."""
    from IPython.display import HTML

    if not caption:
        raise ValueError("every table needs a caption")
    every = formats if isinstance(formats, str) else None
    formats, headers = ({} if every else formats or {}), headers or {}
    d = df.reset_index() if index else df
    cols = list(d.columns)
    fmts = []
    for j, c in enumerate(cols):
        own = formats.get(c)
        if own is None:
            col = d.iloc[:, j]
            own = (
                every
                if every and not (column_kind(col) == "int" and "%" not in every)
                else column_format(col)
            )
        fmts.append(own)
    head = "".join(
        f"<th>{tex_html(headers[c] if c in headers else plain_math(_label(c)))}</th>" for c in cols
    )
    rows = "".join(
        "<tr>" + "".join(f"<td>{_cell(v, f)}</td>" for f, v in zip(fmts, r)) + "</tr>"
        for r in d.itertuples(index=False, name=None)
    )
    body = (
        f'<table class="gspa-table"><caption>{tex_html(plain_math(caption))}</caption><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )
    if note:
        body += f'<p class="gspa-table-note">{tex_html(plain_math(note))}</p>'
    body = f'<div class="gspa-scroll">{body}</div>'
    if len(d) > collapse_after:
        body = (
            f'<details class="gspa-long"><summary>{tex_html(caption)} — {len(d):,} rows (click to show)</summary>'
            f"{body}</details>"
        )
    return HTML(body)
