"""gspa.util.yamlread: scientific notation is a number (also in a list), integers stay integers, a key
given twice is refused with its line, and tags that build Python objects stay refused."""

import pytest
import yaml

from gspa.util import yamlread as Y


@pytest.mark.parametrize(
    "text, value",
    [
        ("[0.5, 1e-3]", [0.5, 1e-3]),
        ("1e-3", 1e-3),
        ("1E5", 1e5),
        ("1.0e5", 1e5),
        ("-2e+3", -2e3),
        (".5e1", 5.0),
        ("5", 5),
        ("-3", -3),
        ("1_000", 1000),
        ("0.25", 0.25),
        (".inf", float("inf")),
        ("x: [1e-6, 2]\ny: 1e6\n", {"x": [1e-6, 2], "y": 1e6}),
        ("1e", "1e"),
        ("e5", "e5"),
        ("1.5.3", "1.5.3"),
        ('"1e-3"', "1e-3"),
        ("abc", "abc"),
        ("", None),
    ],
)
def test_values(text, value):
    got = Y.load(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    "text, line, first",
    [
        ("a: 1\nb: 2\na: 3\n", 3, 1),
        ("{a: 1, a: 2}", 1, 1),
        ("x:\n  y: 1\n  y: 2\n", 3, 2),
        ("1: a\n1.0: b\n", 2, 1),
    ],
)
def test_a_key_given_twice_is_refused(text, line, first):
    with pytest.raises(Y.DuplicateKeyError) as err:
        Y.load(text)
    assert (err.value.line, err.value.first) == (line, first) and "given twice" in str(err.value)
    assert isinstance(err.value, yaml.YAMLError)


def test_python_tags_stay_refused():
    with pytest.raises(yaml.YAMLError):
        Y.load("!!python/object/apply:os.system ['true']")


def test_the_safe_loader_itself_is_unchanged():
    assert yaml.safe_load("[1e-3]") == ["1e-3"]


@pytest.mark.parametrize("value", [None, 1.5, b"a: 1", ["a: 1"]])
def test_only_text_is_read(value):
    with pytest.raises(ValueError, match="text must be YAML text"):
        Y.load(value)
