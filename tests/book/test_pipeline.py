"""The pipeline's bookkeeping, without executing notebooks (tests/test_book.py does that)."""

import math
import re
from pathlib import Path

import nbformat
import pytest

from gspa.book import freshness as F
from gspa.book import execution as E
from gspa.book import parameters as Pm
from gspa.book import pipeline as P
from gspa.book.parameters import Validator

from conftest import ROOT
from gspa.util.fingerprint import digest
from tinyrepo import new_source, write_source

CHAPTERS = P.chapters(ROOT)


def inputs_hash(root, profile, chapter):
    return digest(
        F.chapter_inputs(root, profile, chapter, Pm.profile_values(root, profile, chapter))
    )


def test_every_notebook_is_a_chapter_and_a_myst_markdown_source():
    found = [p for p in (ROOT / "notebooks").rglob("*") if ".ipynb_checkpoints" not in p.parts]
    stems = sorted(
        p.relative_to(ROOT / "notebooks").with_suffix("").as_posix()
        for p in found
        if p.suffix == ".md"
    )
    assert stems == sorted(CHAPTERS)
    assert [p for p in found if p.suffix == ".ipynb"] == []  # the sources are text only


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_source_has_one_parameters_cell_and_no_outputs(chapter):
    nb = F.read_source(F.source_path(ROOT, chapter))
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, f"{chapter}: outputs committed"
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert re.search(rf'Chapter\(\s*"{chapter}"', src) and "ch.save()" in src


def test_unknown_and_mistyped_parameters_are_refused():
    declared = P.declared_parameters(F.source_path(ROOT, "gspa/fdp"))
    with pytest.raises(P.PipelineError, match="declares no parameter named 'n'"):
        Pm.check_parameters("gspa/fdp", declared, {"n": 5}, "-p")
    with pytest.raises(P.PipelineError, match=r"is 'seven', .* \(it is not of type 'integer'\)"):
        Pm.check_parameters("gspa/fdp", declared, {"seed": "seven"}, "-p")


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
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import gspa.m\n")])
    write_source(nb, tmp_path / "notebooks" / "c.md")
    (tmp_path / "params" / "paper" / "c.yaml").write_text("{}")
    (tmp_path / "gspa" / "m.py").write_text("x = 1")
    h0 = inputs_hash(tmp_path, "paper", "c")
    (tmp_path / "gspa" / "m.py").write_text("x = 2")
    h1 = inputs_hash(tmp_path, "paper", "c")
    (tmp_path / "params" / "paper" / "c.yaml").write_text("a: 1")
    h2 = inputs_hash(tmp_path, "paper", "c")
    assert len({h0, h1, h2}) == 3


def test_ledger_renders_every_claim():
    from gspa.book.ledger import render_ledger

    rec = {
        "chapter": "x",
        "title": "X",
        "profile": "paper",
        "overrides": {},
        "claims": [
            {
                "id": "a",
                "statement": "s | with pipe",
                "where": "Fact 1",
                "paper_text": "—",
                "ours_text": "1",
                "rule": "r",
                "verdict": "reproduced",
                "reason": "ok",
            }
        ],
    }
    text = render_ledger([rec])
    assert 'id="claim-a"' in text and 'href="chapters/x.html#claim-a"' in text
    assert "s | with pipe" in text and '<a href="chapters/x.html">X</a>' in text
    assert "<td>1</td>" in text and "1 claims in 1 chapters" in text


def test_a_parameter_line_papermill_cannot_parse_is_an_error(tmp_path):
    with pytest.raises(P.PipelineError, match="cannot parse"):
        _declared(tmp_path, "a = 1\nb = 2   # with n = 3 in the comment\n")


def test_errata_show_this_builds_verdicts_and_warn_when_they_differ():
    from gspa.book.ledger import render_errata

    rec = {
        "chapter": "x",
        "claims": [{"id": "a", "verdict": "not reproduced"}, {"id": "b", "verdict": "reproduced"}],
    }
    text = render_errata("## E1\n\n<!-- verdicts: a = not reproduced; b = reproduced -->\n", [rec])
    assert "`a` {bdg-danger}`not reproduced`" in text and "`b` {bdg-success}`reproduced`" in text
    assert "warning" not in text and "<!-- verdicts" not in text
    text = render_errata("<!-- verdicts: a = reproduced -->\n", [rec])
    assert (
        "```{warning}" in text
        and "`a` came out *not reproduced*, where this erratum expects *reproduced*" in text
    )
    with pytest.raises(ValueError, match="no chapter computed"):
        render_errata("<!-- verdicts: zz = reproduced -->\n", [rec])
    with pytest.raises(ValueError, match="not one of"):
        render_errata("<!-- verdicts: a = fine -->\n", [rec])
    rec["values"] = {"v": {"text": "0.928"}}
    assert "gives 0.928 here" in render_errata("gives {{value:x:v}} here\n", [rec])
    with pytest.raises(ValueError, match="which no chapter published"):
        render_errata("gives {{value:x:w}} here\n", [rec])


def _declared(tmp_path, source):
    """The parameters a chapter source whose cell tagged ``parameters`` is ``source`` declares."""
    path = tmp_path / "x.md"
    write_source(new_source(source), path)
    return P.declared_parameters(path)


def test_range_in_a_parameter_comment_is_checked_and_a_value_error(tmp_path):
    declared = _declared(
        tmp_path,
        "k = 3          # alphabet size [2, inf)\n"
        "eps = 1.0      # budget (0, 2]\n"
        "mus = [0.5]    # GDP parameters (0, inf)\n"
        "eps_max = 4.0  # eps range [0, eps_max] for the profiles (-inf, inf)\n"
        "seed = 0       # [-10, 10]\n",
    )
    Pm.check_parameters(
        "x", declared, {"k": 2, "eps": 2, "mus": [1, 3.5], "eps_max": -1.0, "seed": -5}, "-p"
    )
    for bad, shown in (
        ({"k": 1}, "is 1, outside its domain [2, inf) (it is less than the minimum of 2)"),
        ({"eps": 0.0}, "is 0.0, outside its domain (0, 2] (it is less than or equal to the"),
        ({"eps": 2.5}, "is 2.5, outside its domain (0, 2] (it is greater than the maximum of 2)"),
        ({"mus": [1.0, 0]}, "is [1.0, 0], outside its domain (0, inf) (at [1], 0 is less than"),
        ({"eps_max": math.nan}, "is nan, outside its domain (-inf, inf) (it is not of type"),
        ({"eps_max": math.inf}, "is inf, outside its domain (-inf, inf) (it is not of type"),
    ):
        with pytest.raises(
            ValueError, match=r"^-p: parameter '\w+' of chapter 'x' " + re.escape(shown)
        ):
            Pm.check_parameters("x", declared, bad, "-p")


def test_integer_parameter_refuses_a_float_and_suggests_the_integer(tmp_path):
    declared = _declared(
        tmp_path,
        "n_mc = 400_000  # samples [1, 10000000]\nscale = 1.0  # (0, inf)\n"
        "ns = [10, 20]  # users [2, 1000]\n",
    )
    Pm.check_parameters(
        "x", declared, {"scale": 3}, "-p"
    )  # an int where a float is declared is fine
    for bad, shown in (
        (
            1e3,
            "is 1000.0, outside its domain [1, 10000000] (it is not of type 'integer'; write 1000)",
        ),
        (0.5, "is 0.5, outside its domain [1, 10000000] (it is less than the minimum of 1)"),
        (True, "is True, outside its domain [1, 10000000] (it is not of type 'integer')"),
    ):
        with pytest.raises(ValueError, match=r"'n_mc' of chapter 'x' " + re.escape(shown) + "$"):
            Pm.check_parameters("x", declared, {"n_mc": bad}, "-p")
    with pytest.raises(
        ValueError, match=r"is \[10, 2\.5\], .* \(at \[1\], 2\.5 is not of type 'integer'\)$"
    ):
        Pm.check_parameters("x", declared, {"ns": [10, 2.5]}, "-p")


@pytest.mark.parametrize(
    "line, message",
    [
        ("n = 5  # users [10, 1]", "empty range"),
        ("n = 5  # users [10, inf)", "its default is 5, outside its domain [10, inf) (it is less"),
        ('s = "a"  # name [0, 1]', "its default is 'a', outside its domain [0, 1] (it is not of"),
        ('s = "a"  # name {b, c}', "its default is 'a', outside its domain {b, c} (it is not one"),
        ("n = 5  # users", "declares no domain"),
        ("n = [5]  # users [1, 9], len [2, inf)", "(it is too short)"),
        ("n = 5  # pair [1, 9] x [1, 9]", "applies to lists"),
        ("n = [5]  # users [1, inf]", "[1, inf] includes inf, which no value is"),
        ('s = "a"  # name {a, , b}', "an empty choice in {a, , b}"),
        ("n = [2, 5]  # one row [1, 9] x [1, 9], len [3, 5]", "'len' applies to a list of rows"),
        ("n = abs(-1)  # [0, 9]", "not a literal"),
    ],
)
def test_a_bad_domain_annotation_is_an_error_of_the_notebook(tmp_path, line, message):
    with pytest.raises(P.PipelineError, match=re.escape(message)):
        _declared(tmp_path, line + "\n")


@pytest.mark.parametrize(
    "comment, text",
    [
        ("# Monte Carlo samples [1, inf)", "[1, inf)"),
        ("# eps range [0, eps_max] for the profiles (0, inf)", "(0, inf)"),
        ("# sampling order {fixed, reshuffle}", "{fixed, reshuffle}"),
        (
            '# Table 2 {Unif 1, "Unif, 2", Constant}, len [1, inf)',
            '{Unif 1, "Unif, 2", Constant}, len [1, inf)',
        ),
        (
            "# a [2, 100000] x (0, 1) x {exact, eq5}, len [1, 10]",
            "[2, 100000] x (0, 1) x {exact, eq5}, len [1, 10]",
        ),
        ("# where runs are kept (any text)", "(any text)"),
        ("# eps range [0, eps_max]", None),
        ("# delta (0, 2 beta)", None),
        ("# {a, b} and more", None),
        ("# no domain", None),
        ("", None),
    ],
)
def test_the_domain_is_the_end_of_the_comment(comment, text):
    assert Pm.domain_text(comment) == text


def test_choices_keep_quoted_items_and_elements_of_lists_are_checked(tmp_path):
    declared = _declared(
        tmp_path,
        'order = "fixed"  # order {fixed, reshuffle}\n'
        'names = ["Unif 1"]  # scenarios {Unif 1, "Unif, 2"}, len [1, 3]\n'
        'cases = [[1, 0.5, "exact"]]  # d, delta, kind [1, 9] x (0, 1) x {exact, eq5}\n'
        "pair = [1.0, 2.0]  # exponents [1, 9] x [1, 9]\n"
        'path = "a"  # where (any text)\n'
        "flag = True  # a switch\n",
    )
    Pm.check_parameters(
        "x",
        declared,
        {
            "order": "reshuffle",
            "names": ["Unif, 2", "Unif 1"],
            "pair": [9, 1],
            "cases": [[9, 0.1, "eq5"], [1, 0.9, "exact"]],
            "path": "",
            "flag": False,
        },
        "-p",
    )
    for bad, shown in [
        (
            {"order": "shuffled"},
            "(it is not one of ['fixed', 'reshuffle']; did you mean 'reshuffle'?)",
        ),
        ({"names": ["unif 1"]}, "(at [0], 'unif 1' is not one of ['Unif 1', 'Unif, 2']; did you"),
        ({"names": []}, 'is [], outside its domain {Unif 1, "Unif, 2"}, len [1, 3] (it should be'),
        (
            {"names": ["Unif 1"] * 4},
            'outside its domain {Unif 1, "Unif, 2"}, len [1, 3] (it is too long)',
        ),
        ({"order": "zzz"}, "is 'zzz', outside its domain {fixed, reshuffle} (it is not one of"),
        ({"cases": [[1, 0.5]]}, "(at [0], [1, 0.5] is too short)"),
        (
            {"cases": [[1, 0.5, "eq5", 2]]},
            "(at [0], Expected at most 3 items but found 1 extra: 2)",
        ),
        (
            {"cases": [[1, 0.5, "eq6"]]},
            "(at [0][2], 'eq6' is not one of ['exact', 'eq5']; did you mean 'eq5'?)",
        ),
        ({"cases": [[1.5, 0.5, "eq5"]]}, "(at [0][0], 1.5 is not of type 'integer')"),
        ({"cases": [5]}, "(at [0], 5 is not of type 'array')"),
        (
            {"pair": [1, 10]},
            "is [1, 10], outside its domain [1, 9] x [1, 9] (at [1], 10 is greater",
        ),
        ({"path": 3}, "is 3, outside its domain (any text) (it is not of type 'string')"),
        (
            {"flag": "yes"},
            "is 'yes', outside its domain {true, false} (it is not of type 'boolean')",
        ),
    ]:
        with pytest.raises(P.ParameterError) as err:
            Pm.check_parameters("x", declared, bad, "-p")
        assert shown in str(err.value) and "\n" not in str(err.value)


def test_each_domain_translates_into_a_json_schema(tmp_path):
    """The translation, for one parameter of each form: an interval's brackets become inclusive or
    exclusive bounds (an infinite one none), integers where the default has them, choices an enum, a
    product a fixed-length tuple (prefixItems), ``len`` the list's length."""
    declared = _declared(
        tmp_path,
        'cases = [[1, 0.5, "exact"]]  # d, delta, kind [1, 9] x (0, 1) x {exact, eq5}, len [1, inf)\n'
        "ks = [2, 3]  # alphabet sizes [2, 1e3), len (0, 4]\n"
        'path = "a"  # where (any text)\n'
        "flag = True  # a switch\n",
    )
    number = {"exclusiveMinimum": 0, "exclusiveMaximum": 1, "type": "number"}
    tuple_ = [{"minimum": 1, "maximum": 9, "type": "integer"}, number, {"enum": ["exact", "eq5"]}]
    assert declared["cases"]["schema"] == {
        "type": "array",
        "minItems": 1,
        "items": {"type": "array", "minItems": 3, "prefixItems": tuple_, "items": False},
    }
    assert declared["ks"]["schema"] == {
        "type": "array",
        "minItems": 1,
        "maxItems": 4,
        "items": {"minimum": 2, "exclusiveMaximum": 1000, "type": "integer"},
    }
    assert declared["path"]["schema"] == {"type": "string"}
    assert declared["flag"]["schema"] == {"type": "boolean"}
    schema = P.chapter_schema("x", declared)
    Validator.check_schema(schema)
    assert schema["additionalProperties"] is False and set(schema["properties"]) == set(declared)
    assert Validator(schema).is_valid({"ks": [2, 999], "flag": False})
    assert not Validator(schema).is_valid({"ks": [2, 1000]})


def test_an_unknown_name_gets_the_nearest_declared_one():
    declared = P.declared_parameters(F.source_path(ROOT, "gspa/fdp"))
    with pytest.raises(
        P.ParameterError, match=r"no parameter named 'n_mcc' \(did you mean 'n_mc'\?\); its"
    ):
        Pm.check_parameters("gspa/fdp", declared, {"n_mcc": 5}, "-p")


# -- the reported cases, on the real chapters ---------------------------------


@pytest.mark.parametrize(
    "chapter, name, raw, shown",
    [
        (
            "gspa/figure4",
            "order",
            "shuffled",
            "is 'shuffled', outside its domain {fixed, reshuffle} (it is not one of ['fixed', "
            "'reshuffle']; did you mean 'reshuffle'?)",
        ),
        (
            "gspa/theorem1",
            "scenario",
            "unif 2",
            "is 'unif 2', outside its domain {Unif 1, Unif 2, Constant, Mixed Constant, "
            "Unif 3} (it is not one of",
        ),
        (
            "gspa/figure2",
            "scenarios",
            '["Unif 9"]',
            "(at [0], 'Unif 9' is not one of ['Unif 1', 'Unif 2'",
        ),
        (
            "gspa/theorem2",
            "scenarios",
            '["Unif 9"]',
            "(at [0], 'Unif 9' is not one of ['Unif 1', 'Unif 2'",
        ),
        (
            "fmt21/clones",
            "eps_values",
            "[]",
            "is [], outside its domain (0, inf), len [1, inf) (it should be non-empty)",
        ),
        (
            "gspa/lemma1",
            "n_random",
            "1e21",
            "is 1e+21, outside its domain [1, 10000] (it is greater",
        ),
        (
            "gspa/lemma1",
            "n_random",
            "1000000000000000000000",
            "outside its domain [1, 10000] (it is greater than the maximum of 10000)",
        ),
        (
            "gspa/fdp",
            "seed",
            "!!python/object:os.system",
            "is not a YAML value this pipeline reads",
        ),
        ("gspa/fdp", "seed", "!!python/name:os.system", "is not a YAML value this pipeline reads"),
        ("gspa/fdp", "seed", "!!binary", "is b'', outside its domain [0, 4294967295]"),
        ("gspa/figure4", "data", "!!binary", "outside its domain {mnist, synthetic}"),
        ("gspa/fdp", "mu_values", "[0.5, .nan]", "(at [1], nan is not of type 'number'"),
        ("gspa/fdp", "mu_values", "[0.5, -.inf]", "(at [1], -inf is not of type 'number'"),
        ("gspa/fdp", "seed", "[1", "is not a YAML value this pipeline reads"),
        ("gspa/fdp", "seed", "2024-01-01", "is '2024-01-01', outside its domain [0, 4294967295]"),
    ],
)
def test_the_reported_values_are_refused_before_running(
    chapter, name, raw, shown, capsys, monkeypatch
):
    monkeypatch.chdir(ROOT)
    assert P.main(["run", chapter, "-p", name, raw]) == 2
    out, err = capsys.readouterr()
    assert out == "" and shown in err and len(err.strip().splitlines()) == 1, err
    assert f"'{name}'" in err and "Traceback" not in err


def test_a_malformed_profile_file_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    import shutil

    for f in ("_toc.yml",):
        shutil.copy(ROOT / f, tmp_path / f)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    shutil.copytree(ROOT / "params", tmp_path / "params")
    (tmp_path / "params" / "paper" / "gspa").mkdir(parents=True, exist_ok=True)
    (tmp_path / "params" / "paper" / "gspa" / "fdp.yaml").write_text("n_mc: [1\n")
    monkeypatch.chdir(tmp_path)
    assert P.main(["run", "fdp"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("gspa: error: params/paper/gspa/fdp.yaml is not valid YAML")
        and err.count("\n") == 1
    )
    (tmp_path / "params" / "paper" / "gspa" / "fdp.yaml").write_text(
        "n_mc: !!python/object:os.system\n"
    )
    assert P.main(["run", "fdp"]) == 2
    assert "is not valid YAML" in capsys.readouterr().err


def test_one_rule_for_code_on_the_page():
    """Every code cell is hidden behind a toggle unless tagged 'teach'; papermill's parameters are removed."""
    assert P.page_tags([]) == ["hide-input"]
    assert P.page_tags(["parameters"]) == ["parameters", "hide-input"]
    assert P.page_tags(["teach"]) == ["teach"]
    assert P.page_tags(["hide-input"]) == ["hide-input"]
    assert P.page_tags(["injected-parameters"]) == ["injected-parameters", "remove-input"]
    assert P.page_tags(["remove-cell"]) == ["remove-cell"]


@pytest.mark.parametrize("chapter", P.chapters(ROOT))
def test_teaching_cells_are_short(chapter):
    """A code cell shown on the page ('teach') is a short call, not a computation: at most 12 lines."""
    nb = F.read_source(F.source_path(ROOT, chapter))
    for cell in nb.cells:
        if cell.cell_type == "code" and E.TEACH in cell.metadata.get("tags", []):
            assert len(cell.source.splitlines()) <= 12, cell.source[:200]


def _fake_repo(root):
    """A repository with one chapter importing gspa.a, which imports gspa.b inside a function; gspa.c is
    imported by nothing."""
    (root / "notebooks" / "p").mkdir(parents=True)
    (root / "params" / "smoke" / "p").mkdir(parents=True)
    (root / "gspa").mkdir()
    for name, text in {
        "__init__.py": "",
        "a.py": "def f():\n    from gspa import b\n    return b.X\n",
        "b.py": "X = 1\n",
        "c.py": "Y = 2\n",
    }.items():
        (root / "gspa" / name).write_text(text)
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("%matplotlib inline\nfrom gspa.a import f\n")]
    )
    write_source(nb, root / "notebooks" / "p" / "ch.md")
    (root / "params" / "smoke" / "p" / "ch.yaml").write_text("{}\n")


def test_a_chapter_is_stale_when_what_it_can_import_changes_and_only_then(tmp_path, monkeypatch):
    """Staleness by import closure (imports inside functions included): editing a module the chapter reaches
    re-executes it, editing any other module does not; GSPA_STALE_ALL=1 restores 'any edit re-executes all'."""
    from gspa.book.freshness import chapter_modules

    _fake_repo(tmp_path)
    assert [f.name for f in chapter_modules(tmp_path, "p/ch")] == ["__init__.py", "a.py", "b.py"]
    before = inputs_hash(tmp_path, "smoke", "p/ch")
    (tmp_path / "gspa" / "c.py").write_text("Y = 3\n")
    assert inputs_hash(tmp_path, "smoke", "p/ch") == before  # not reached: not stale
    monkeypatch.setenv("GSPA_STALE_ALL", "1")
    assert inputs_hash(tmp_path, "smoke", "p/ch") != before  # the explicit 'everything' option
    monkeypatch.delenv("GSPA_STALE_ALL")
    (tmp_path / "gspa" / "b.py").write_text("X = 2\n")
    assert inputs_hash(tmp_path, "smoke", "p/ch") != before  # reached through a function


def test_page_machinery_is_in_no_chapters_closure_and_a_privacy_module_only_in_its_importers():
    """On this repository: the site search and the ledger render pages only; gspa.privacy.peers.parv is reached by
    exactly the chapters that import it (directly or through a study)."""
    from gspa.book.freshness import chapter_modules

    root = Path(__file__).resolve().parents[2]
    chapters = sorted(
        str(p.relative_to(root / "notebooks"))[:-3] for p in (root / "notebooks").glob("*/*.md")
    )
    reach = {ch: {str(f.relative_to(root)) for f in chapter_modules(root, ch)} for ch in chapters}
    assert all("gspa/book/sitesearch.py" not in r for r in reach.values())
    assert all(
        "gspa/book/provenance.py" not in r and "gspa/book/citation.py" not in r
        for r in reach.values()
    )
    parv = [ch for ch, r in reach.items() if "gspa/privacy/peers/parv.py" in r]
    assert "accountant/peers" in parv and len(parv) < len(chapters)
    assert all(
        "gspa/privacy/fdp.py" in r for r in reach.values() if "gspa/privacy/accountant.py" in r
    )
    # the page modules are skipped only because no chapter calls them: no chapter imports one directly
    from gspa.book.freshness import PAGE_MODULES
    from gspa.util.imports import imported

    for ch in chapters:
        nb = F.read_source(F.source_path(root, ch))
        code = "\n".join(
            l
            for c in nb.cells
            if c.cell_type == "code"
            for l in c.source.splitlines()
            if not l.lstrip().startswith(("%", "!"))
        )
        assert not [
            m for m in imported(code) if any(m == p or m.startswith(p + ".") for p in PAGE_MODULES)
        ], ch


def test_every_declared_claim_is_recorded_by_exactly_one_chapter():
    """The build's rule, on records made from the declarations: all recorded once passes; a claim left out or
    recorded twice is named."""
    from gspa.book.ledger import unrecorded_claims
    from gspa.studies.fmt21.claims import all_claims

    ids = [f"fmt21.{i}" for i in all_claims()]
    recs = [
        {"chapter": "fmt21/a", "claims": [{"id": i} for i in ids[:3]]},
        {"chapter": "fmt21/b", "claims": [{"id": i} for i in ids[3:]]},
    ]
    assert unrecorded_claims(recs) == []
    recs[1]["claims"].pop()
    assert unrecorded_claims(recs) == [f"{ids[-1]} is declared but no chapter records it"]
    recs[1]["claims"].append({"id": ids[0]})
    assert f"{ids[0]} is recorded by fmt21/a and fmt21/b" in unrecorded_claims(recs)
