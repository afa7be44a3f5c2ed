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
  every page's context.
* Makes the repository's ``gspa`` the one Sphinx imports (the book's root, which holds this file's
  ``book/_ext``, goes first on ``sys.path``), for autodoc on the API page (``book/api.md``), and fails
  the build when a docstring of the public API (``gspa.privacy.__all__`` and the public members of its
  classes) is missing or malformed (:func:`gspa.book.apidoc.check_public_api`).
* Gives autosummary's tables a caption (the browser check wants one on every table).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for js in context.get("script_files", []):
        # sphinx-thebe's second copy differs only in filename None vs '': normalise it
        key = (str(getattr(js, "filename", js) or ""), repr(sorted(getattr(js, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    context["script_files"][:] = kept      # in place: later handlers (MathJax) append to this same list
    context["gspa_build"] = app.config._gspa_build
    context["theme_extra_footer"] = _footer(app, context)


def _footer(app, context) -> str:
    """The footer of one page: its links are relative to the page (the same text serves every depth)."""
    b = app.config._gspa_build
    cff = Path(app.srcdir) / "CITATION.cff"
    cite = "book/cite" in app.env.found_docs
    how = (f'see <a href="{context["pathto"]("book/cite")}">how to cite</a>' if cite else "")
    if cff.exists():
        how += (" and " if how else "see ") + f'<a href="{context["pathto"]("CITATION.cff", 1)}"><code>CITATION.cff</code></a>'
    return (f'<p class="gspa-build">Built with gspa {b["version"]}, commit <code>{b["commit"]}</code>, on '
            f'{b["date"]}. Cite the book with this commit' + (f"; {how}" if how else "") + ".</p>")


def _default_mode(app, pagename, templatename, context, doctree):
    """The theme reads its light/dark mode from the template variable ``default_mode``; left empty, its
    script logs "Got invalid theme mode" in the browser console on every first visit."""
    context.setdefault("default_mode", "auto")


def _init(app, config):
    from gspa.book.pipeline import build_provenance
    b = build_provenance(Path(app.srcdir))
    config._gspa_build = b
    opts = dict(config.html_theme_options or {})
    opts["extra_footer"] = " "      # set per page by _dedupe_scripts (_footer): its links depend on the page's depth
    config.html_theme_options = opts
    if (Path(app.srcdir) / "CITATION.cff").exists() and "CITATION.cff" not in config.html_extra_path:
        config.html_extra_path = [*config.html_extra_path, "CITATION.cff"]   # served as /CITATION.cff
    # the API page's signatures name numpy.ndarray, which no page of the book documents (no intersphinx offline)
    config.nitpick_ignore = {*config.nitpick_ignore, ("py:class", "numpy.ndarray")}


def _check_docstrings(app):
    from sphinx.errors import ExtensionError

    from gspa.book.apidoc import check_public_api
    problems = check_public_api()
    if problems:
        raise ExtensionError(f"{len(problems)} docstring problem(s) in the public API (see gspa/book/apidoc.py):\n  "
                             + "\n  ".join(problems))


def _caption_autosummary(app, doctree):
    from docutils import nodes
    for table in doctree.findall(nodes.table):
        titled = any(isinstance(c, nodes.title) for c in table.children)
        if "autosummary" in " ".join(table["classes"]).split() and not titled:   # classes: ['autosummary longtable']
            table.insert(0, nodes.title("", "Summary: each name with the first sentence of its docstring"))
            if not table["ids"]:
                doctree.set_id(table, suggested_prefix="autosummary")   # numbered tables need an id


def setup(app):
    app.set_html_assets_policy("always")
    app.connect("config-inited", _init)
    app.connect("builder-inited", _check_docstrings)
    app.connect("doctree-read", _caption_autosummary)
    app.connect("html-page-context", _default_mode, priority=100)
    app.connect("html-page-context", _dedupe_scripts, priority=100)   # first: the event stops at a handler that returns a value
    return {"parallel_read_safe": True, "parallel_write_safe": True}
