import math

import pytest

from gspa.claims.rules import Close, Compare, Holds, NotCheckable, Verdict


def test_close_three_tiers():
    rule = Close(rel_tol=0.01, loose_rel=0.1)
    assert rule.judge(100.5, 100).status == "reproduced"
    assert rule.judge(105, 100).status == "differs"
    assert rule.judge(150, 100).status == "not reproduced"


def test_compare_and_holds():
    assert Compare("<=", 0.0).judge(-1e-3).status == "reproduced"
    assert Compare("<=", 0.0).judge(1e-3).status == "not reproduced"
    assert Compare(">=", 2.0, loose=1.0).judge(1.5).status == "differs"
    assert Holds("x").judge(True).status == "reproduced"
    assert Holds("x").judge(False).status == "not reproduced"
    assert NotCheckable("no value").judge().status == "not checkable"


def test_bad_rules_and_values_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        Close(rel_tol=0.1).judge(math.nan, 1.0)
    with pytest.raises(ValueError, match="boolean"):
        Holds("x").judge(1.0)
    with pytest.raises(ValueError, match="op"):
        Compare("~", 0.0)
    with pytest.raises(ValueError, match="status"):
        Verdict("fine", "typed by hand")


def test_readings_rule_gives_conditional_only_when_some_readings_hold():
    from gspa.claims.rules import Readings

    rule = Readings(Close(abs_tol=0.5), what="reading of the sentence")
    assert rule.judge({"non-private net": 96.8, "best private": 96.7}, 96.78).status == "reproduced"
    v = rule.judge({"non-private net": 96.8, "best private": 92.1}, 96.78)
    assert v.status == "conditional" and "non-private net" in v.reason
    assert rule.judge({"a": 90.0, "b": 91.0}, 96.78).status == "not reproduced"
    with pytest.raises(ValueError, match="mapping"):
        rule.judge(96.8, 96.78)
    # a reading stated but not computed is shown, never counted as holding
    v = rule.judge({"as printed": 90.0, "another reading": None}, 96.78)
    assert v.status == "not reproduced" and "another reading: not checkable" in v.reason
    assert rule.judge({"a": None}, 96.78).status == "not checkable"
    v = rule.judge({"a": 96.8, "b": None}, 96.78)  # holds where computed, the rest unknown
    assert v.status == "holds where checked" and "not computed under b" in v.reason
    v = rule.judge({"a": 96.8, "b": 90.0, "c": None}, 96.78)
    assert v.status == "conditional"
    assert (
        "fails under every reading computed; not computed under another reading"
        in rule.judge({"as printed": 90.0, "another reading": None}, 96.78).reason
    )


def test_claim_kind_must_come_from_the_vocabulary():
    from gspa.book.results import Chapter

    ch = Chapter("t")
    with pytest.raises(ValueError, match="kind"):
        ch.claim("x", "s", "w", True, Holds("x"), kind="typo")
    ch.claim("x", "s", "w", True, Holds("x"), kind="misprint")
    assert ch.claims[0]["kind"] == "misprint"


def test_claim_text_with_tex_outside_math_is_refused():
    # the figure-4 statement once carried 'Σ_{i=1}^n' outside $...$ and showed raw on the page
    from gspa.book.results import Chapter

    ch = Chapter("t")
    with pytest.raises(ValueError, match="statement has TeX outside"):
        ch.claim("x", "μ = Σ_{i=1}^n a_i", "w", True, Holds("x"), kind="misprint")
    with pytest.raises(ValueError, match="ours_text has TeX"):
        ch.claim("x", "s", "w", True, Holds("x"), kind="misprint", ours_text="e^{ε}")
    ch.claim("x", r"$\mu = \sum_{i=1}^{n} a_i$", "w", True, Holds("x"), kind="misprint")
    assert len(ch.claims) == 1


def test_claim_text_with_control_characters_is_refused():
    # the peers chapter once wrote "$\beta ... \varepsilon$" in a plain string: a backspace, a vertical tab
    # and "eta", "arepsilon" on the page
    from gspa.book.results import Chapter

    ch = Chapter("t")
    with pytest.raises(
        ValueError, match=r"statement of claim 'x' holds control characters '\\x08', '\\x0b'"
    ):
        ch.claim("x", "$\beta = e^{\varepsilon}$", "w", True, Holds("x"), kind="misprint")
    with pytest.raises(ValueError, match="note of claim"):
        ch.claim("x", "s", "w", True, Holds("x"), kind="misprint", note="tab\there")
    ch.claim(
        "x", r"$\beta = e^{\varepsilon}$", "w", True, Holds("x"), kind="misprint", note="two\nlines"
    )
    assert len(ch.claims) == 1


def test_claim_texts_carry_their_mathematics_as_math():
    """Whatever a notebook writes (ε_l, n_p, e^ε_L, n^1.1), the record carries it as $...$ — the
    statement, the readings' names, the reason, the value's text — and a mapping of values is never a repr."""
    from gspa.claims.rules import Close, Readings
    from gspa.book.results import Chapter, readings

    ch = Chapter("flame/t")
    ch.claim(
        "x",
        "(2.348, δ_c)-DP when n ≫ e^ε_L, δ_c = 0.01/n^1.1",
        "w",
        {"ε_l = 78.5 kept": 0.6213495923329396, "ε_lk = 0.5 kept": 3.728357327742808},
        Readings(Close(0.05), "reading"),
        2.348,
        kind="numerical",
    )
    c = ch.claims[0]
    assert (
        c["statement"]
        == r"(2.348, $\delta_c$)-DP when n ≫ $e^{\varepsilon_L}$, $\delta_c$ = 0.01/$n^{1.1}$"
    )
    assert list(c["ours"]) == [r"$\varepsilon_l$ = 78.5 kept", r"$\varepsilon_{lk}$ = 0.5 kept"]
    assert (
        c["ours_text"]
        == r"$\varepsilon_l$ = 78.5 kept: 0.6213; $\varepsilon_{lk}$ = 0.5 kept: 3.728"
    )
    assert (
        r"$\varepsilon_l$ = 78.5 kept: not reproduced" in c["reason"] and "ε_l" not in c["reason"]
    )
    rows, _ = readings(c)
    assert [r["reading"] for r in rows] == list(c["ours"])


def test_glued_text_with_math_is_markdown():
    from gspa.book.results import _Text

    assert (
        _Text(r"at $\varepsilon_l$ = 1", markdown=True)._repr_markdown_()
        == r"at $\varepsilon_l$ = 1"
    )
    assert _Text("at ε = 1", markdown=True)._repr_markdown_() == "at ε = 1"
    assert _Text("0.5")._repr_markdown_() is None  # {glue} pastes it as plain text
