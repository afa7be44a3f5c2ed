"""README.md stays a short quick start whose commands are the ones CI runs, and whose paths exist."""

import re

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 150, (
        "README.md: at most ~150 lines; details go to the book or benchmarks/"
    )


def test_the_two_commands_are_the_makefile_targets_and_ci_runs_the_test_command():
    block = re.search(r"## The two commands\n.*?```bash\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines()]
    assert commands == ["make book", "make test"]
    make = (ROOT / "Makefile").read_text()
    assert re.search(r"^book:", make, re.M) and re.search(r"^test:", make, re.M)
    ci = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert ci[-1] == "make test"


def test_every_path_the_readme_names_exists():
    named = set(
        re.findall(r"`((?:[\w.-]+/)+[\w.-]+\.(?:md|py|ipynb|yml|yaml|cff|txt)|\.ci/run)`", README)
    )
    named |= {
        n
        for n in ("ARCHITECTURE.md", "CITATION.cff", "environment.yml", "requirements.txt")
        if f"`{n}`" in README
    }
    assert len(named) >= 8
    missing = sorted(p for p in named if not (ROOT / p).exists() and not p.startswith("_build/"))
    assert missing == []


def test_one_licence_is_declared_everywhere_a_user_or_tool_looks():
    """The LICENSE file, the package metadata, the citation file and the README name the same licence."""
    import tomllib

    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"], "LICENSE: not Apache-2.0"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (project.get("license"), project.get("license-files")) == ("Apache-2.0", ["LICENSE"])
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^license: Apache-2\.0$", cff, re.M), "CITATION.cff: no `license: Apache-2.0`"
    assert "`LICENSE`" in README and "Apache-2.0" in README
