"""The pipeline's bookkeeping, without executing notebooks (tests/test_book.py does that)."""
import json
from pathlib import Path

import nbformat
import pytest
import yaml

from gspa import pipeline as P

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = P.chapters(ROOT)


def test_every_notebook_is_a_chapter():
    stems = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
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
    declared = P.declared_parameters(ROOT / "notebooks" / "fdp.ipynb")
    with pytest.raises(P.PipelineError, match="declares no parameter named 'n'"):
        P.check_parameters("fdp", declared, {"n": 5}, "-p")
    with pytest.raises(P.PipelineError, match="must be a number"):
        P.check_parameters("fdp", declared, {"seed": "seven"}, "-p")


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
    from gspa.ledger import render_ledger
    rec = {"chapter": "x", "title": "X", "profile": "paper", "overrides": {}, "claims": [
        {"id": "a", "statement": "s | with pipe", "where": "Fact 1", "paper_text": "—", "ours_text": "1",
         "rule": "r", "verdict": "reproduced", "reason": "ok"}]}
    text = render_ledger([rec])
    assert "`a`" in text and "s \\| with pipe" in text and "{doc}`X <chapters/x>`" in text
    assert "1 reproduced" in text


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
    from gspa.ledger import render_errata
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
