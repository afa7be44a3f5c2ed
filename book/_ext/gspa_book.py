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
"""
from __future__ import annotations

from pathlib import Path


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


def setup(app):
    app.set_html_assets_policy("always")
    app.connect("config-inited", _init)
    app.connect("html-page-context", _default_mode, priority=100)
    app.connect("html-page-context", _dedupe_scripts, priority=100)   # first: the event stops at a handler that returns a value
    return {"parallel_read_safe": True, "parallel_write_safe": True}
