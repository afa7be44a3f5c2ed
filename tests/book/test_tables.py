"""The book's one table renderer."""
import math

import pandas as pd
import pytest

from gspa.book.tables import number, table, tex_html


def test_caption_required_and_cells_formatted():
    df = pd.DataFrame({"name": ["a $x_1$", "b"], "v": [0.123456, math.nan], "n": [1000, 2]})
    with pytest.raises(ValueError, match="caption"):
        table(df, "")
    html = table(df, "Caption $\\mu$", formats={"v": "{:.2f}"}).data
    assert "<caption>Caption <span class=\"math" in html and "0.12" in html and "—" in html and "1,000" in html
    assert '<span class="math notranslate nohighlight">\\(x_1\\)</span>' in html
    # one format for every number; text is never formatted
    html = table(df, "c", formats="{:.3f}").data
    assert "0.123" in html and "1000.000" in html and "a " in html


def test_index_and_collapse():
    df = pd.DataFrame({"v": range(30)}, index=[f"r{i}" for i in range(30)])
    html = table(df, "long", index=True).data
    assert "r29" in html and "<details" in html and "30 rows" in html


def test_number_and_tex_html():
    assert number(None) == "—" and number(math.inf) == "∞" and number(12345) == "12,345"
    assert number(1.23456e-7) == "1.23e-07" and number(0.5) == "0.5"
    assert tex_html("<b> $a<b$") == '&lt;b&gt; <span class="math notranslate nohighlight">\\(a&lt;b\\)</span>'
