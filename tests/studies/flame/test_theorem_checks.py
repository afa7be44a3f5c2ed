"""The computations of the FLAME theorems chapter (gspa.studies.flame.theorem_checks), each against an
independent statement of what it must give: the paper's formulas evaluated directly, hand-made rows with
known exponents, and the definitions of the ratios the chapter reports."""

import math

import numpy as np
import pytest

from gspa.privacy.shuffle.composition import advanced, basic
from gspa.studies.flame import analysis
from gspa.studies.flame.claims import figure3, theorems as claims
from gspa.studies.flame import theorem_checks as T


def test_theorem1_table_bounds_the_exact_composition():
    rows = T.theorem1_table([0.5], [2, 5], 200, 1e-6)
    assert [r["d"] for r in rows] == [2, 5]
    for r in rows:
        thm, _ = analysis.compose_dims(r["ε_cd at δ_c/(d+1)"], 1e-6 / (r["d"] + 1), r["d"])
        assert r["Theorem 1 ε_c"] == thm
        assert r["exact / Theorem 1"] == r["exact composition ε_c"] / thm <= 1.0
        assert r["ε_l/ε_c (exact)"] == r["d"] * 0.5 / r["exact composition ε_c"]


def test_corollary2_slopes_on_rows_with_known_exponents():
    ds = [10, 100, 1000]
    rows = [
        {
            "ε_ld": e,
            "d": d,
            "Theorem 1 ε_c": e * d,
            "exact composition ε_c": e * d**0.5,
            "ε_l/ε_c (exact)": d * e / (e * d**0.5),
        }
        for e in (0.1, 0.2)
        for d in ds
    ]
    out = T.corollary2_slopes(rows, 1e-6)
    x = np.array(ds, float)
    assert out["shape"] == pytest.approx(analysis.loglog_slope(x, np.sqrt(x) * np.log(x / 1e-6)))
    assert out["fits"] == pytest.approx({0.1: 0.5, 0.2: 0.5})
    assert out["fits_t1"] == pytest.approx({0.1: 1.0, 0.2: 1.0})
    assert out["ratio"] == pytest.approx({0.1: 0.5, 0.2: 0.5})
    assert out["gap"] == pytest.approx(0.5 - out["shape"])


def test_theorem2_table_eq4_and_its_exact_check():
    (r,) = T.theorem2_table([[400, 800]], [1.0], 1e-4)
    e1, ecd, ok = analysis.theorem2(1.0, 400, 0.5, 1e-4)
    assert (r["β"], r["eq. (4) ε_cd"], r["Lemma 1 condition"]) == (0.5, ecd, ok)
    true = analysis.subsampled_rr_delta_equal_bits(400, 0.5, 1.0, ecd)
    assert r["eq. (4): δ(ε_cd)/δ_cd"] == true / 1e-4
    assert r["exact ε at δ_cd"] <= r["eq. (4) ε_cd"]


def test_theorem3_table_holds_on_a_small_instance():
    rows = T.theorem3_table([200], [0.1, 0.5], [1.0], 1e-4)
    assert [r["β"] for r in rows] == [0.1, 0.5]
    for r in rows:
        assert r["exact ε_ck, eq. (6): δ(ε_cd)/δ_cd"] <= 1.0 + 1e-9
        assert r["eq. (5) ε_ck"] == analysis.theorem2(1.0, 200, r["β"], 1e-4)[0]


def test_proposition1_table_is_seeded_and_fits_the_rows():
    a = T.proposition1_table(20, [16, 32, 64], 1.0, 1e-3, 1.0, 200, 5)
    b = T.proposition1_table(20, [16, 32, 64], 1.0, 1e-3, 1.0, 200, 5)
    assert a["fit_ck"] == b["fit_ck"] and a["fit_lk"] == b["fit_lk"]
    n_ps = [r["n_p"] for r in a["rows"]]
    assert n_ps == [320, 640, 1280]
    assert [r["n_p/n_s"] for r in a["rows"]] == [16, 32, 64]
    stds = [r["std, ε_lk fixed"] for r in a["rows"]]
    assert a["fit_lk"] == analysis.loglog_slope(n_ps, stds)


def test_lemmas23_table_states_the_lemmas():
    out = T.lemmas23_table(1.0, 100, [2, 5], 1e-6)
    for r in out["rows"]:
        assert r["Lemma 2 (δ = 0): Tε"] == basic(1.0, 0.0, r["T"])[0] == r["T"] * 1.0
        assert r["Lemma 3 (ε, δ): ε"] == advanced(out["e_run"], 1e-6, r["T"], 1e-6)[0]
    worst = max(r["exact ε at Tδ"] / r["Lemma 2 (ε, δ): Tε"] for r in out["rows"])
    assert out["lemma2"]["(ε, δ) form"] == worst <= 1.0
    assert max(out["lemma3"].values()) <= 1.0


def test_lemma4_table_ratio():
    (r,) = T.lemma4_table([[50, 500]], 1.0, 1e-6)
    assert r["Lemma 4 ε"] == pytest.approx(math.log1p(0.1 * math.expm1(r["ε on m records"])))
    assert r["Lemma 4 δ"] == pytest.approx(0.1 * 1e-6)
    assert r["exact / Lemma 4 δ"] == r["exact δ at Lemma 4's ε"] / r["Lemma 4 δ"] <= 1.0


def test_corollary3_table_fits_and_excess():
    out = T.corollary3_table([1000, 10000], [3000, 30000], 0.5, 0.02, 1e-6)
    rows = out["rows"]
    assert len(rows) == 4 and all(r["ε_ck ≤ 1"] for r in rows)
    eps_c = [r["Theorem 4 ε_c"] for r in rows if r["d"] == 1000]
    assert out["fit_np"][1000] == analysis.loglog_slope([3000, 30000], eps_c)
    excess = max(
        max(v + 0.5 for v in out["fit_np"].values()),
        max(v - out["shape_d"] for v in out["fit_d"].values()),
    )
    assert out["excess"] == excess
    assert out["excess"] >= max(out["fit_np"].values()) + 0.5  # eq. (7)'s exponent in n_p: −1/2
    assert out["last"] == list(out["fit_np"].values())  # two n_p: the last pair is the whole fit
    with pytest.raises(ValueError, match="Lemma 1's condition"):
        T.corollary3_table([1000, 10000], [2, 3], 0.5, 0.02, 1e-6)


def test_figure3_search_finds_the_paper_ratio_where_it_crosses():
    xs = np.geomspace(1e-3, 3.0, 20)
    out = T.figure3_search(xs, 7850, [10000, 60000], [1e-6], 0.02, 2.55, 137.36)
    assert set(out["curves"]) == {(10000, 1e-6), (60000, 1e-6)}
    found = 0
    for row in out["rows"]:
        x = row["ε per dim. where simple = ×2.55"]
        if not math.isnan(x):
            found += 1
            args = (7850, row["n"], row["n"] // 3, 0.02, 1e-6)
            assert analysis.fig3_ratios([x], *args)["simple"][0] == pytest.approx(2.55, rel=1e-6)
    assert found >= 1


def test_figure3_printed_rows_and_reverification():
    eps = [0.3, 0.5]
    simple, double = np.array([0.9, 0.9]), np.array([2.0, 3.0])  # proven ε_c above dε
    out = T.figure3_printed(eps, simple, double, 100, 200, 60, 0.1, 1e-6)
    for e, s, dbl, r in zip(eps, simple, double, out["rows"]):
        assert r["SS-Simple: proven ε_c"] == 100 * e / s
        assert r["SS-Double: proven ε_c"] == 10 * e / dbl
        assert r["SS-Simple as printed: ε_c ≥"] >= 0
    bad = [r for r in out["rows"] if r["SS-Simple: proven ε_c"] < r["SS-Simple as printed: ε_c ≥"]]
    assert (out["delta_mp"] is None) == (not bad)


def test_the_permutation_region_searches_the_stated_domains_parameters():
    region = {p.name for p in claims.THEOREMS_PERM_REGION.params}
    assert region == {p.name for p in claims.THEOREMS_PERM_DOMAIN.params}
    # Figure 3's recomputation is judged at the chapter's settings
    assert figure3.CLAIMS["flame-fig3-proven-simple-larger"].domain is None
