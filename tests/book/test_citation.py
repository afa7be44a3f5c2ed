"""How to cite: BibTeX derived from CITATION.cff (gspa.book.citation), and the page the pipeline writes."""

import pytest
import yaml

from conftest import ROOT
from gspa.book.citation import reference_bibtex, render_cite, repository, software_bibtex

BUILD = {"version": "1.2.3", "commit": "0123456789ab", "date": "2031-05-06 07:08 UTC"}

CFF = """\
cff-version: 1.2.0
message: Cite us, please.
title: "toy: a small_tool & more"
version: 1.2.3
authors:
  - name: the toy developers
  - {family-names: Doe, given-names: Jane}
references:
  - type: conference-paper
    title: "The Paper: 50% better"
    authors:
      - {family-names: Smith, given-names: A.}
      - {family-names: Jones, given-names: B.}
    collection-title: Proceedings of Things (PoT 2020)
    volume: 7
    start: 10
    end: 20
    doi: 10.1000/xyz
    year: 2020
"""


def test_software_entry_is_derived_from_the_cff_and_the_build():
    cff = yaml.safe_load(CFF)
    bib = software_bibtex(cff, BUILD)
    assert bib.startswith("@software{toy,\n")
    assert "author  = {{the toy developers} and Doe, Jane}" in bib
    assert r"title   = {{toy: a small\_tool \& more}}" in bib  # TeX specials escaped
    assert "version = {1.2.3}" in bib and "year    = {2031}" in bib
    assert "note    = {commit 0123456789ab, built 2031-05-06 07:08 UTC}" in bib
    assert "url" not in bib and repository(cff) is None
    with_repo = software_bibtex({**cff, "repository-code": "https://example.org/toy"}, BUILD)
    assert "url     = {https://example.org/toy}" in with_repo


def test_reference_entry_for_a_conference_paper():
    ref = yaml.safe_load(CFF)["references"][0]
    bib = reference_bibtex(ref)
    assert bib.startswith("@inproceedings{smith2020paper,\n")
    for field in (
        "author    = {Smith, A. and Jones, B.}",
        r"title     = {{The Paper: 50\% better}}",
        "booktitle = {Proceedings of Things (PoT 2020)}",
        "volume    = {7}",
        "pages     = {10--20}",
        "year      = {2020}",
        "doi       = {10.1000/xyz}",
    ):
        assert field in bib, field
    with pytest.raises(ValueError, match="needs 'authors'"):
        reference_bibtex({"title": "x"})


def test_cite_page_says_where_to_set_a_missing_repository_and_shows_a_set_one():
    page = render_cite(CFF, BUILD)
    assert page.splitlines()[1] == "# How to cite" and "Cite us, please." in page
    assert "```bibtex\n@software{toy," in page and "@inproceedings{smith2020paper," in page
    assert "commit `0123456789ab`" in page and 'href="../CITATION.cff"' in page
    assert "address is not set" in page and "`repository-code:`" in page
    page = render_cite(CFF + "repository-code: https://example.org/toy\n", BUILD)
    assert "**Repository:** <https://example.org/toy>" in page and "not set" not in page
    with pytest.raises(ValueError, match="needs 'authors'"):
        render_cite("title: x\n", BUILD)


def test_the_repositorys_cff_gives_the_software_and_the_three_papers():
    page = render_cite((ROOT / "CITATION.cff").read_text(), BUILD)
    assert page.count("@inproceedings{") == 3 and page.count("@software{gspa,") == 1
    for who in ("Chen, E.", "Liu, R.", "Feldman, V."):
        assert who in page
