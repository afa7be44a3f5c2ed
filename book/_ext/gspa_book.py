"""A small Sphinx extension for the book (loaded through _config.yml's ``local_extensions``).

* Drops duplicate inline scripts: sphinx-thebe adds its configuration script once per
  ``env-before-read-docs`` event, which Jupyter Book emits twice, so every page declared
  ``THEBE_JS_URL`` twice and logged a console error.
* Loads MathJax on every page: Sphinx adds it only to pages whose doctree holds math, but a chapter's
  claims table (HTML from a notebook output) can carry ``$...$`` on a page that has no other math.
* Puts the build's provenance — package version, git commit, build date — in every page's footer
  (the theme's ``extra_footer``), so that any page can be cited; ``gspa_build`` holds the same in
  every page's context. The footer links the repository's CITATION.cff, which is copied into the site's
  root (``html_extra_path``), and the book's "How to cite" page (book/cite, generated from it).
* Makes the repository's ``gspa`` the one Sphinx imports (the book's root, which holds this file's
  ``book/_ext``, goes first on ``sys.path``), for autodoc on the API pages (``book/api.md`` and ``book/api-*.md``); a docstring
  that does not parse fails the build (warnings are errors), and ruff's pydocstyle rules, which
  ``make test`` runs, refuse a missing one or a summary that is not a sentence.
* Gives autosummary's tables a caption (the browser check wants one on every table).
* Search (:mod:`gspa.book.sitesearch`): a numbered item ("Theorem 4") and a decimal number ("96.78") are one
  search term each, in the index and in the query; chapters rank above the pages that list every claim;
  formulas in the result snippets read as text, not TeX (``gspa_search.js``, Sphinx's search scorer hook).
* Under every figure a chapter draws, says where it comes from: the ``gspa`` functions and parameters it
  depends on (:mod:`gspa.book.provenance`), linked to the table at the chapter's end that traces every
  figure, number and verdict of the chapter the same way. A figure glued into the text
  (``{glue:figure}``) gets its line under the figure, found by the directive's ``:name:``.
* ``.. gspa-randomizers::`` renders the declarations of :mod:`gspa.privacy.randomizers` as a table on the API
  page: what each randomizer supports is read from the one place that declares it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for js in context.get("script_files", []):
        # sphinx-thebe's second copy differs only in filename None vs '': normalise it
        key = (
            str(getattr(js, "filename", js) or ""),
            repr(sorted(getattr(js, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            kept.append(js)
    context["script_files"][:] = kept  # in place: later handlers (MathJax) append to this same list
    context["gspa_build"] = app.config._gspa_build
    context["theme_extra_footer"] = _footer(app, context)


def _footer(app, context) -> str:
    """The footer of one page: its links are relative to the page (the same text serves every depth)."""
    b = app.config._gspa_build
    cff = Path(app.srcdir) / "CITATION.cff"
    cite = "book/cite" in app.env.found_docs
    how = f'see <a href="{context["pathto"]("book/cite")}">how to cite</a>' if cite else ""
    if cff.exists():
        how += (
            " and " if how else "see "
        ) + f'<a href="{context["pathto"]("CITATION.cff", 1)}"><code>CITATION.cff</code></a>'
    return (
        f'<p class="gspa-build">Built with gspa {b["version"]}, commit <code>{b["commit"]}</code>, on '
        f"{b['date']}. Cite the book with this commit" + (f"; {how}" if how else "") + ".</p>"
    )


def _default_mode(app, pagename, templatename, context, doctree):
    """The theme reads its light/dark mode from the template variable ``default_mode``; left empty, its
    script logs "Got invalid theme mode" in the browser console on every first visit."""
    context.setdefault("default_mode", "auto")


def _init(app, config):
    from gspa.book.pipeline import build_provenance

    b = build_provenance(Path(app.srcdir))
    config._gspa_build = b
    opts = dict(config.html_theme_options or {})
    opts["extra_footer"] = (
        " "  # set per page by _dedupe_scripts (_footer): its links depend on the page's depth
    )
    config.html_theme_options = opts
    if (
        Path(app.srcdir) / "CITATION.cff"
    ).exists() and "CITATION.cff" not in config.html_extra_path:
        config.html_extra_path = [
            *config.html_extra_path,
            "CITATION.cff",
        ]  # served as /CITATION.cff
    if not config.html_search_scorer:
        config.html_search_scorer = str(Path(__file__).with_name("gspa_search.js"))
    # the API page's signatures name numpy.ndarray, which no page of the book documents (no intersphinx offline),
    # and the internal law type of a documented bound's field
    config.nitpick_ignore = {
        *config.nitpick_ignore,
        ("py:class", "numpy.ndarray"),
        ("py:class", "gspa.privacy.shuffle.clones.Part"),
    }


def _caption_autosummary(app, doctree):
    from docutils import nodes

    for table in doctree.findall(nodes.table):
        titled = any(isinstance(c, nodes.title) for c in table.children)
        if (
            "autosummary" in " ".join(table["classes"]).split() and not titled
        ):  # classes: ['autosummary longtable']
            table.insert(
                0, nodes.title("", "Summary: each name with the first sentence of its docstring")
            )
            if not table["ids"]:
                doctree.set_id(table, suggested_prefix="autosummary")  # numbered tables need an id


#: ```{glue:figure} KEY followed by its options, one of them :name: NAME (group 1 KEY, group 2 NAME)
_GLUE_FIGURE = re.compile(
    r"^[`:]{3,}\{glue:figure\}[ \t]+(\S+)[ \t]*\n(?:[ \t]*:[\w-]+:.*\n)*?[ \t]*:name:[ \t]*(\S+)",
    re.M,
)


def _trace(app, doctree, docname):
    """The "made by" lines of a chapter's figures and its table of provenance (see the module docstring)."""
    if not docname.startswith("book/chapters/"):
        return
    import nbformat
    from docutils import nodes

    from gspa.book import provenance
    from gspa.book.results import paper_of

    chapter = docname.removeprefix("book/chapters/")
    path = Path(app.srcdir) / f"{docname}.ipynb"
    if not path.exists():
        return
    nb = nbformat.read(str(path), as_version=4)
    prov = provenance.analyse(nb)

    def made_by(e):
        para = nodes.paragraph(classes=["gspa-madeby"])
        para += nodes.Text("Made by ")
        for k, f in enumerate(e["functions"] or ["the code of this cell"]):
            para += nodes.Text(", " if k else "")
            para += nodes.literal("", f.removeprefix("gspa.")) if e["functions"] else nodes.Text(f)
        if e["parameters"]:
            para += nodes.Text(" from the parameters ")
            for k, name in enumerate(e["parameters"]):
                para += nodes.Text(", " if k else "")
                para += nodes.literal("", name)
        para += nodes.Text(" (")
        para += nodes.reference("", "provenance", refuri=f"#{provenance.ANCHOR}", internal=True)
        para += nodes.Text(").")
        return para

    drawn = {e["cell"]: e for e in prov["figures"] if not e.get("glue")}
    for cell in doctree.findall(nodes.container):
        e = drawn.get(cell.get("cell_index")) if cell.get("nb_element") == "cell_code" else None
        if e is not None:
            cell += made_by(e)
    # a glued figure is placed by a {glue:figure} directive in a text cell: found by its :name:, the line
    # goes right under it (a glued figure without a name is traced in the chapter's table only)
    glued = {e["glue"]: e for e in prov["figures"] if e.get("glue")}
    placed = {}
    for key, name in _GLUE_FIGURE.findall(
        "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    ):
        if key in glued:
            placed[nodes.fully_normalize_name(name)] = glued[key]
    for figure in list(doctree.findall(nodes.figure)):
        e = next((placed[n] for n in figure["names"] if n in placed), None)
        if e is not None:
            figure.parent.insert(figure.parent.index(figure) + 1, made_by(e))
    sections = [s for s in doctree.children if isinstance(s, nodes.section)]
    if sections:
        html = provenance.chapter_html(prov, paper_of(chapter))
        sections[-1] += nodes.raw("", html, format="html")


def _search_language():
    from sphinx.search.en import SearchEnglish

    from gspa.book import sitesearch as search

    class GspaEnglish(SearchEnglish):
        js_splitter_code = search.JS_SPLITTER

        def split(self, input):
            return search.split(input)

    return GspaEnglish


def _randomizers_directive():
    from docutils.parsers.rst import Directive
    from docutils.statemachine import StringList

    class Randomizers(Directive):
        """A list-table of the declared randomizers (gspa.privacy.randomizers.RANDOMIZERS)."""

        has_content = False

        def run(self):
            from gspa.privacy import randomizers as R

            rows = [
                ".. list-table:: The randomizers of the shuffle accountant, as declared",
                "   :header-rows: 1",
                "",
                "   * - ``randomizer``",
                "     - what it is",
                "     - reductions",
                "     - lower bound for",
                "     - revealing variant covers",
                "     - tested against (enumerated)",
            ]
            for r in R.RANDOMIZERS:
                rows += [
                    f"   * - ``{r.name}``" + (" (with ``k``)" if r.needs_k else ""),
                    f"     - {r.title}" + ("; per-user δᵢ" if r.local_delta else ""),
                    f"     - {', '.join(r.reductions)}",
                    f"     - {', '.join(r.lower) or '—'}",
                    "     - "
                    + (
                        "the input in the clear"
                        if r.revealing_is_clear
                        else "the randomized protocol"
                    ),
                    f"     - ``{r.truth}``",
                ]
            from docutils import nodes

            node = nodes.container()
            self.state.nested_parse(
                StringList(rows, source="gspa.privacy.randomizers"), self.content_offset, node
            )
            return node.children

    return Randomizers


def _embed_page_texts(app, exception):
    """``_static/gspa-pages.js``: the text of every page's main content, for the search page's snippets when the
    book is opened from disk (a browser refuses the ``fetch`` of a ``file://`` page; book/_ext/gspa_search.js
    then reads them from here). The formulas keep their TeX delimiters, which the snippets turn into text."""
    if exception or app.builder.format != "html":
        return
    import html
    import json

    from bs4 import BeautifulSoup

    from gspa.util.atomic import write_text_atomic

    out = Path(app.outdir)
    pages = {}
    for doc in sorted(app.env.found_docs):
        page = out / f"{doc}.html"
        main = page.is_file() and BeautifulSoup(page.read_text("utf-8"), "html.parser").select_one(
            '[role="main"]'
        )
        if main:
            # what Sphinx's own snippets leave out
            for tag in main.select("script, style, .headerlink"):
                tag.decompose()
            pages[f"{doc}.html"] = html.escape(" ".join(main.get_text(" ").split()))
    write_text_atomic(out / "_static" / "gspa-pages.js", f"var gspaPages = {json.dumps(pages)};\n")


def setup(app):
    app.add_directive("gspa-randomizers", _randomizers_directive())
    app.add_search_language(_search_language())
    app.set_html_assets_policy("always")
    app.connect("config-inited", _init)
    app.connect("doctree-read", _caption_autosummary)
    app.connect("doctree-resolved", _trace)
    app.connect("build-finished", _embed_page_texts)
    app.connect("html-page-context", _default_mode, priority=100)
    app.connect(
        "html-page-context", _dedupe_scripts, priority=100
    )  # first: the event stops at a handler that returns a value
    return {"parallel_read_safe": True, "parallel_write_safe": True}
