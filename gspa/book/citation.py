"""How to cite the book: BibTeX derived from CITATION.cff at build time (nothing typed twice).

CITATION.cff is the one place the citation is written: the software's title, version, authors and
repository (``repository-code``, or ``url``), and under ``references`` the papers the book checks. The
pipeline renders book/cite.md from it (:func:`render_cite`); the book's extension copies the file itself
into the built site and links it from every footer.
"""

from __future__ import annotations

import re

import yaml

_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _tex(text) -> str:
    return "".join(_TEX.get(ch, ch) for ch in " ".join(str(text).split()))


def _author(a: dict) -> str:
    """One CFF person or entity as a BibTeX name: ``Family, Given``; an entity (``name``) in braces."""
    if a.get("family-names"):
        family = (a.get("name-particle", "") + " " + a["family-names"]).strip()
        given = a.get("given-names", "")
        return _tex(f"{family}, {given}" if given else family)
    if a.get("name"):
        return "{" + _tex(a["name"]) + "}"
    raise ValueError(f"CITATION.cff: an author needs family-names or name, got {a!r}")


def repository(cff: dict) -> str | None:
    """The repository's address as CITATION.cff gives it (``repository-code``, else ``url``), or None."""
    url = cff.get("repository-code") or cff.get("url")
    return str(url).strip() if url else None


def _key(authors: list[dict], year, title: str, fallback: str) -> str:
    first = authors[0] if authors else {}
    who = first.get("family-names") or first.get("name") or fallback
    word = next(
        (
            w
            for w in re.findall(r"[A-Za-z]+", title)
            if w.lower() not in {"a", "an", "the", "on", "of"}
        ),
        "",
    )
    return re.sub(r"[^a-z0-9]", "", f"{who}{year or ''}{word}".lower()) or fallback


def _entry(kind: str, key: str, fields: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in fields)
    return (
        f"@{kind}{{{key},\n"
        + ",\n".join(f"  {k.ljust(width)} = {{{v}}}" for k, v in fields)
        + "\n}"
    )


_KINDS = {
    "conference-paper": ("inproceedings", "booktitle"),
    "article": ("article", "journal"),
    "book": ("book", None),
    "report": ("techreport", "institution"),
}


def reference_bibtex(ref: dict) -> str:
    """One entry of CITATION.cff's ``references`` as BibTeX (a conference paper as @inproceedings, an
    article as @article; anything else as @misc)."""
    for need in ("title", "authors"):
        if not ref.get(need):
            raise ValueError(f"CITATION.cff: a reference needs {need!r}, got {ref!r}")
    kind, venue = _KINDS.get(ref.get("type", ""), ("misc", None))
    fields = [
        ("author", " and ".join(_author(a) for a in ref["authors"])),
        ("title", "{" + _tex(ref["title"]) + "}"),
    ]
    where = (
        ref.get("collection-title")
        or ref.get("journal")
        or (ref.get("conference") or {}).get("name")
    )
    if where:
        fields.append((venue or "howpublished", _tex(where)))
    if ref.get("start"):
        ref = {
            **ref,
            "pages": f"{ref['start']}--{ref['end']}" if ref.get("end") else str(ref["start"]),
        }
    for k in ("volume", "issue", "pages", "publisher", "year"):
        v = ref.get(k)
        if isinstance(v, dict):
            v = v.get("name")
        if v:
            fields.append(({"issue": "number"}.get(k, k), _tex(v)))
    if ref.get("doi"):
        fields.append(("doi", _tex(ref["doi"])))
    if ref.get("url"):
        fields.append(("url", str(ref["url"]).strip()))
    return _entry(kind, _key(ref["authors"], ref.get("year"), ref["title"], "ref"), fields)


def software_bibtex(cff: dict, build: dict | None = None) -> str:
    """The software's own entry: title, authors, version and repository from CITATION.cff, and the commit
    and date of ``build`` (:func:`gspa.book.pipeline.build_provenance`), which the book asks to cite."""
    for need in ("title", "authors"):
        if not cff.get(need):
            raise ValueError(f"CITATION.cff needs {need!r}")
    fields = [
        ("author", " and ".join(_author(a) for a in cff["authors"])),
        ("title", "{" + _tex(cff["title"]) + "}"),
    ]
    if cff.get("version"):
        fields.append(("version", _tex(cff["version"])))
    date = str(cff.get("date-released") or (build or {}).get("date") or "")
    if re.match(r"\d{4}", date):
        fields.append(("year", date[:4]))
    if build and build.get("commit"):
        fields.append(
            (
                "note",
                _tex(
                    f"commit {build['commit']}"
                    + (f", built {build['date']}" if build.get("date") else "")
                ),
            )
        )
    if cff.get("doi"):
        fields.append(("doi", _tex(cff["doi"])))
    if repository(cff):
        fields.append(("url", repository(cff)))
    key = (
        re.sub(r"[^a-z0-9]", "", str(cff["title"]).split(":")[0].lower())[:20] or "software"
    )  # "gspa: ..." -> gspa
    return _entry("software", key, fields)


def render_cite(cff_text: str, build: dict) -> str:
    """MyST Markdown for book/cite.md: how to cite the book (the software at the commit this page was built
    from) and the papers it checks, as BibTeX derived from CITATION.cff, with the repository's address —
    or, where CITATION.cff has none, a note saying where to set it."""
    cff = yaml.safe_load(cff_text)
    if not isinstance(cff, dict):
        raise ValueError("CITATION.cff is not a YAML mapping")
    repo = repository(cff)
    lines = [
        "<!-- Generated by gspa.book.pipeline from CITATION.cff; edit that file. -->",
        "# How to cite",
        "",
        " ".join(str(cff.get("message", "")).split()),
        "",
        'The citation is kept in one file, <a href="../CITATION.cff"><code>CITATION.cff</code></a> at the root of '
        "the repository (and of this site); the entries below are derived from it when the book is built.",
        "",
        "## The software and this book",
        "",
        f"This page was built from commit `{build['commit']}` (gspa {build['version']}, {build['date']}).",
        "",
        "```bibtex",
        software_bibtex(cff, build),
        "```",
        "",
        (
            f"**Repository:** <{repo}>"
            if repo
            else "**Repository:** the repository's address is not set. Set it in one place — `repository-code:` in "
            "`CITATION.cff` — and this page's entry (and the file the footer links to) will carry it."
        ),
        "",
    ]
    refs = cff.get("references") or []
    if refs:
        lines += [
            "## The papers this book checks",
            "",
            "```bibtex",
            "\n\n".join(reference_bibtex(r) for r in refs),
            "```",
            "",
        ]
    return "\n".join(lines)
