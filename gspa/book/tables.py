"""Every table of the book, rendered the same way.

:func:`table` turns a pandas DataFrame into an HTML table with a caption above it, human-readable
headers, numbers formatted to a sensible precision, a horizontal scroll container (nothing wider than
the page), and — for long tables — a collapsed ``<details>`` block. Text containing ``$...$`` is
typeset by MathJax (the span class Sphinx's MathJax configuration processes).
"""
from __future__ import annotations

import html
import math
import re

_MATH = re.compile(r"\$([^$]+)\$")


def tex_html(text) -> str:
    """HTML-escape ``text`` and turn each ``$...$`` into inline math for MathJax."""
    out, pos = [], 0
    s = str(text)
    for m in _MATH.finditer(s):
        out.append(html.escape(s[pos:m.start()]))
        out.append(f'<span class="math notranslate nohighlight">\\({html.escape(m.group(1))}\\)</span>')
        pos = m.end()
    out.append(html.escape(s[pos:]))
    return "".join(out)


def raw_tex(text) -> list[str]:
    """The fragments of ``text`` that look like TeX (``_{`` or ``^{``) outside ``$...$``: MathJax
    would leave them raw on the page."""
    prose = _MATH.sub(" ", str(text))
    return [prose[max(0, i - 20):i + 20] for i in range(len(prose)) if prose.startswith(("_{", "^{"), i)]


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


def _cell(v, fmt) -> str:
    if isinstance(v, str):
        return tex_html(v)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if fmt is not None:
        return html.escape(fmt(v) if callable(fmt) else fmt.format(v))
    return html.escape(number(v))


def table(df, caption: str, *, formats: dict | str | None = None, headers: dict | None = None,
          index: bool = False, collapse_after: int = 20, note: str = ""):
    """An IPython HTML object for ``df`` (see the module docstring). ``formats`` maps a column to a
    format string or a callable, or is one format string for every number; text cells are never
    formatted and missing values show as an em dash. ``headers`` renames columns for display
    (``$...$`` allowed); ``index=True`` shows the index as the first columns."""
    from IPython.display import HTML
    if not caption:
        raise ValueError("every table needs a caption")
    every = formats if isinstance(formats, str) else None
    formats, headers = ({} if every else formats or {}), headers or {}
    d = df.reset_index() if index else df
    cols = list(d.columns)
    head = "".join(f"<th>{tex_html(headers.get(c, c))}</th>" for c in cols)
    rows = "".join("<tr>" + "".join(f"<td>{_cell(v, formats.get(c, every))}</td>" for c, v in zip(cols, r)) + "</tr>"
                   for r in d.itertuples(index=False, name=None))
    body = (f'<table class="gspa-table"><caption>{tex_html(caption)}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>")
    if note:
        body += f'<p class="gspa-table-note">{tex_html(note)}</p>'
    body = f'<div class="gspa-scroll">{body}</div>'
    if len(d) > collapse_after:
        body = (f'<details class="gspa-long"><summary>{tex_html(caption)} — {len(d):,} rows (click to show)</summary>'
                f"{body}</details>")
    return HTML(body)
