"""Every figure of every chapter has a caption in words: what it shows and what to see in it.

A figure is drawn by a code cell (it calls ``subplots``, ``plt.subplots`` or ``plt.figure``) and shown either
under that cell or, when the cell glues it (``glue("name", fig, ...)``), by a ``{glue:figure}`` directive. A figure
shown under its cell is followed by a Markdown cell that opens with a ``{div}`` of class ``gspa-caption`` (styled
in book/_static/gspa.css; the page puts the "Made by" line between the figure and it); a glued figure's
caption is the directive's body. A caption has at least :data:`MIN_WORDS` words, and its numbers come from the
build: a digit may stand only in a glued value (``{glue}`…```), in maths, in the name of an item (Figure 2,
eq. (5), Theorem 1, Unif 2) or in a citation key (FMT21). The source is read, nothing is built."""

import re
from pathlib import Path

import pytest

from gspa.book.freshness import read_source

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").rglob("*.md"))
MIN_WORDS = 12

DRAWS = re.compile(r"(?<![\w.])(?:plt\.)?subplots\(|\bplt\.figure\(")
GLUES = re.compile(r"\bglue\(\s*[\"']([^\"']+)[\"']\s*,\s*fig\b")
CAPTION = re.compile(
    r"\A\s*(`{3,}|:{3,})\{div\}[ \t]+gspa-caption[ \t]*\n(.*?)^\1[ \t]*$", re.S | re.M
)
GLUE_FIGURE = re.compile(
    r"^(`{3,}|:{3,})\{glue:figure\}[ \t]+(\S+)[ \t]*\n((?:[ \t]*:[\w-]+:[^\n]*\n)*)(.*?)^\1[ \t]*$",
    re.S | re.M,
)
# what may hold a digit in a caption: a glued value, maths, an item's name, a citation key (FMT21, Liu23)
ALLOWED = re.compile(
    r"\{glue(?::\w+)?\}`[^`]*`|\$[^$]*\$|\b[A-Z][A-Za-z]+\d{2}\b"
    r"|\b(?:Book figure|Figures?|Tables?|Theorems?|Lemmas?|Corollary|Propositions?|Definitions?|Facts?"
    r"|Algorithms?|[Ee]qs?\.|Unif|line)\s*\(?\d+\)?(?:\s*(?:–|-|to|and|,)\s*\(?\d+\)?)*"
)
DIGIT = re.compile(r"[0-9⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉]")


def name_of(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def caption_faults(text: str) -> list[str]:
    """What is wrong with one caption's text (empty: nothing)."""
    faults = []
    words = len(re.sub(r"\{glue(?::\w+)?\}`[^`]*`", " x ", text).split())
    if words < MIN_WORDS:
        faults.append(
            f"a caption of {words} words (at least {MIN_WORDS}: what it shows, what to see)"
        )
    typed = DIGIT.findall(ALLOWED.sub(" ", text))
    if typed:
        faults.append(
            f"typed numbers in the caption (glue them from the build): {''.join(typed)!r}"
        )
    return faults


def uncaptioned(path: Path) -> list[str]:
    """Each figure of the chapter at ``path`` that lacks a caption, or whose caption is faulty, in words."""
    cells, out = read_source(path).cells, []
    glued = set()
    for i, cell in enumerate(cells):
        if cell.cell_type != "code" or not DRAWS.search(cell.source):
            continue
        first = cell.source.strip().splitlines()[0][:60]
        names = GLUES.findall(cell.source)
        if names:
            glued |= set(names)
            continue
        nxt = cells[i + 1] if i + 1 < len(cells) else None
        m = CAPTION.match(nxt.source) if nxt is not None and nxt.cell_type == "markdown" else None
        if m is None:
            out.append(
                f"the figure of code cell {i} ({first!r}) is not followed by a gspa-caption div"
            )
        else:
            out += [f"code cell {i} ({first!r}): {f}" for f in caption_faults(m.group(2))]
    shown = set()
    for cell in cells:
        if cell.cell_type == "markdown":
            for m in GLUE_FIGURE.finditer(cell.source):
                shown.add(m.group(2))
                out += [f"glue:figure {m.group(2)}: {f}" for f in caption_faults(m.group(4))]
    out += [
        f"figure {g} is glued but no {{glue:figure}} shows it with a caption" for g in glued - shown
    ]
    return out


def test_the_chapters_draw_figures():
    assert sum(bool(DRAWS.search(c)) for p in NOTEBOOKS for c in p.read_text().split("```")) >= 20


@pytest.mark.parametrize("path", NOTEBOOKS, ids=name_of)
def test_every_figure_has_a_caption(path):
    assert not uncaptioned(path), "\n".join(uncaptioned(path))


def _planted(tmp_path, text):
    path = tmp_path / "chapter.md"
    path.write_text(text, encoding="utf-8")
    return uncaptioned(path)


FIG = "```{code-cell}\nfig, axes = subplots(1)\n```\n\n"
CAP = (
    "```{div} gspa-caption\n**A figure.** The curve rises with n and stays below the bound of "
    "Theorem 2 everywhere, by {glue}`gap` at most.\n```\n\n## Next\n"
)


def test_a_planted_chapter_with_a_captioned_figure_passes(tmp_path):
    assert _planted(tmp_path, FIG + CAP) == []


@pytest.mark.parametrize(
    "text, fault",
    [
        (FIG + "## Next\n", "not followed by a gspa-caption div"),
        (FIG + "```{code-cell}\nx = 1\n```\n\n" + CAP, "not followed by a gspa-caption div"),
        (FIG + CAP.replace("{glue}`gap`", "0.02"), "typed numbers"),
        (FIG + "```{div} gspa-caption\nThe curves.\n```\n", "a caption of 2 words"),
        (
            "```{code-cell}\nfig, axes = subplots(1)\nglue('f1', fig, display=False)\n```\n\n"
            "```{glue:figure} f1\n:name: fig-f1\n\n```\n",
            "glue:figure f1: a caption of 0 words",
        ),
        (
            "```{code-cell}\nfig, axes = subplots(1)\nglue('f1', fig, display=False)\n```\n\n## Next\n",
            "figure f1 is glued but no",
        ),
    ],
    ids=["missing", "not-next", "typed-number", "too-short", "glue-empty", "glue-not-shown"],
)
def test_a_planted_fault_is_found(tmp_path, text, fault):
    faults = _planted(tmp_path, text)
    assert any(fault in f for f in faults), faults
