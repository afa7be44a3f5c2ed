"""Stated domains, the worst-case search and the verdict over the domain (gspa.claims.domain, claims.over_domain),
and the front page's and errata's expected verdicts (ledger.render_template, render_errata)."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from gspa.claims.rules import Verdict, over_domain
from gspa.claims.domain import ClaimDomain, Param, worst_case
from gspa.book.ledger import ExpectationError, render_errata, render_template

D = ClaimDomain(
    (Param("eps", 1e-3, 10.0, "log", stated="εᵢ > 0"), Param("n", 2, 10**6, "int", stated="n ≥ 2")),
    "for all budgets and n (Theorem X)",
)
OK = Verdict("reproduced", "holds on the grid")


def test_search_finds_a_violation_off_the_grid_and_is_reproducible():
    """A claim that fails only in a narrow corner (large eps, small n), which a 3 x 3 grid would miss."""

    def margin(eps, n):
        return 1.0 if not (eps > 7.0 and n < 6) else -0.5

    a, b = worst_case(margin, D, budget=150, seed=3), worst_case(margin, D, budget=150, seed=3)
    assert a.as_dict() == b.as_dict()  # reproducible
    assert a.margin == -0.5 and a.violations > 0 and a.evaluations <= 150
    assert a.worst["eps"] > 7.0 and a.worst["n"] < 6 and isinstance(a.worst["n"], int)
    bad = a.violating()
    assert len(bad) == a.violations and bad[0] == a.worst  # worst first
    assert all(p["eps"] > 7.0 and p["n"] < 6 for p in bad)
    assert a.violating(lambda p: p["n"] > 10) == []  # none where the filter refuses


def test_refinement_approaches_an_interior_minimum():
    def margin(eps, n):
        return (math.log(eps) - math.log(0.37)) ** 2 + (math.log(n) - math.log(300)) ** 2

    s = worst_case(margin, D, budget=300, seed=0)
    assert s.margin < 0.05 and s.violations == 0
    assert abs(math.log(s.worst["eps"] / 0.37)) < 0.3


@settings(max_examples=40, deadline=None)
@given(budget=st.integers(1, 80), seed=st.integers(0, 2**31))
def test_search_respects_the_budget_and_the_ranges(budget, seed):
    s = worst_case(lambda eps, n: eps - 1.0, D, budget=budget, seed=seed)
    assert 1 <= s.evaluations <= budget
    assert 1e-3 <= s.worst["eps"] <= 10.0 and 2 <= s.worst["n"] <= 10**6


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="budget"):
        worst_case(lambda eps, n: 1.0, D, budget=0)
    with pytest.raises(ValueError, match="NaN"):
        worst_case(lambda eps, n: float("nan"), D, budget=5)
    with pytest.raises(ValueError, match="low > 0"):
        Param("eps", 0.0, 1.0, "log")
    with pytest.raises(ValueError, match="finite"):
        Param("eps", 1.0, math.inf, "log")
    with pytest.raises(ValueError, match="stated"):
        ClaimDomain((Param("eps", 1.0, 2.0),), "")


def test_verdict_over_the_domain():
    full = worst_case(lambda eps, n: 1.0, D, budget=20)
    assert over_domain(OK, D, full).status == "reproduced"
    part = worst_case(
        lambda eps, n: 1.0,
        D,
        budget=20,
        region=ClaimDomain((Param("eps", 0.1, 1.0), Param("n", 10, 100, "int")), "part"),
    )
    # no violation where checked, the rest neither searched nor proved: its own verdict, never 'conditional'
    v = over_domain(OK, D, part)
    assert (
        not part.covers
        and v.status == "holds where checked"
        and "neither searched nor proved" in v.reason
    )
    v = over_domain(OK, D, None)  # not searched
    assert v.status == "holds where checked" and "checked on the chapter's inputs only" in v.reason
    v = over_domain(OK, None)  # domain not stated
    assert v.status == "holds where checked" and "checked on the chapter's inputs only" in v.reason
    assert over_domain(OK, ClaimDomain.point("Table 2, first row")).status == "reproduced"
    bad = worst_case(lambda eps, n: eps - 1.0, D, budget=40)
    with pytest.raises(ValueError, match="must re-verify"):  # nobody re-verified it
        over_domain(OK, D, bad)
    with pytest.raises(ValueError, match="disagree"):  # re-verification refutes it
        over_domain(OK, D, bad, confirmed=False)
    # a confirmed counterexample makes the statement false however many points hold; the reason says where
    mostly = worst_case(lambda eps, n: 5.0 - eps, D, budget=40)
    v = over_domain(OK, D, mostly, confirmed=True)
    assert 0 < mostly.violations < mostly.evaluations / 2
    assert v.status == "not reproduced" and "holds at every searched point with ε ≤" in v.reason
    assert "the first violation at ε = " in v.reason
    assert (
        "holds at every searched point with ε ≥" in over_domain(OK, D, bad, confirmed=True).reason
    )
    never = worst_case(lambda eps, n: -1.0, D, budget=10)
    v = over_domain(OK, D, never, confirmed=True)
    assert v.status == "not reproduced" and "no searched point holds" in v.reason
    assert (
        over_domain(Verdict("not reproduced", "x"), D, full).status == "not reproduced"
    )  # never raised
    v = over_domain(Verdict("conditional", "a: reproduced (x); b: not reproduced (y)"), D, None)
    assert (
        v.status == "conditional" and "checked on the chapter's inputs only" in v.reason
    )  # readings, unsearched
    # a proof extends a partial search that found nothing; it never overrides a violation or a failing rule
    v = over_domain(OK, D, part, proof="by symmetry")
    assert v.status == "reproduced" and "by the proof given in the chapter" in v.reason
    assert "proved: the rest of the stated domain" in v.reason
    # a proof over a search that covers the domain: the verdict says proved, the search is its check
    v = over_domain(OK, D, full, proof="by symmetry")
    assert v.status == "reproduced" and "proved: the stated domain" in v.reason
    assert "no violation where computed" in v.reason
    assert "proved" not in over_domain(OK, D, full).reason  # without a proof: a search, not a proof
    assert over_domain(Verdict("differs", "x"), D, part, proof="by symmetry").status == "differs"
    with pytest.raises(ValueError, match="the proof or the computation is wrong"):
        over_domain(OK, D, bad, confirmed=True, proof="by symmetry")
    with pytest.raises(ValueError, match="proof must be"):
        over_domain(OK, D, part, proof="  ")


def test_holding_part_is_free_of_violations_and_names_the_largest_side():
    """The part named as holding contains no violating point, for any threshold claim and either side."""
    for cut, side in ((3.0, "≤"), (0.01, "≥")):
        s = worst_case(
            lambda eps, n: (cut - eps) if side == "≤" else (eps - cut), D, budget=60, seed=1
        )
        text = s.holding_text()
        assert f"ε {side}" in text, text
        bound = float(text.split(f"ε {side} ")[1].split(" ")[0])
        held = [
            pt for pt, m in s.points if (pt["eps"] <= bound if side == "≤" else pt["eps"] >= bound)
        ]
        assert held and all(m >= 0 for pt, m in s.points if pt in held)
    # violations spread over every range of every parameter: no part is named, and it says so
    s = worst_case(lambda eps, n: -1.0 if (n % 2) else 1.0, D, budget=60, seed=2)
    if s.violations and s.violations < s.evaluations:
        assert (
            "every range of one parameter contains a failure" in s.holding_text()
            or "holds at every" in s.holding_text()
        )


def test_holding_part_through_a_derived_quantity():
    """A claim that fails where the larger of two budgets is large: no single parameter separates it, the
    derived maximum does."""
    two = ClaimDomain((Param("a", 0.1, 10.0), Param("b", 0.1, 10.0)), "any two budgets")
    s = worst_case(lambda a, b: 3 - max(a, b), two, budget=60)
    assert "every range of one parameter contains a failure" in s.holding_text()
    s = worst_case(
        lambda a, b: 3 - max(a, b), two, budget=60, derived={"max(a, b)": lambda a, b: max(a, b)}
    )
    assert "holds at every searched point with max(a, b) ≤" in s.holding_text()
    bound = float(s.holding_text().split("max(a, b) ≤ ")[1].split(" ")[0])
    assert bound < 3 and all(m >= 0 for pt, m in s.points if max(pt.values()) <= bound)


def test_a_numerical_quantified_statement_shown_false_is_a_false_statement():
    from gspa.claims.rules import finding_kind

    assert finding_kind("numerical", "not reproduced", D) == "false-statement"
    assert (
        finding_kind("numerical", "not reproduced", ClaimDomain.point("a table entry"))
        == "numerical"
    )
    assert finding_kind("numerical", "not reproduced", None) == "numerical"
    assert finding_kind("misprint", "not reproduced", D) == "misprint"
    assert finding_kind("numerical", "reproduced", D) == "numerical"
    assert (
        finding_kind("false-statement", "holds where checked", D) == "numerical"
    )  # nothing shown false
    assert finding_kind("false-statement", "conditional", D) == "false-statement"
    with pytest.raises(ValueError, match="kind"):
        finding_kind("typo", "reproduced", D)


def test_only_readings_make_a_claim_conditional():
    from gspa.claims.rules import Close, Compare, Readings, Rule
    from gspa.book.results import Chapter

    class Sloppy(Rule):  # a rule that would say 'conditional' for a plain value
        def describe(self):
            return "sloppy"

        def judge(self, ours, paper=None):
            return Verdict("conditional", "holds in part")

    ch = Chapter("t")
    with pytest.raises(ValueError, match="only a Readings rule"):
        ch.claim("x", "s", "w", 1.0, Sloppy(), kind="numerical")
    ch.claim(
        "y",
        "s",
        "w",
        {"a": 1.0, "b": 5.0},
        Readings(Close(abs_tol=0.1), what="reading"),
        1.0,
        kind="numerical",
    )
    assert ch.claims[0]["verdict"] == "conditional"
    bad = worst_case(lambda eps, n: eps - 1.0, D, budget=40)
    ch.claim(
        "z",
        "s",
        "w",
        0.0,
        Compare("<=", 1.0),
        kind="numerical",
        domain=D,
        search=bad,
        confirmed=True,
    )
    assert ch.claims[1]["verdict"] == "not reproduced" and ch.claims[1]["kind"] == "false-statement"


def _rec(verdict, profile="paper", overrides=None):
    claim = {"id": "gspa.c1", "verdict": verdict, "kind": "numerical"}
    return [
        {
            "chapter": "gspa/x",
            "profile": profile,
            "overrides": overrides or {},
            "claims": [claim],
            "values": {},
        }
    ]


BUILD = {"version": "0", "commit": "c", "date": "d"}


def test_front_page_states_and_enforces_its_verdicts():
    page = "# Front\n\nThe paper holds ({{claim:gspa.c1=reproduced}}).\n"
    assert "reproduced</a>" in render_template(page, _rec("reproduced"), BUILD)
    with pytest.raises(ExpectationError, match="gspa.c1 came out conditional"):
        render_template(page, _rec("conditional"), BUILD)  # paper settings: fails
    smoke = render_template(page, _rec("conditional", "smoke"), BUILD)
    assert "{warning}" in smoke and "≠ text" in smoke  # other settings: warns
    with pytest.raises(ValueError, match="must state the verdict"):
        render_template("{{claim:gspa.c1}}", _rec("reproduced"), BUILD)


def test_errata_enforce_their_verdicts_with_the_papers_settings():
    tpl = "# E\n\n<!-- verdicts: gspa.c1 = not reproduced -->\n"
    with pytest.raises(ExpectationError):
        render_errata(tpl, _rec("reproduced"))
    assert "{warning}" in render_errata(tpl, _rec("reproduced", "paper", {"x": 1}))
    assert "{warning}" not in render_errata(tpl, _rec("not reproduced"))


def test_parameters_show_as_their_symbols():
    """A searched region and a worst case name the parameters by their symbols (typeset), not by the
    margin function's argument names (eps_l, n_p would show as plain-text subscripts)."""
    from gspa.claims.domain import _symbol

    shown = {
        "eps": "ε",
        "eps0": "ε₀",
        "delta0": "δ₀",
        "eps_l": r"$\varepsilon_l$",
        "n_p": "$n_p$",
        "delta_cd": r"$\delta_{cd}$",
        "eps_max": r"$\varepsilon_{\max}$",
        "eps_lo": r"$\varepsilon_{\mathrm{lo}}$",
        "delta_prime": "δ′",
        "n": "n",
        "seed": "seed",
        "n_share": "n_share",
        "ratio_m": "ratio_m",
        "eps_cd_frac": "eps_cd_frac",
    }
    assert {k: _symbol(k) for k in shown} == shown
    d = ClaimDomain((Param("eps_l", 0.1, 1.0), Param("n_p", 2, 10, scale="int")), "stated")
    s = worst_case(lambda eps_l, n_p: eps_l, d, budget=10)
    assert s.region.describe().startswith(
        r"$\varepsilon_l$ ∈ [0.1, 1] (log scale); $n_p$ ∈ [2, 10]"
    )
    assert s.worst_text().startswith(r"margin 0.1 at $\varepsilon_l$ = 0.1, $n_p$ = ")


def _bound(text, symbol, side):
    return float(text.split(f"{symbol} {side} ")[1].split(" ")[0])


def test_the_holding_region_leaves_out_the_chapters_own_counterexamples():
    """A claim the search sees failing only above ε = 3, while the chapter knows it fails at ε = 1.5
    too (an off-grid case the search cannot find): the region named stops below 1.5 and says why, where
    the search alone would name ε ≤ 2.9 or so, which contains the counterexample."""

    def margin(eps, n):
        return (
            3.0 - eps
        )  # the search's view; the failure at 1.5 sits off every point it can evaluate

    s = worst_case(margin, D, budget=80, seed=1)
    assert _bound(s.holding_text(), "ε", "≤") > 1.5  # what the search alone would name
    t = s.with_failures([{"eps": 1.5, "n": 40}], "the off-grid case")
    text = t.holding_text()
    bound = _bound(text, "ε", "≤")
    assert bound < 1.5, text
    assert "the first violation at ε = 1.5 (the off-grid case)" in text
    assert "it excludes" not in text  # the edge names the failure already
    assert all(m >= 0 for pt, m in t.points if pt["eps"] <= bound)
    # the search itself is unchanged: same points, violations and record
    assert (t.evaluations, t.violations, t.as_dict()) == (s.evaluations, s.violations, s.as_dict())
    # on the other side too: a failure above every point that holds leaves a region "≥" above it
    s = worst_case(lambda eps, n: eps - 0.01, D, budget=80, seed=1)
    text = s.with_failures(
        [{"eps": 5.0, "n": 10}, {"eps": 0.5, "n": 3}], "its table"
    ).holding_text()
    assert "ε ≥" in text and _bound(text, "ε", "≥") > 5.0, text
    assert "the last violation at ε = 5 (its table)" in text
    text = (
        s.with_failures([{"eps": 0.5, "n": 3}], "its grid")
        .with_failures([{"eps": 5.0, "n": 3}], "its table")
        .holding_text()
    )
    assert (
        "; it excludes the 2 failing points the chapter found beyond the search (its grid, its table)"
        in text
    )


def test_failures_given_by_a_derived_quantity_and_no_simple_region():
    two = ClaimDomain((Param("a", 0.1, 10.0), Param("b", 0.1, 10.0)), "any two budgets")
    big = {"max(a, b)": lambda a, b: max(a, b)}
    s = worst_case(lambda a, b: 3 - max(a, b), two, budget=60, derived=big)
    assert _bound(s.holding_text(), "max(a, b)", "≤") > 1.0
    # a failure given by its derived value alone, and one by its parameters (derived from them)
    t = s.with_failures([{"max(a, b)": 1.0}], "the grid").with_failures(
        [{"a": 0.5, "b": 0.2}], "a case"
    )
    text = t.holding_text()
    assert _bound(text, "max(a, b)", "≤") < 0.5, text
    assert (
        "the first violation at max(a, b) = 0.5 (a case)" in text and "(the grid, a case)" in text
    )
    # failures at both ends of every side: no region, and the chapter's failures are named
    u = s.with_failures([{"a": 0.1, "b": 0.1}, {"a": 10.0, "b": 10.0}], "the corners")
    text = u.holding_text()
    assert text.startswith("no simple region: it holds at"), text
    assert "it also fails at a = 0.1, b = 0.1 (the corners); a = 10, b = 10 (the corners)" in text


def test_with_failures_refuses_what_is_not_a_failing_point():
    s = worst_case(lambda eps, n: 3.0 - eps, D, budget=20)
    for points, where, match in (
        ([{"eps": 1.0, "n": 4}], " ", "where must say"),
        ({"eps": 1.0, "n": 4}, "x", "list of parameter dicts"),
        ([1.0], "x", "must be a dict"),
        ([{"eps": 1.0}], "x", "must give eps, n"),
    ):
        with pytest.raises(ValueError, match=match):
            s.with_failures(points, where)
    assert s.with_failures([], "nothing").holding_text() == s.holding_text()
