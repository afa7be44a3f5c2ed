"""environment.yml (conda) and requirements.txt (pip) describe the same environment."""

import re

import yaml

from conftest import ROOT


def _pins(lines):
    out = {}
    for line in lines:
        line = line.split("#")[0].strip()
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def test_environment_yml_matches_requirements():
    req = _pins((ROOT / "requirements.txt").read_text().splitlines())
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    conda_pins = _pins(pip_section)
    assert req == conda_pins
    assert any(str(d).startswith("python=3.11") for d in env["dependencies"])


def test_requirements_are_consistent_with_constraints():
    req = _pins((ROOT / "requirements.txt").read_text().splitlines())
    con = _pins((ROOT / "constraints.txt").read_text().splitlines())
    for name, version in req.items():
        assert con.get(name) == version, (
            f"{name}: requirements {version} vs constraints {con.get(name)}"
        )
    assert req["torch"] == "2.13.0" and req["jupyter-book"].startswith("1.")
