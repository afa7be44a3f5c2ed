"""The book's one table renderer."""

import math

import pandas as pd
import pytest

from gspa.book.tables import (
    column_kind,
    number,
    plain_math,
    raw_tex,
    table,
    tex_html,
    tex_text,
    value_text,
)


def test_caption_required_and_cells_formatted():
    df = pd.DataFrame({"name": ["a $x_1$", "b"], "v": [0.123456, math.nan], "n": [1000, 2]})
    with pytest.raises(ValueError, match="caption"):
        table(df, "")
    html = table(df, "Caption $\\mu$", formats={"v": "{:.2f}"}).data
    assert (
        '<caption>Caption <span class="math' in html
        and "0.12" in html
        and "—" in html
        and "1,000" in html
    )
    assert '<span class="math notranslate nohighlight">\\(x_1\\)</span>' in html
    # one format for every number, except integer columns; text is never formatted
    html = table(df, "c", formats="{:.3f}").data
    assert "0.123" in html and "1,000" in html and "1000.000" not in html and "a " in html


def _cells(html):
    import re

    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", html)]


def test_integers_print_as_integers():
    # n after a pivot or a merge is float: still an integer on the page, with thousands separators
    df = pd.DataFrame({"n": [1000.0, 1_000_000.0, math.nan], "eps": [0.25, 0.5, 1.0]})
    for formats in (None, "{:.4f}", {"eps": "{:.2f}"}):
        cells = _cells(table(df, "c", formats=formats).data)
        assert cells[0::2] == ["1,000", "1,000,000", "—"], formats
    # an index of integers (index=True) too; a column's own format wins
    cells = _cells(table(df.set_index("n"), "c", index=True, formats="{:.4f}").data)
    assert cells[0::2] == ["1,000", "1,000,000", "—"]
    assert _cells(table(df, "c", formats={"n": "{:.1f}"}).data)[0] == "1000.0"
    # a percentage format is not overridden by integral values (1.0 is 100 %)
    assert _cells(table(pd.DataFrame({"r": [1.0, 0.0]}), "c", formats="{:.0%}").data) == [
        "100%",
        "0%",
    ]
    assert column_kind([1.0, 2.0, None]) == "int" and column_kind([True, 2.5]) == "plain"


def test_one_notation_per_column():
    df = pd.DataFrame(
        {
            "small": [0.002871, 7.86e-4, 0.5],
            "mid": [0.002871, 0.5, 12.25],
            "big": [3.0e6, 12.5, 0.0],
            "text": ["a", "b", "c"],
        }
    )
    cells = _cells(table(df, "c").data)
    small, mid, big = cells[0::4], cells[1::4], cells[2::4]
    assert small == ["2.87e-03", "7.86e-04", "5.00e-01"]  # one scientific notation for the column
    assert all("e" not in c for c in mid) and mid == ["0.002871", "0.5", "12.25"]
    assert big == ["3.00e+06", "1.25e+01", "0.00e+00"]
    assert cells[3::4] == ["a", "b", "c"]
    for col in (small, mid, big):  # never both notations in one column
        assert len({"e" in c for c in col}) == 1


def test_headers_typeset_plain_subscripts():
    df = pd.DataFrame({"ε_c at δ_c": [1.0], "n_p": [2], "eps_c": [3], "n_max": [4], "$x_1$": [5]})
    html = table(df, "c", headers={"n_p": "padded size"}).data
    assert (
        "\\(\\varepsilon_c\\)</span> at" in html
        and "\\(\\delta_c\\)" in html
        and "padded size" in html
    )
    assert "<th>eps_c</th>" in html and "<th>n_max</th>" in html and "\\(x_1\\)" in html
    assert (
        plain_math("true δ(ε_cd)/δ_GDP") == "true δ($\\varepsilon_{cd}$)/$\\delta_{\\mathrm{GDP}}$"
    )
    assert raw_tex(plain_math("ε_cd and n_p")) == []
    assert (
        plain_math("max (G_mu − T) at 1/(1 + e^εᵢ), FMT21 e^−ε/2")
        == "max ($G_\\mu$ − T) at 1/(1 + $e^{\\varepsilon_i}$), FMT21 $e^{-\\varepsilon}$/2"
    )
    # text cells and the caption too; file names and identifiers stay as they are
    html = table(
        pd.DataFrame({"reading": ["fresh noise, n_p = n", "get_budget.py"]}), "by ε_L"
    ).data
    assert "\\(n_p\\)" in html and "get_budget.py" in html and "by <span" in html


def test_index_and_collapse():
    df = pd.DataFrame({"v": range(30)}, index=[f"r{i}" for i in range(30)])
    html = table(df, "long", index=True).data
    assert "r29" in html and "<details" in html and "30 rows" in html


def test_number_and_tex_html():
    assert number(None) == "—" and number(math.inf) == "∞" and number(12345) == "12,345"
    assert number(1.23456e-7) == "1.23e-07" and number(0.5) == "0.5"
    assert (
        tex_html("<b> $a<b$")
        == '&lt;b&gt; <span class="math notranslate nohighlight">\\(a&lt;b\\)</span>'
    )


def test_one_formatter_for_values_and_no_repr():
    """A mapping or a sequence of values shows as text with each number formatted like any other
    (never its Python repr), in a table cell and in a claim's value."""
    ours = {"ε_l = 78.5 kept": 0.6213495923329396, "ε_lk = 0.5 kept": 3.728357327742808}
    assert value_text(ours) == "ε_l = 78.5 kept: 0.6213; ε_lk = 0.5 kept: 3.728"
    assert (
        value_text([False, False, True]) == "no, no, yes"
        and value_text((1, 2.5e-9)) == "1, 2.50e-09"
    )
    assert value_text("as is") == "as is" and value_text(0.5378040242374512) == "0.5378"
    html = table(pd.DataFrame({"x": [ours]}), "c").data
    assert "{'" not in html and "0.6213495923" not in html and r"\(\varepsilon_l\)" in html


def test_powers_and_code_spans():
    assert plain_math("δ_c = 0.01/n^1.1") == r"$\delta_c$ = 0.01/$n^{1.1}$"
    assert plain_math("n ≳ k^(3/4) and n^−1") == "n ≳ $k^{3/4}$ and $n^{-1}$"
    assert plain_math("10^6 users, $x^2$") == "10^6 users, $x^2$"
    assert (
        tex_html("says `eps is 0.5378040242374512` <")
        == "says <code>eps is 0.5378040242374512</code> &lt;"
    )


def test_tooltips_show_no_tex():
    """A readings table's tooltip (the reason of a reading) cannot be typeset: Greek letters, not TeX."""
    assert (
        tex_text(r"at $\varepsilon_{lk}$ = 0.5 and $\delta_{\max}$, $\varepsilon_{\mathrm{lo}}$")
        == "at ε_lk = 0.5 and δ_max, ε_lo"
    )


def test_greek_and_capital_subscripts():
    assert plain_math("sup_α (G_μ − T)") == r"$\sup_\alpha$ ($G_\mu$ − T)"
    assert plain_math("α_φ + T_RR") == r"$\alpha_\phi$ + $T_{\mathrm{RR}}$"
