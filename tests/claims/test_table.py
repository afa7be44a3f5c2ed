"""Claims as data: a study's table declares each claim once; a chapter records it by id with its values."""

import pytest

from gspa.book.results import Chapter
from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare
from gspa.claims.table import Claim, table

DOMAIN = ClaimDomain((Param("eps0", 0.1, 1.0, stated="ε₀ ∈ [0.1, 1]"),), "a test domain")
CLAIMS = table(
    {
        "x-equals-one": Claim(
            "x = 1",
            "Lemma 0",
            "numerical",
            Close(rel_tol=1e-9),
            paper=1.0,
            domain=ClaimDomain.point("one value"),
        ),
        "y-small": Claim(
            "y ≤ 2", "eq. (0)", "false-statement", Compare("<=", 2.0, what="y"), domain=DOMAIN
        ),
    }
)


def test_a_declared_claim_is_judged_with_its_declared_rule_and_texts():
    ch = Chapter("gspa/test", claims=CLAIMS)
    ch.claim("x-equals-one", ours=1.0 + 1e-12)
    ch.claim("y-small", ours=3.0, ours_text="y = 3")
    x, y = ch.claims
    assert (x["statement"], x["where"], x["paper"], x["verdict"]) == (
        "x = 1",
        "Lemma 0",
        1.0,
        "reproduced",
    )
    assert (
        y["verdict"] == "not reproduced"
        and y["ours_text"] == "y = 3"
        and y["domain"]["stated"] == "a test domain"
    )


def test_a_chapter_may_override_the_paper_value_and_note():
    ch = Chapter("gspa/test", claims=CLAIMS)
    ch.claim("x-equals-one", ours=2.0, paper=2.0, note="at this chapter's inputs")
    assert (
        ch.claims[0]["verdict"] == "reproduced"
        and ch.claims[0]["note"] == "at this chapter's inputs"
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda ch: ch.claim("z-unknown", ours=1.0), "not declared"),
        (
            lambda ch: ch.claim("x-equals-one", "restated", ours=1.0),
            "declared in the study's table",
        ),
        (
            lambda ch: ch.claim("x-equals-one", ours=1.0, kind="misprint"),
            "declared in the study's table",
        ),
        (lambda ch: ch.claim("x-equals-one", ours=1.0, colour="red"), "unknown field"),
    ],
)
def test_a_chapter_cannot_restate_or_invent_a_declared_claim(call, message):
    with pytest.raises(ValueError, match=message):
        call(Chapter("gspa/test", claims=CLAIMS))


def test_a_chapter_without_a_table_states_every_field():
    ch = Chapter("gspa/test")
    ch.claim("free", "s", "Lemma 0", 1.0, Close(rel_tol=1e-9), 1.0, kind="numerical")
    assert ch.claims[0]["verdict"] == "holds where checked"
    with pytest.raises(ValueError, match="no claims table"):
        ch.declaration("free")


@pytest.mark.parametrize(
    "claims, message",
    [
        ({"bad id": Claim("s", "w", "numerical", Close(rel_tol=1e-9))}, "ids are"),
        ({"": Claim("s", "w", "numerical", Close(rel_tol=1e-9))}, "ids are"),
        ({"ok": ("s", "w")}, "must be a gspa.claims.table.Claim"),
    ],
)
def test_a_malformed_table_is_refused(claims, message):
    with pytest.raises(ValueError, match=message):
        table(claims)


def test_an_id_declared_in_two_sections_is_refused():
    c = Claim("s", "w", "numerical", Close(rel_tol=1e-9))
    with pytest.raises(ValueError, match="declared twice"):
        table({"a": c}, {"a": c})


def test_a_malformed_declaration_is_refused():
    with pytest.raises(ValueError):
        Claim("s", "w", "typo", Close(rel_tol=1e-9))
    with pytest.raises(ValueError, match="rule"):
        Claim("s", "w", "numerical", "close")


@pytest.mark.parametrize("study", ["gspa", "flame", "fmt21", "accountant"])
def test_every_study_table_is_well_formed(study):
    import importlib

    claims = importlib.import_module(f"gspa.studies.{study}.claims").all_claims()
    assert all(isinstance(c, Claim) for c in claims.values())


def test_a_claim_that_follows_from_another_names_it_and_says_why():
    import pytest

    from gspa.claims.rules import Holds
    from gspa.claims.table import Claim

    ok = Claim("s", "w", "numerical", Holds("x"), follows_from="gspa.a", because="a special case")
    assert "follows_from" not in ok.fields()  # the ledger reads it, not the chapter's record
    for bad in (dict(follows_from="gspa.a"), dict(follows_from="a", because="why")):
        with pytest.raises(ValueError, match="follows_from"):
            Claim("s", "w", "numerical", Holds("x"), **bad)
