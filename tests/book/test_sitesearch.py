"""The book's search terms: numbered items and decimal numbers are one term each."""

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from gspa.book import sitesearch as S


@pytest.mark.parametrize(
    "text, term",
    [
        ("By Theorem 4, ", "theorem 4"),
        ("eq. (3)", "eq 3"),
        ("Fig. 2", "fig 2"),
        ("Lemma 2.1 says", "lemma 2.1"),
        ("reaches 96.78 %", "96.78"),
        ("of 10,000 users", "10,000"),
        ("Book table 2", "table 2"),
    ],
)
def test_items_and_numbers_are_one_term_in_the_index_and_the_query(text, term):
    assert term in S.split(text)
    assert term in S.query_terms(text)


def test_words_are_still_indexed_alone():
    assert {"Theorem", "4", "gives"} <= set(S.split("Theorem 4 gives"))
    assert S.query_terms("Theorem 4 gives") == ["theorem 4", "gives"]
    assert "1.5" not in S.split("v1.5") and "2.5" not in S.split("x2.5")


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the page's splitter")
@given(
    st.lists(
        st.sampled_from(
            [
                "Theorem",
                "theorem",
                "Lemma",
                "eq.",
                "(3)",
                "4",
                "2.5",
                "10,000",
                "96.78",
                "users",
                "Fig.",
                "ε",
                "x1.5",
                "a",
            ]
        ),
        max_size=8,
    )
)
@settings(deadline=None)  # each example starts Node.js: its time depends on how busy the machine is
def test_the_pages_splitter_cuts_queries_as_the_python_one(words):
    query = " ".join(words)
    js = S.JS_SPLITTER + f"console.log(JSON.stringify(splitQuery({json.dumps(query)})));"
    out = subprocess.run(["node", "-e", js], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == S.query_terms(query)
