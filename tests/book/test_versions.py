"""The catalogue of differences between the paper's two text copies quotes them exactly."""

import pytest
import yaml

from conftest import ROOT
from gspa.book.ledger import VERSION_KEYS, render_versions

PAPER = ROOT.parent / "shared" / "paper"
COPIES = {"003": "003_ed7fb8dc204c0b54.txt", "000": "000_30cb3394320ccb8f.txt"}
ENTRIES = yaml.safe_load((ROOT / "book" / "versions.yaml").read_text(encoding="utf-8"))


def test_every_entry_is_complete_and_ids_are_unique():
    assert ENTRIES and len({e["id"] for e in ENTRIES}) == len(ENTRIES)
    for e in ENTRIES:
        assert all(e.get(k) for k in VERSION_KEYS), e["id"]


@pytest.mark.skipif(
    not PAPER.is_dir(), reason="the paper's text copies (../shared/paper) are not beside this clone"
)
@pytest.mark.parametrize("copy", sorted(COPIES))
def test_every_quote_is_verbatim_in_its_copy(copy):
    text = (PAPER / COPIES[copy]).read_text(encoding="utf-8")
    for e in ENTRIES:
        assert e[f"quote_{copy}"] in text, f"{e['id']}: quote_{copy} is not in copy {copy}"
        other = "000" if copy == "003" else "003"
        assert e[f"quote_{other}"] != e[f"quote_{copy}"], f"{e['id']}: both copies quoted the same"


def test_rendering_refuses_unknown_claims():
    with pytest.raises(ValueError, match="no chapter computed"):
        render_versions([dict(ENTRIES[0], claim="nope")], [])
