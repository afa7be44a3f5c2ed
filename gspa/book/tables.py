"""Every table of the book rendered the same way (:func:`table`), and the text of its pages: ``$...$``
typeset by MathJax (:func:`tex_html`), plain-text subscripts written as TeX (:func:`plain_math`), numbers
to a sensible precision (:func:`number`, :func:`value_text`)."""

from __future__ import annotations

import html
import math
import re

_MATH = re.compile(r"\$([^$]+)\$")
_CODE = re.compile(r"`([^`]+)`")


def tex_html(text) -> str:
    """``text`` HTML-escaped, each ``$...$`` as inline math for MathJax and each ```...``` as code."""

    def prose(p):
        return "".join(
            f"<code>{html.escape(q)}</code>" if j % 2 else html.escape(q)
            for j, q in enumerate(_CODE.split(p))
        )

    return "".join(
        f'<span class="math notranslate nohighlight">\\({html.escape(p)}\\)</span>'
        if i % 2
        else prose(p)
        for i, p in enumerate(_MATH.split(str(text)))
    )


def raw_tex(text) -> list[str]:
    """The fragments of ``text`` with TeX (``_{``, ``^{``) outside ``$...$``: MathJax would show them raw."""
    prose = _MATH.sub(" ", str(text))
    return [
        prose[max(0, i - 20) : i + 20]
        for i in range(len(prose))
        if prose.startswith(("_{", "^{"), i)
    ]


_TEX = r"\varepsilon \delta \mu \alpha \beta \gamma \sigma \lambda \nu \rho \tau \phi \theta \eta"
_GREEK = dict(zip("εδμαβγσλνρτφθη", _TEX.split()))
_G = "".join(_GREEK)
_NAMED = {"mu": r"\mu", "nu": r"\nu", "pi": r"\pi"}  # G_mu: a subscript spelled out
_SUBSCRIPT = re.compile(
    rf"(?<![\w\\])(?:e\^(−|-)?([{_G}])(?:_([A-Za-z0-9]+)|([ᵢⱼ₀₁]))?|([{_G}])_([A-Za-z0-9]+)\b|([A-Za-z])_([a-z]{{1,2}}|\d)\b(?![\w(]))"
)
#: a Greek subscript (G_μ, α_φ), a capital one (T_RR) and an operator's (sup_α, max_α)
_GREEK_INDEX = re.compile(rf"(?<![\w\\])(sup|inf|max|min|[A-Za-z{_G}])_([{_G}]|[A-Z]{{2,3}}\b)")
#: a letter's numeric or parenthesised power: n^1.1, k^(3/4) (10^6 is left as it is)
_POWER = re.compile(r"(?<![\w\\])([A-Za-z])\^(?:\(([^()]+)\)|([−-]?\d+(?:\.\d+)?))")


def _index(idx: str) -> str:
    return _NAMED.get(idx) or (
        idx if len(idx) == 1 else "{\\mathrm{%s}}" % idx if len(idx) > 2 else "{%s}" % idx
    )


def plain_math(text) -> str:
    """``text`` with plain-text mathematics outside ``$...$`` as inline TeX: a Greek letter with any subscript
    (``ε_c``, ``ε_GSPA``), a Latin letter with a one- or two-letter subscript (``n_p``, ``G_mu``), a Greek or
    capital subscript (``G_μ``, ``T_RR``, ``sup_α``), ``e^ε``, ``e^−ε_l`` and a letter's power (``n^1.1``,
    ``k^(3/4)``); identifiers (``eps_c``, ``n_max``) and powers of ten (``10^6``) are left alone."""

    def sub(m):
        minus, eg, esub, uni, greek, gsub, latin, lsub = m.groups()
        esub = esub or (uni and "ij01"["ᵢⱼ₀₁".index(uni)])
        if eg:
            inner = ("-" if minus else "") + _GREEK[eg] + ("_" + _index(esub) if esub else "")
            return "$e^{" + inner + "}$"
        return (
            "$"
            + (_GREEK[greek] + "_" + _index(gsub) if greek else latin + "_" + _index(lsub))
            + "$"
        )

    def greek_index(m):
        base, idx = m.groups()
        base = "\\" + base if base in ("sup", "inf", "max", "min") else _GREEK.get(base, base)
        return "$" + base + "_" + (_GREEK.get(idx) or "{\\mathrm{%s}}" % idx) + "$"

    def power(m):
        return "$" + m.group(1) + "^{" + (m.group(2) or m.group(3)).replace("−", "-") + "}$"

    return "".join(
        f"${p}$"
        if i % 2
        else _POWER.sub(power, _SUBSCRIPT.sub(sub, _GREEK_INDEX.sub(greek_index, p)))
        for i, p in enumerate(_MATH.split(str(text)))  # odd parts: the contents of $...$
    )


_UNTEX = dict(zip(r"\epsilon \max \min \dots \cdot \le \ge".split(), "ε max min … · ≤ ≥".split()))
_UNGREEK = {v: k for k, v in _GREEK.items()} | _UNTEX


def tex_text(text) -> str:
    """``text`` where MathJax does not run (a tooltip): each ``$...$`` with Greek letters for TeX commands
    (``$\varepsilon_{lk}$`` → ``ε_lk``)."""

    def plain(m):
        t = re.sub(r"\\mathrm\{([^}]*)\}", r"\1", m.group(1))
        t = re.sub(r"\\[A-Za-z]+", lambda c: _UNGREEK.get(c.group(0), c.group(0)[1:]), t)
        return t.replace("{", "").replace("}", "")

    return _MATH.sub(plain, str(text))


def shorten(text, limit: int = 100) -> str:
    """``text`` cut at a word to about ``limit`` visible characters, with an ellipsis; a ``$...$`` formula
    is never cut (one crossing the limit is left out, unless nothing comes before it)."""
    out, used = "", 0
    for i, piece in enumerate(re.split(r"(\$[^$]+\$)", " ".join(str(text).split()))):
        # \varepsilon: one sign
        size = len(re.sub(r"\\[A-Za-z]+", "x", piece)) if i % 2 else len(piece)
        if used + size <= limit or (i % 2 and not out.strip()):
            out, used = out + piece, used + size
            continue
        if not i % 2:
            head = piece[: max(limit - used + 1, 0)]
            out += head.rsplit(" ", 1)[0] if " " in head else ""
        return out.rstrip(" ,;:—-(") + "…"
    return out


def column_kind(values) -> str:
    """How a column of numbers is printed: ``"int"`` when every finite value is integral, ``"sci"`` when a
    non-zero magnitude is outside [1e-3, 1e6), ``"plain"`` otherwise (text, None and truth values ignored)."""
    xs = []
    for v in values:
        try:
            if not isinstance(v, (bool, str)) and math.isfinite(f := float(v)):
                xs.append(f)
        except (TypeError, ValueError):
            pass
    if xs and all(f == int(f) and abs(f) < 1e15 for f in xs):
        return "int"
    mags = [abs(f) for f in xs if f != 0]
    return "sci" if mags and (min(mags) < 1e-3 or max(mags) >= 1e6) else "plain"


def number(x, digits: int = 4) -> str:
    """A number to ``digits`` significant digits, scientific outside [1e-3, 1e6); integers with thousands
    separators; inf as ∞; None and NaN as an em dash; a truth value as yes/no."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int) or (hasattr(x, "dtype") and x.dtype.kind in "iu"):
        return f"{int(x):,}"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v) or math.isinf(v):
        return "—" if math.isnan(v) else "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    if 1e-3 <= abs(v) < 1e6:
        s = f"{v:.{digits}g}"
        return s if "e" not in s else f"{v:.{digits - 1}e}"
    return f"{v:.{max(digits - 2, 1)}e}"


def value_text(x, digits: int = 4) -> str:
    """A value as a table or a claim shows it, never a program's repr: a number as :func:`number` writes it,
    a mapping as ``key: value; …``, a sequence as ``value, …``, text as it is."""
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        return "; ".join(f"{k}: {value_text(v, digits)}" for k, v in x.items())
    if isinstance(x, (list, tuple, set, frozenset)) or getattr(x, "ndim", 0) > 0:
        return ", ".join(value_text(v, digits) for v in x)
    return number(x, digits)


_FORMATS = {"int": lambda v: f"{int(v):,}", "sci": lambda v: f"{float(v):.2e}", "plain": number}


def _cell(v, fmt) -> str:
    if isinstance(v, (str, dict, list, tuple, set)):
        return tex_html(plain_math(value_text(v)))
    if v is None or isinstance(v, bool) or (isinstance(v, float) and not math.isfinite(v)):
        return number(v)
    return html.escape(fmt(v) if callable(fmt) else fmt.format(v))


def table(
    df,
    caption: str,
    *,
    formats: dict | str | None = None,
    headers: dict | None = None,
    index: bool = False,
    note: str = "",
):
    """An IPython HTML table of ``df`` under ``caption``, in a horizontal scroll container, collapsed when
    longer than 20 rows. ``formats``: a format string or callable per column, or one format string for every
    number. A column without one prints integers with thousands separators, the others in one notation for
    the whole column (:func:`column_kind`); missing values show as an em dash. ``headers`` renames columns
    (``$...$`` allowed); ``index=True`` shows the index as the first columns. The caption, the note, the
    headers and text cells have their plain-text mathematics typeset (:func:`plain_math`)."""
    from IPython.display import HTML

    if not caption:
        raise ValueError("every table needs a caption")
    every = formats if isinstance(formats, str) else None
    own, headers = ({} if every else formats or {}), headers or {}
    d = df.reset_index() if index else df
    fmts = []
    for j, c in enumerate(d.columns):
        kind = column_kind(d.iloc[:, j])
        fits = every and (kind != "int" or "%" in every)  # a percentage format fits integers too
        fmts.append(own.get(c) or (every if fits else _FORMATS[kind]))
    label = lambda c: " / ".join(map(str, c)) if isinstance(c, tuple) else str(c)  # noqa: E731
    head = "".join(
        f"<th>{tex_html(headers[c] if c in headers else plain_math(label(c)))}</th>"
        for c in d.columns
    )
    rows = "".join(
        "<tr>" + "".join(f"<td>{_cell(v, f)}</td>" for f, v in zip(fmts, r)) + "</tr>"
        for r in d.itertuples(index=False, name=None)
    )
    body = (
        f'<div class="gspa-scroll"><table class="gspa-table"><caption>{tex_html(plain_math(caption))}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        + (f'<p class="gspa-table-note">{tex_html(plain_math(note))}</p>' if note else "")
        + "</div>"
    )
    if len(d) > 20:
        body = f'<details class="gspa-long"><summary>{tex_html(caption)} — {len(d):,} rows (click to show)</summary>{body}</details>'
    return HTML(body)
