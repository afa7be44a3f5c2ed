"""A result is fresh exactly when what computed it is unchanged: comments, docstrings, formatting and prose
execute nothing; a claim edit stales its chapter alone; a code edit, a parameter, a package version stale
exactly the chapters (and the training runs) they reach. Computed on a scratch copy of this repository's
sources, without executing anything (the end-to-end runs are in test_freshness_book.py)."""

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gspa.book import freshness as F
from gspa.book import execution as E
from gspa.book import parameters as Pm
from gspa.book import pipeline as P
from gspa.util import fingerprint
from conftest import ROOT
from tinyrepo import write_source

CHAPTERS = P.chapters(ROOT)


@pytest.fixture
def scratch(tmp_path):
    """The sources a chapter's inputs are read from: gspa/, notebooks/, params/, _toc.yml."""
    root = tmp_path / "repo"
    for d in ("gspa", "notebooks", "params"):
        shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "_toc.yml", root / "_toc.yml")
    return root


def manifest(root, ch):
    return F.chapter_inputs(root, "paper", ch, Pm.profile_values(root, "paper", ch))


def manifests(root):
    return {ch: manifest(root, ch) for ch in CHAPTERS}


def stale(before, after):
    """chapter -> the first changed input, for the chapters whose inputs changed."""
    return {
        ch: fingerprint.first_change(before[ch], after[ch])
        for ch in before
        if before[ch] != after[ch]
    }


def edit(path: Path, old: str, new: str, count: int = 1):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def test_comments_docstrings_and_formatting_execute_nothing(scratch):
    before = manifests(scratch)
    g = scratch / "gspa"
    edit(g / "util" / "validate.py", "\n", "\n# a comment added by the test\n")
    edit(g / "studies" / "gspa" / "claims" / "theorem2.py", '"""The claims', '"""All the claims')
    numerics = g / "privacy" / "numerics.py"
    text = numerics.read_text()
    doc = re.search(r'def \w+\([^)]*\)[^:]*:\n    """', text)
    numerics.write_text(text[: doc.end()] + "Reworded. " + text[doc.end() :])
    edit(
        g / "studies" / "gspa" / "scenarios.py", "np.full(m, 0.5)", "np.full( m,\n  0.5 )"
    )  # formatting only
    assert stale(before, manifests(scratch)) == {}


def test_a_claim_added_to_theorem2_stales_theorem2_alone(scratch):
    before = manifests(scratch)
    path = scratch / "gspa" / "studies" / "gspa" / "claims" / "theorem2.py"
    text = path.read_text()
    first = re.search(r'\nTHEOREM2 = \{\n    "([^"]+)": ', text)
    edit(
        path,
        "\nCLAIMS = table(",
        f'\nTHEOREM2["thm2-added"] = THEOREM2["{first.group(1)}"]\nCLAIMS = table(',
    )
    assert stale(before, manifests(scratch)) == {
        "gspa/theorem2": "gspa/studies/gspa/claims/theorem2.py changed"
    }


def test_an_edit_of_any_chapter_s_claims_stales_that_chapter_alone(scratch):
    """Every chapter's claims module is among the code of that chapter alone (the files its inputs digest),
    and editing it stales that chapter alone — end to end, through every chapter's inputs, for three of them
    (the first, one in the middle, the last: each takes every chapter's inputs twice)."""
    claims = lambda ch: Path(
        "gspa", "studies", ch.split("/")[0], "claims", ch.split("/")[1] + ".py"
    )
    reach = {
        ch: {f.relative_to(scratch) for f in F.chapter_modules(scratch, ch)} for ch in CHAPTERS
    }
    for ch in CHAPTERS:
        assert {c for c in CHAPTERS if claims(ch) in reach[c]} == {ch}, ch
    before = manifests(scratch)
    for ch in (CHAPTERS[0], CHAPTERS[len(CHAPTERS) // 2], CHAPTERS[-1]):
        path = scratch / claims(ch)
        text = path.read_text()
        path.write_text(text + "\nADDED_BY_THE_TEST = 1\n")
        assert set(stale(before, manifests(scratch))) == {ch}
        path.write_text(text)


def test_a_code_edit_stales_exactly_the_chapters_that_can_run_it(scratch):
    before = manifests(scratch)
    path = scratch / "gspa" / "studies" / "gspa" / "scenarios.py"
    edit(path, "np.full(m, 0.5)", "np.full(m, 0.001)")
    changed = stale(before, manifests(scratch))
    assert changed["gspa/figure4"] == "gspa/studies/gspa/scenarios.py changed"
    reach = {
        ch
        for ch in CHAPTERS
        if "gspa/studies/gspa/scenarios.py"
        in {str(f.relative_to(scratch)) for f in F.chapter_modules(scratch, ch)}
    }
    assert set(changed) == reach and len(reach) < len(CHAPTERS)


def last_code_cell(text: str) -> int:
    """Where the source of the last code cell of a chapter's MyST text begins (after its options)."""
    start = text.rindex("```{code-cell}")
    body = text.index("\n", start) + 1
    while text.startswith(":", body):  # its options (tags), then a blank line
        body = text.index("\n\n", body) + 2
    return body


def test_prose_and_code_comments_of_a_notebook_change_no_input_and_its_code_does(scratch):
    before = manifests(scratch)
    path = scratch / "notebooks" / "gspa" / "figure4.md"
    text = path.read_text()
    title = text.index("\n# ") + 1  # the first markdown cell, after the front matter
    text = text[:title] + "A new first sentence.\n\n" + text[title:]
    at = last_code_cell(text)
    text = text[:at] + "# a comment\n" + text[at:]
    path.write_text(text)
    assert stale(before, manifests(scratch)) == {}
    path.write_text(text[:at] + "x_added_by_the_test = 1\n" + text[at:])
    assert stale(before, manifests(scratch)) == {"gspa/figure4": "notebook code changed"}


def test_what_runs_counts_however_a_cell_is_written(scratch):
    """A continuation line that starts with an operator is code, not a shell escape; moving the
    ``parameters`` tag changes where papermill injects the values; a cell that does not parse is an input,
    not a crash."""
    nb_path = scratch / "notebooks" / "gspa" / "lemma3.md"
    nb = F.read_source(nb_path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    original = code[-1].source
    before = manifest(scratch, "gspa/lemma3")

    def now():
        write_source(nb, nb_path)
        return fingerprint.first_change(before, manifest(scratch, "gspa/lemma3"))

    code[-1].source = original + "\nflag = (1\n    != 0.5)\n"
    assert now() == "notebook code changed"
    after = manifest(scratch, "gspa/lemma3")
    code[-1].source = original + "\nflag = (1\n    != 0.7)\n"
    write_source(nb, nb_path)
    assert manifest(scratch, "gspa/lemma3") != after
    code[-1].source = original
    assert now() is None
    tagged = next(c for c in code if "parameters" in c.metadata.get("tags", []))
    tagged.metadata["tags"] = ["hide-output", *tagged.metadata["tags"]]
    assert now() is None  # a tag that only changes the page
    tagged.metadata["tags"].remove("parameters")
    code[-1].metadata.setdefault("tags", []).append("parameters")
    assert now() == "notebook code changed"
    code[-1].metadata["tags"].remove("parameters")
    tagged.metadata["tags"].append("parameters")
    code[-1].source = original + "\nvalidate?\n"
    assert now() == "notebook code changed"  # parsed as IPython does, no SyntaxError
    code[-1].source = original
    assert now() is None
    shown = code[-1]  # a cell that starts with a string shows it: not a docstring there
    shown.source = '"ratio 0.5"\n' + original
    assert now() == "notebook code changed"
    after = manifest(scratch, "gspa/lemma3")
    shown.source = '"ratio 0.7"\n' + original
    write_source(nb, nb_path)
    assert manifest(scratch, "gspa/lemma3") != after


def test_parameter_values_count_and_the_file_s_bytes_do_not(scratch):
    ch = "gspa/figure4"
    inputs = lambda: F.chapter_inputs(scratch, "smoke", ch, Pm.profile_values(scratch, "smoke", ch))  # noqa: E731
    before = inputs()
    path = scratch / "params" / "smoke" / f"{ch}.yaml"
    path.write_text("# a comment\n" + path.read_text() + "\n\n")
    assert inputs() == before
    path.write_text(path.read_text().replace("epochs: 2", "epochs: 3"))
    assert fingerprint.first_change(before, inputs()) == "parameters changed"


def test_a_package_version_stales_the_chapters_that_import_it(scratch, monkeypatch):
    before = manifests(scratch)
    uses_torch = {ch for ch, m in before.items() if "package torch" in m}
    real = fingerprint._version
    monkeypatch.setattr(fingerprint, "_version", lambda d: "99.0" if d == "torch" else real(d))
    changed = stale(before, manifests(scratch))
    assert set(changed) == uses_torch and 0 < len(uses_torch) < len(CHAPTERS)
    assert all(re.fullmatch(r"package torch \S+ -> 99\.0", why) for why in changed.values())


def test_stale_all_counts_every_module(scratch, monkeypatch):
    before = manifests(scratch)
    (scratch / "gspa" / "studies" / "gspa" / "unused.py").write_text("X = 1\n")
    assert stale(before, manifests(scratch)) == {}
    monkeypatch.setenv("GSPA_STALE_ALL", "1")
    assert set(stale(before, manifests(scratch))) == set(CHAPTERS)


def _run_key(root, module, expr):
    """A run cache's key computed by a fresh process that imports gspa from ``root``."""
    code = f"import {module} as m\nprint({expr})"
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_training_runs_keys_follow_the_code_that_computes_them(scratch):
    sgd = ("gspa.studies.gspa.private_sgd", "m.config_hash(m.Config(), 'synthetic')")
    flame = ("gspa.studies.flame.protocols", "m._key('SS-Simple', m.PAPER['SS-Simple'], 0, 'd')")
    before = [_run_key(scratch, *k) for k in (sgd, flame)]
    edit(scratch / "gspa" / "studies" / "gspa" / "scenarios.py", "\n", "\n# a comment\n")
    assert [_run_key(scratch, *k) for k in (sgd, flame)] == before
    edit(
        scratch / "gspa" / "studies" / "gspa" / "scenarios.py",
        "np.full(m, 0.5)",
        "np.full(m, 0.001)",
    )
    after = [_run_key(scratch, *k) for k in (sgd, flame)]
    assert (
        after[0] != before[0] and after[1] == before[1]
    )  # FLAME's runs never draw Table 2's budgets
    edit(
        scratch / "gspa" / "experiments" / "federated.py",
        "\n\n\ndef ",
        "\n\n\ndef _added():\n    pass\n\n\ndef ",
    )
    assert _run_key(scratch, *flame) != before[1]


def test_a_record_that_is_json_but_not_a_run_is_rerun_with_a_warning(tmp_path, capsys):
    from gspa.experiments import pool

    path = tmp_path / "run.json"
    path.write_text("{}")
    check = pool.record_check(("scenario", "accuracy"))
    recs = pool.run_cached(_one_run, [(3,)], [path], check=check, progress=False)
    assert recs == [{"scenario": "s", "accuracy": [0.3]}]
    assert json.loads(path.read_text()) == recs[0]
    err = capsys.readouterr().err
    assert str(path) in err and "not a run record" in err and err.count("\n") == 1


def _one_run(x, data=None):
    return {"scenario": "s", "accuracy": [x / 10]}


def test_a_record_of_another_run_or_of_other_code_is_not_taken(tmp_path, capsys):
    from gspa.experiments import pool

    check = pool.record_check(("scenario", "accuracy"), expect=lambda x: {"scenario": "s"})
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"scenario": "other", "accuracy": [0.9]}))
    assert pool.run_cached(_one_run, [(3,)], [path], check=check, progress=False)[0] == {
        "scenario": "s",
        "accuracy": [0.3],
    }
    assert "another run" in capsys.readouterr().err
    wrong = pool.record_check(("scenario", "accuracy"), expect=lambda x: {"scenario": "t"})
    path.unlink()
    with pytest.raises(RuntimeError, match="code changed while the runs went on"):
        pool.run_cached(_one_run, [(3,)], [path], check=wrong, progress=False)
    assert not path.exists()


def test_a_fifo_where_a_run_record_belongs_is_replaced_not_read(tmp_path, capsys):
    from gspa.experiments import pool

    path = tmp_path / "run.json"
    os.mkfifo(path)  # opening it for reading would block forever
    recs = pool.run_cached(_one_run, [(3,)], [path], progress=False)
    assert recs[0]["accuracy"] == [0.3] and path.is_file()
    assert "not a regular file" in capsys.readouterr().err


def test_a_move_across_filesystems_copies_then_renames(tmp_path, monkeypatch):
    src, dst = tmp_path / "cache" / "a.json", tmp_path / "book" / "a.json"
    src.parent.mkdir()
    dst.parent.mkdir()
    src.write_text("new")
    dst.write_text("old")
    real = os.replace

    def replace(a, b):
        if Path(a).parent != Path(b).parent:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real(a, b)

    monkeypatch.setattr(os, "replace", replace)
    E.move_into_place(src, dst)
    assert dst.read_text() == "new" and not src.exists() and os.listdir(dst.parent) == ["a.json"]


@pytest.mark.parametrize("kind", ["fifo", "directory", "binary"])
def test_a_parameter_file_that_is_no_text_file_is_refused_by_name(scratch, kind):
    path = scratch / "params" / "smoke" / "gspa" / "fdp.yaml"
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)  # reading it would block forever
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(P.PipelineError, match=r"^params/smoke/gspa/fdp\.yaml is (a directory|not)"):
        Pm.profile_values(scratch, "smoke", "gspa/fdp")


def test_a_result_file_that_is_a_fifo_is_treated_as_missing(scratch, capsys):
    path = F.result_path(scratch, "gspa/fdp")
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert F.load_result(scratch, "gspa/fdp") is None
    assert "not a regular file" in capsys.readouterr().err


def test_parameter_values_are_read_as_yaml_1_2_and_refusals_are_short():
    assert P._parse_value("010") == 10 and P._parse_value("1:30") == "1:30"
    assert P._parse_value("400_000") == 400_000 and P._parse_value("yes") == "yes"
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi")
    )
    with pytest.raises(P.ParameterError) as exc:
        P._parse_value(bomb, "seeds")
    assert "aliases" in str(exc.value) and len(str(exc.value)) < 300
    declared = P.declared_parameters(F.source_path(ROOT, "gspa/figure4"))
    with pytest.raises(P.ParameterError) as exc:
        Pm.check_parameters("gspa/figure4", declared, {"seeds": list(range(10**5))}, "-p")
    assert len(str(exc.value)) < 400


def test_bytecode_checked_by_hash_runs_an_edit_that_keeps_size_and_time(tmp_path):
    pkg = tmp_path / "gspa"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    mod = pkg / "m.py"
    mod.write_text("X = 1\n")
    run = [sys.executable, "-c", "import gspa.m; print(gspa.m.X)"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def value():
        out = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
        return out.stdout.strip()

    assert value() == "1"  # writes a timestamp-checked .pyc
    st = mod.stat()
    mod.write_text("X = 2\n")
    os.utime(mod, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert value() == "1"  # the old bytecode runs: what a chapter would have done
    E.hash_checked_bytecode(tmp_path)
    assert value() == "2"
