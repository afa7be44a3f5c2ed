"""The computations of the FLAME blanket chapter (gspa.studies.flame.blanket_checks), each against an
independent statement of what it must give: closed forms of the paper and of BBGN19, the definitions of the
ratios, and hand-made rows."""

import math

import pytest

from gspa.privacy.peers import blanket as B
from gspa.studies.flame import blanket_checks as C
from gspa.studies.flame import domains
from gspa.studies.flame.claims import blanket as claims


def test_ldp_levels_single_out_the_header_reading():
    rows, is_ldp = C.ldp_levels(1.0, [2, 5])
    assert is_ldp == {"BBGN19": False, "header": True, "printed": False}
    for r in rows:
        if r["reading"] == "BBGN19":  # γ for b symbols spread over b + 1 (the chapter's text)
            b = r["b"]
            assert r["exact LDP level"] == pytest.approx(math.log(1 + (b + 1) * (math.e - 1) / b))
        elif r["reading"] == "printed":
            assert r["exact LDP level"] == math.inf
        else:
            assert r["exact LDP level"] == pytest.approx(1.0, rel=1e-12)
    assert len(rows) == 2 * len(B.READINGS)


def test_eq1_simulation_bias_as_the_text_derives_it():
    out = C.eq1_simulation(1.0, 4, 30, 400, seed=3)
    assert out["bias"]["BBGN19"] < 1e-9  # unbiased under BBGN19's domains only
    assert out["bias"]["printed"] > 1e-3
    g = B.blanket_gamma(1.0, 4)
    assert out["printed_bias"] == pytest.approx(30 * g / (2 * 4 * (1 - g)), rel=1e-9)
    assert all(abs(r["z-score (sim vs exact)"]) < 6 for r in out["rows"])
    printed = next(r for r in out["rows"] if r["reading"] == "printed")  # in sd of z
    assert out["bias"]["printed"] == pytest.approx(out["printed_bias"] / printed["exact sd"])
    again = C.eq1_simulation(1.0, 4, 30, 400, seed=3)  # seeded: the same runs
    assert again["rows"][0]["simulated mean"] == out["rows"][0]["simulated mean"]


def test_eq1_simulation_skips_the_header_reading_for_one_symbol():
    out = C.eq1_simulation(1.0, 1, 10, 50, seed=0)
    assert "header" not in out["bias"] and len(out["rows"]) == 2


def test_enumeration_check_certified_never_below_the_protocol():
    rows = C.enumeration_check(1.0, 2, 3)
    assert [r["reading"] for r in rows] == [C.READING_NAMES[r] for r in B.READINGS]
    for r in rows:
        assert r["largest shortfall"] <= 1e-12
        assert r["median ratio"] >= 1 - 1e-9 and r["largest ratio"] >= r["median ratio"]


def test_bound_grid_and_summary():
    grid = C.bound_grid([0.5, 2.0], [2], [1000], [1e-6])
    assert [(r["eps_l"], r["valid"]) for r in grid] == [(0.5, True), (2.0, False)]
    for r in grid:
        assert r["lemma1"] == B.lemma1_epsilon(r["delta"], r["eps_l"], 2, 1000)[0]
        assert r["bennett_fixed"] == B.balle_blanket_epsilon(
            1e-6, r["eps_l"], 2, 1000, version="bbgn19"
        )
    s = C.lemma1_summary(grid)
    v = grid[0]
    assert (s["points"], s["valid"]) == (2, 1)
    assert s["lemma1_over_certified"] == {
        "header": v["lemma1"] / v["header"],
        "BBGN19": v["lemma1"] / v["balle"],
    }
    assert s["tighter"]["FLAME's code"] == v["bennett"] / v["lemma1"]
    lo, hi = s["bennett_vs_header"]
    assert (lo, hi) == tuple(sorted(r["bennett"] / r["header"] for r in grid))


def test_lemma1_summary_on_hand_made_rows():
    row = dict(lemma1=2.0, valid=True, header=1.0, balle=0.5, bennett=0.5, bennett_fixed=1.5)
    other = dict(row, valid=False, header=4.0)
    s = C.lemma1_summary([row, other])
    assert s["lemma1_over_certified"] == {"header": 2.0, "BBGN19": 4.0}
    assert s["lemma1_over_header"] == (2.0, 2.0)  # the invalid row is left out
    assert s["tighter"] == {"BBGN19's corrected code": 0.75, "FLAME's code": 0.25}
    assert s["bennett_vs_header"] == (0.125, 0.5) and s["bennett_fixed_vs_header"] == (0.375, 1.5)
    with pytest.raises(ValueError, match="Lemma 1's condition"):
        C.lemma1_summary([other])


def test_bennett_against_lower_keeps_binary_rows_and_divides():
    rows = [
        dict(eps_l=1.0, b=2, n=200, delta=1e-6, bennett=0.3, bennett_fixed=0.4, header=0.5),
        dict(eps_l=1.0, b=3, n=200, delta=1e-6, bennett=0.3, bennett_fixed=0.4, header=0.5),
    ]
    (r,) = C.bennett_against_lower(rows)
    assert r["lower"] > 0 and r["bennett / lower"] == 0.3 / r["lower"]
    assert r["corrected / lower"] == 0.4 / r["lower"]
    with pytest.raises(ValueError, match="b_values must contain 2"):
        C.bennett_against_lower(rows[1:])


def test_corollary1_constants_and_along():
    row = dict(eps_l=0.5, b=2, n=1000, delta=1e-6, header=0.2)
    (r,) = C.corollary1_constants([row])
    rate, ok = B.corollary1_shape(1e-6, 0.5, 1000)
    assert r["certified / rate"] == 0.2 / rate and r["condition"] == ok
    along = C.corollary1_along([0.5], [1e-6], [1000, 10000])
    assert along["n_top"] == 10000
    assert along["tails"] == {(0.5, 1e-6): domains.cor1_tail_slope(0.5, 1e-6, 10000)}
    assert along["rows"][0]["n = 1,000"] == domains.cor1_ratio(0.5, 1000, 1e-6)[0]


def test_laplace_blanket_mass_and_clone_probability():
    for r in C.laplace_blanket([0.5, 2.0]):
        assert r["blanket mass"] == pytest.approx(r["e^(-eps_l/2)"], rel=1e-6)  # FLAME's γ
        assert r["clone probability 2p"] == pytest.approx(r["2/(1+e^eps_l)"], rel=1e-6)
        assert r["clone probability 2p"] < r["blanket mass"]


def test_numerical_tighter_worst_margin_is_the_worse_version():
    args = (0.5, 1000, 1e-6)
    both = [domains.numerical_tighter_margin(*args, v) for v in ("bbgn19", "flame")]
    assert C.numerical_tighter_worst_margin(*args) == min(both)


def test_the_chapter_claims_are_declared_with_their_domains():
    assert all(c.domain is not None for c in claims.BLANKET.values())
    names = {p.name for p in claims.BLANKET_LEMMA1_REGION.params}
    assert names == {p.name for p in claims.CLAIMS["flame-lemma1"].domain.params}
