"""The pipeline's bookkeeping, without executing notebooks (tests/test_book.py does that)."""
import json
import re
from pathlib import Path

import nbformat
import pytest
import yaml

from gspa.book import pipeline as P

from conftest import ROOT
CHAPTERS = P.chapters(ROOT)


def test_every_notebook_is_a_chapter():
    stems = sorted(p.relative_to(ROOT / "notebooks").with_suffix("").as_posix()
                   for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    assert stems == sorted(CHAPTERS)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_notebook_committed_without_outputs_and_with_one_parameters_cell(chapter):
    nb = nbformat.read(ROOT / "notebooks" / f"{chapter}.ipynb", as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, f"{chapter}: outputs committed"
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert f'Chapter("{chapter}"' in src and "ch.save()" in src


@pytest.mark.parametrize("profile", P.PROFILES)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_profile_files_declare_only_known_parameters(chapter, profile):
    declared = P.declared_parameters(ROOT / "notebooks" / f"{chapter}.ipynb")
    values = P.profile_values(ROOT, profile, chapter)
    P.check_parameters(chapter, declared, values, f"params/{profile}/{chapter}.yaml")


def test_unknown_and_mistyped_parameters_are_refused():
    declared = P.declared_parameters(ROOT / "notebooks" / "gspa" / "fdp.ipynb")
    with pytest.raises(P.PipelineError, match="declares no parameter named 'n'"):
        P.check_parameters("gspa/fdp", declared, {"n": 5}, "-p")
    with pytest.raises(P.PipelineError, match="must be a number"):
        P.check_parameters("gspa/fdp", declared, {"seed": "seven"}, "-p")


def test_parse_value():
    assert P._parse_value("50000") == 50000
    assert P._parse_value("1e-5") == 1e-5
    assert P._parse_value("[0.5, 1.0]") == [0.5, 1.0]
    assert P._parse_value("abc") == "abc"


def test_cli_refuses_unknown_parameter(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert P.main(["run", "fdp", "--profile", "smoke", "-p", "n", "50000"]) == 2
    err = capsys.readouterr().err
    assert "declares no parameter named 'n'" in err and "mu_values" in err
    assert P.main(["run", "nosuchchapter"]) == 2


def test_inputs_hash_tracks_notebook_params_and_sources(tmp_path):
    for sub in ("notebooks", "params/paper", "gspa"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "notebooks" / "c.ipynb").write_text("{}")
    (tmp_path / "params" / "paper" / "c.yaml").write_text("{}")
    (tmp_path / "gspa" / "m.py").write_text("x = 1")
    h0 = P.inputs_hash(tmp_path, "paper", "c")
    (tmp_path / "gspa" / "m.py").write_text("x = 2")
    h1 = P.inputs_hash(tmp_path, "paper", "c")
    (tmp_path / "params" / "paper" / "c.yaml").write_text("a: 1")
    h2 = P.inputs_hash(tmp_path, "paper", "c")
    assert len({h0, h1, h2}) == 3


def test_ledger_renders_every_claim():
    from gspa.book.ledger import render_ledger
    rec = {"chapter": "x", "title": "X", "profile": "paper", "overrides": {}, "claims": [
        {"id": "a", "statement": "s | with pipe", "where": "Fact 1", "paper_text": "—", "ours_text": "1",
         "rule": "r", "verdict": "reproduced", "reason": "ok"}]}
    text = render_ledger([rec])
    assert 'id="claim-a"' in text and 'href="chapters/x.html#claim-a"' in text
    assert "s | with pipe" in text and '<a href="chapters/x.html">X</a>' in text
    assert "<td>1</td>" in text and "1 claims in 1 chapters" in text


def test_a_parameter_line_papermill_cannot_parse_is_an_error(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cell = nbformat.v4.new_code_cell("a = 1\nb = 2   # with n = 3 in the comment\n")
    cell.metadata["tags"] = ["parameters"]
    nb.cells.append(cell)
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(P.PipelineError, match="cannot parse"):
        P.declared_parameters(path)


def test_errata_show_this_builds_verdicts_and_warn_when_they_differ():
    from gspa.book.ledger import render_errata
    rec = {"chapter": "x", "claims": [{"id": "a", "verdict": "not reproduced"}, {"id": "b", "verdict": "reproduced"}]}
    text = render_errata("## E1\n\n<!-- verdicts: a = not reproduced; b = reproduced -->\n", [rec])
    assert "`a` {bdg-danger}`not reproduced`" in text and "`b` {bdg-success}`reproduced`" in text
    assert "warning" not in text and "<!-- verdicts" not in text
    text = render_errata("<!-- verdicts: a = reproduced -->\n", [rec])
    assert "```{warning}" in text and "`a` came out *not reproduced*, where this erratum expects *reproduced*" in text
    with pytest.raises(ValueError, match="no chapter computed"):
        render_errata("<!-- verdicts: zz = reproduced -->\n", [rec])
    with pytest.raises(ValueError, match="not one of"):
        render_errata("<!-- verdicts: a = fine -->\n", [rec])


def _declared(tmp_path, source):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["parameters"]
    nb.cells.append(cell)
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    return P.declared_parameters(path)


def test_range_in_a_parameter_comment_is_checked_and_a_value_error(tmp_path):
    declared = _declared(tmp_path, "k = 3          # alphabet size [2, inf)\n"
                                   "eps = 1.0      # budget (0, 2]\n"
                                   "mus = [0.5]    # GDP parameters (0, inf)\n"
                                   "eps_max = 4.0  # eps range [0, eps_max] for the profiles\n"
                                   "seed = 0\n")
    P.check_parameters("x", declared, {"k": 2, "eps": 2, "mus": [1, 3.5], "eps_max": -1.0, "seed": -5}, "-p")
    for bad, shown in (({"k": 1}, "is 1"), ({"eps": 0.0}, "is 0.0"), ({"eps": 2.5}, "is 2.5"),
                       ({"mus": [1.0, 0]}, "has 0 in [1.0, 0]")):
        with pytest.raises(ValueError, match=r"-p: parameter '\w+' of chapter 'x' " + re.escape(shown)
                           + r", outside its allowed range [\[(]"):
            P.check_parameters("x", declared, bad, "-p")


def test_integer_parameter_refuses_a_float_and_suggests_the_integer(tmp_path):
    declared = _declared(tmp_path, "n_mc = 400_000  # samples\nscale = 1.0\n")
    P.check_parameters("x", declared, {"scale": 3}, "-p")  # an int where a float is declared is fine
    with pytest.raises(ValueError, match=r"'n_mc' of chapter 'x' must be an integer .*got 1000\.0; write 1000"):
        P.check_parameters("x", declared, {"n_mc": 1e3}, "-p")
    with pytest.raises(ValueError, match=r"must be an integer .*got 0\.5$"):
        P.check_parameters("x", declared, {"n_mc": 0.5}, "-p")


@pytest.mark.parametrize("line, message", [("n = 5  # users [10, 1]", "empty range"),
                                           ("n = 5  # users [10, inf)", "default 5 is outside its allowed range"),
                                           ('s = "a"  # name [0, 1]', "range applies to numbers")])
def test_a_bad_range_annotation_is_an_error_of_the_notebook(tmp_path, line, message):
    with pytest.raises(P.PipelineError, match=re.escape(message)):
        _declared(tmp_path, line + "\n")
