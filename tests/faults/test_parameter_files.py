"""Parameters of a chapter: ``1e-3`` inside a list is a number (``-p`` and profile files), a key given
twice in a profile file or a ``-p`` name given twice is refused naming the file and line or the option;
nothing runs and no result is touched."""

import json

from gspa.book import freshness as F
from gspa.book import pipeline as P
from tinyrepo import cli


def test_scientific_notation_in_a_list_is_a_number(tiny, monkeypatch, capsys):
    assert P._overrides([("xs", "[0.5, 1e-3]")]) == {"xs": [0.5, 1e-3]}
    (tiny / "params" / "smoke" / "c.yaml").write_text("x: 2\nxs: [1e-1, 2E-1]\n")
    P.checked_parameters(tiny, "c", "smoke", {})
    code, out, err = cli(
        tiny, monkeypatch, capsys, "run", "c", "--profile", "smoke", "-p", "xs", "[0.5, 1e-3]"
    )
    assert code == 0, err
    rec = json.loads(F.result_path(tiny, "c").read_text())
    assert rec["parameters"]["xs"]["value"] == [0.5, 1e-3]


def test_a_key_given_twice_in_a_profile_file_is_refused(tiny, monkeypatch, capsys):
    (tiny / "params" / "smoke" / "c.yaml").write_text("x: 2\nxs: [0.5]\nx: 3\n")
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "--profile", "smoke")
    assert (
        code == 2
        and "params/smoke/c.yaml, line 3: parameter 'x' is given twice (first on line 1)" in err
    ), err
    assert not F.result_path(tiny, "c").exists()


def test_a_parameter_given_twice_with_p_is_refused(tiny, monkeypatch, capsys):
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "x", "1", "-p", "x", "2")
    assert code == 2 and "-p: parameter 'x' is given twice" in err, err
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "xs", "{a: 1, a: 2}")
    assert code == 2 and "gives a key twice (line 1: key 'a' is given twice" in err, err
    assert not F.result_path(tiny, "c").exists()
