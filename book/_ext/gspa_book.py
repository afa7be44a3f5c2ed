"""A small Sphinx extension for the book (loaded through _config.yml's ``local_extensions``).

* Drops duplicate inline scripts: sphinx-thebe adds its configuration script once per
  ``env-before-read-docs`` event, which Jupyter Book emits twice, so every page declared
  ``THEBE_JS_URL`` twice and logged a console error.
* Loads MathJax on every page: Sphinx adds it only to pages whose doctree holds math, but a chapter's
  claims table (HTML from a notebook output) can carry ``$...$`` on a page that has no other math.
* Puts the build's provenance — package version, git commit, build date — in every page's footer
  (the theme's ``extra_footer``), so that any page can be cited; ``gspa_build`` holds the same in
  every page's context.
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


def _default_mode(app, pagename, templatename, context, doctree):
    """The theme reads its light/dark mode from the template variable ``default_mode``; left empty, its
    script logs "Got invalid theme mode" in the browser console on every first visit."""
    context.setdefault("default_mode", "auto")


def _init(app, config):
    from gspa.book.pipeline import build_provenance
    b = build_provenance(Path(app.srcdir))
    config._gspa_build = b
    opts = dict(config.html_theme_options or {})
    opts["extra_footer"] = (f'<p class="gspa-build">Built with gspa {b["version"]}, commit '
                            f'<code>{b["commit"]}</code>, on {b["date"]}. Cite the book with this commit; '
                            f'see <code>CITATION.cff</code>.</p>')
    config.html_theme_options = opts


def setup(app):
    app.set_html_assets_policy("always")
    app.connect("config-inited", _init)
    app.connect("html-page-context", _default_mode, priority=100)
    app.connect("html-page-context", _dedupe_scripts, priority=100)   # first: the event stops at a handler that returns a value
    return {"parallel_read_safe": True, "parallel_write_safe": True}
