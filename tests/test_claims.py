import math

import pytest

from gspa.claims import Close, Compare, Holds, NotCheckable, Verdict


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
