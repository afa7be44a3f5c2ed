"""The built HTML, checked in a real browser (headless Debian Chromium via selenium), offline."""

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from conftest import ROOT
from mathpattern import PLAIN_MATH, RAW_REPR
from gspa.claims.rules import VERDICTS
from gspa.book.ledger import PAPERS
from gspa.book.pipeline import chapters

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site_dir(request):
    """The built HTML: that of a smoke build made for the tests, or the one named by ``GSPA_BOOK_HTML`` (a
    folder holding ``book/intro.html``, e.g. a copy of a paper build's _build/html, to check it as it is)."""
    given = os.environ.get("GSPA_BOOK_HTML")
    if given:
        html = Path(given)
        if not (html / "book" / "intro.html").is_file():
            pytest.fail(f"GSPA_BOOK_HTML={given!r} holds no built book (no book/intro.html)")
        return html
    return request.getfixturevalue("smoke_book") / "_build" / "html"


@pytest.fixture(scope="module")
def site(site_dir):
    html = site_dir
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(html))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.fail("chromium and chromedriver are needed: run `make browser` (Debian packages)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1800",
    ):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(driver), options=opts)
    d.set_page_load_timeout(300)  # generous: the machine may be loaded (CI shares it)
    yield d
    d.quit()


def _wait(browser, script, timeout=180):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda d: d.execute_script(script))


MIN_FIGURE_SCALE = 0.6  # displayed / natural width of a figure on a 1400 px wide window

PAGES = (
    [
        "book/intro.html",
        "book/ledger.html",
        "book/errata.html",
        "book/cite.html",
        "book/rerun.html",
        "book/versions.html",
        "book/references.html",
        "book/api.html",
    ]
    + [f"book/{index}-{p}.html" for index in ("ledger", "errata") for p in PAPERS]
    + [
        f"book/{n}.html"
        for n in sorted({p.name.split(".")[0] for p in (ROOT / "book").glob("api-*.md")})
    ]
    + [f"book/chapters/{c}.html" for c in chapters(ROOT)]
)

# Text of the article outside typeset math and code: raw TeX there means MathJax did not see it.
_PROSE = """const a = document.querySelector('article') || document.body;
const c = a.cloneNode(true);
c.querySelectorAll('mjx-container, pre, code, script, style, .MathJax').forEach(e => e.remove());
return c.innerText;"""

# Tables that overflow their container without a scrolling ancestor, and tables without a caption.
_TABLES = """const out = {wide: [], uncaptioned: []};
document.querySelectorAll('article table').forEach((t, i) => {
  let e = t.parentElement, scrolls = false;
  while (e && e.tagName !== 'ARTICLE') {
    const o = getComputedStyle(e).overflowX;
    if (o === 'auto' || o === 'scroll') { scrolls = true; break; }
    e = e.parentElement;
  }
  const box = (t.closest('article') || document.body).getBoundingClientRect();
  if (!scrolls && t.getBoundingClientRect().right > box.right + 1) out.wide.push(i);
  if (!t.querySelector('caption') && !t.closest('figure, .table-wrapper figure')) out.uncaptioned.push(t.innerText.slice(0, 60));
});
return out;"""


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_offline(site, browser, page):
    """Each page at 1400 px, then, without reloading it, at 400 px (:func:`_sideways_on_a_phone`)."""
    browser.get(f"{site}/{page}")
    _wait(browser, "return document.readyState === 'complete'")
    # every script and image comes from this site (no CDN): the machine has no network
    external = browser.execute_script(
        "return [...document.querySelectorAll('script[src],img[src],link[href]')]"
        ".map(e => e.src || e.href).filter(u => u && !u.startsWith(location.origin) && !u.startsWith('data:'))"
    )
    assert external == [], f"external resources: {external}"
    imgs = browser.execute_script(
        "return [...document.images].map(i => [i.src, i.complete && i.naturalWidth > 0])"
    )
    assert all(ok for _, ok in imgs), f"broken images: {[s for s, ok in imgs if not ok]}"
    # a figure's text is drawn for the page at 110 dpi; shrunk to fit the column by more than MIN_FIGURE_SCALE, its
    # legend and tick labels fall below about 8 px (a row of wide panels: stack them or narrow each one)
    shrunk = browser.execute_script(
        "return [...document.querySelectorAll('article img')].filter(i => i.naturalWidth > 0)"
        ".map(i => [i.src.split('/').pop(), i.getBoundingClientRect().width / i.naturalWidth])"
    )
    assert [(src, round(r, 2)) for src, r in shrunk if r < MIN_FIGURE_SCALE] == [], (
        "figures shrunk to illegible text"
    )
    text = browser.execute_script("return document.body.innerText")
    assert "{glue" not in text and "glue:" not in text, "raw glue markup in the page"
    # every link within the page (a provenance table's claims, a "Made by" line) reaches its target
    dangling = browser.execute_script(
        "return [...document.querySelectorAll('article a[href^=\"#\"]')].map(a => a.hash.slice(1))"
        ".filter(h => h && !document.getElementById(decodeURIComponent(h)))"
    )
    assert dangling == [], f"links to no element of the page: {sorted(set(dangling))[:5]}"
    if browser.execute_script("return document.querySelectorAll('.math').length") > 0:
        _wait(browser, "return document.querySelectorAll('mjx-container').length > 0")
    prose = browser.execute_script(_PROSE)  # code may hold '$' (matplotlib mathtext); prose may not
    if "chapters/" in page or page.endswith("intro.html"):
        assert "$" not in prose.replace("US$", ""), "unrendered TeX"
    raw = [
        prose[max(0, i - 30) : i + 30]
        for i in range(len(prose))
        if prose.startswith(("_{", "^{"), i)
    ]
    assert raw == [], f"raw TeX outside math: {raw[:3]}"
    # mathematics is typeset — no plain-text sub- or superscripts (ε_l, δ_c, n_p, e^ε, n^1.1) outside math —
    # and every value is formatted — no Python repr ({'a': 0.6213495923329396}, [False, True], np.float64(…))
    text = browser.execute_script(_READER)
    for what, pattern in (("plain-text formulas", PLAIN_MATH), ("raw reprs", RAW_REPR)):
        hits = [
            " ".join(text[max(0, m.start() - 30) : m.end() + 30].split())
            for m in pattern.finditer(text)
        ]
        assert hits == [], f"{len(hits)} {what}: {hits[:3]}"
    # the height of a page (a paper's ledger excepted), measured once MathJax typeset it
    if not page.startswith("book/ledger-"):
        _wait(browser, _TYPESET)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        assert height <= PAGE_HEIGHT[1400], f"{height} px tall at 1400 px, over {PAGE_HEIGHT[1400]}"
    tables = browser.execute_script(_TABLES)
    assert tables["wide"] == [], (
        f"tables wider than the page without a scroll container: {tables['wide']}"
    )
    assert tables["uncaptioned"] == [], f"tables without a caption: {tables['uncaptioned']}"
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors}"
    out = ROOT / "_build" / "test-artifacts" / "pages"
    out.mkdir(parents=True, exist_ok=True)
    height = browser.execute_script("return Math.min(document.documentElement.scrollHeight, 12000)")
    try:
        browser.set_window_size(1400, height)
        browser.save_screenshot(str(out / page.replace("/", "_").replace(".html", ".png")))
        # the same page on a phone: the layout follows the window, no reload needed
        browser.set_window_size(400, 900)
        _wait(browser, _TYPESET)
        wide = _sideways_on_a_phone(browser, page)
        phone_height = browser.execute_script("return document.documentElement.scrollHeight")
    finally:
        browser.set_window_size(1400, 1800)
    assert wide == [], f"wider than a 400 px screen (scroll width, width): {wide}"
    assert phone_height <= PAGE_HEIGHT[400], (
        f"{phone_height} px tall at 400 px, over {PAGE_HEIGHT[400]}"
    )


# Every page the build writes, except Sphinx's own (index: a redirect; search, genindex, py-modindex)
def built_pages(html: Path) -> list[str]:
    return sorted(str(p.relative_to(html)) for p in html.glob("book/**/*.html"))


# The text a reader sees: the whole article outside typeset math, code and Python signatures (the API page's),
# claims' statements, reasons, readings and coverage, table cells, captions and generated pages included.
# The clone is not laid out, so its innerText does not separate table cells: a space ends each block and cell.
_READER = _PROSE.replace("'mjx-container,", "'dt.sig, mjx-container,").replace(
    "return c.innerText;",
    "c.querySelectorAll('td, th, caption, p, li, div, summary, br').forEach(e => e.append(' '));\n"
    "return c.innerText;",
)


def test_every_built_page_is_checked(site_dir):
    assert set(built_pages(site_dir)) <= set(PAGES), (
        f"pages not in PAGES: {set(built_pages(site_dir)) - set(PAGES)}"
    )


@pytest.mark.parametrize(
    "page", ["book/chapters/gspa/fdp.html", "book/chapters/gspa/mechanisms.html"]
)
def test_mathjax_rendered_and_figures_present(site, browser, page):
    browser.get(f"{site}/{page}")
    n = _wait(
        browser,
        "const n = document.querySelectorAll('mjx-container').length; return n > 0 ? n : false",
    )
    assert n > 0
    assert browser.execute_script("return document.querySelectorAll('mjx-merror').length") == 0
    assert browser.execute_script("return document.images.length") >= 1


def test_ledger_table_and_screenshot(site, browser):
    browser.get(f"{site}/book/ledger-gspa.html")
    _wait(browser, "return document.readyState === 'complete'")
    rows = browser.execute_script(
        "return document.querySelectorAll('table.gspa-claims > tbody > tr[id]').length"
    )
    assert rows >= 5
    verdicts = browser.execute_script(
        "return [...document.querySelectorAll('table.gspa-claims > tbody > tr')].map(r => r.dataset.verdict)"
    )
    assert verdicts and set(verdicts) <= set(VERDICTS)
    links = browser.execute_script(
        "return [...document.querySelectorAll('table.gspa-claims tbody a')].map(a => a.href)"
    )
    assert any("chapters/gspa/fdp.html" in h for h in links)
    # the rows of a claim's readings table show (outside collapsed sections)
    hidden = browser.execute_script(
        "return [...document.querySelectorAll('table.gspa-readings tbody tr')]"
        ".filter(r => !r.closest('details:not([open])') && !r.getClientRects().length).length"
    )
    assert hidden == 0
    out = ROOT / "_build" / "test-artifacts"
    out.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(out / "ledger.png"))
    browser.get(f"{site}/book/chapters/gspa/fdp.html")
    _wait(browser, "return document.querySelectorAll('mjx-container').length > 0")
    browser.save_screenshot(str(out / "fdp.png"))
    assert (out / "ledger.png").stat().st_size > 10_000
    # the footer links the CITATION.cff the site carries (here from a chapter, two levels down)
    cff = browser.execute_script(
        "const a = [...document.querySelectorAll('p.gspa-build a')]"
        ".find(a => a.href.endsWith('/CITATION.cff')); return a && a.href"
    )
    assert cff and cff.startswith(site)
    text = browser.execute_script(
        "const x = new XMLHttpRequest(); x.open('GET', arguments[0], false); x.send(); "
        "return x.status === 200 ? x.responseText : ''",
        cff,
    )  # a .cff may be downloaded, not shown
    assert text.startswith("cff-version")


# Chapter-list links (primary sidebar nav, or the theme's modal dialog while it holds them) that a
# click would reach: on screen, visible, and the topmost element at their centre (an expression).
_NAV_COUNT = """[...document.querySelectorAll('#pst-primary-sidebar nav a, #pst-primary-sidebar-modal nav a')]
  .filter(a => { const r = a.getBoundingClientRect();
                 if (r.width === 0 || r.height === 0 || getComputedStyle(a).visibility !== 'visible') return false;
                 const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                 return e !== null && a.contains(e); }).length"""
_MODAL_OPEN = "document.getElementById('pst-primary-sidebar-modal').open"


@pytest.mark.parametrize("width", [400, 1400])
def test_sidebar_toggle_opens_and_closes_chapter_list(site, browser, width):
    """Every visible ☰ ("Toggle primary sidebar") works: on a narrow screen it opens the chapter list in
    the theme's modal dialog, which Escape and a click on the backdrop close; on a wide one it hides and
    restores the sidebar. (pydata-sphinx-theme 0.17's hidden second toggle took the themes' click
    handlers: book/_static/gspa-nav.js.)"""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out = ROOT / "_build" / "test-artifacts" / "nav"
    out.mkdir(parents=True, exist_ok=True)
    shown, hidden = f"{_NAV_COUNT} > 0", f"{_NAV_COUNT} === 0"
    browser.get_log("browser")  # earlier pages' messages
    browser.set_window_size(width, 900)
    try:
        browser.get(f"{site}/book/intro.html")
        _wait(browser, "return document.readyState === 'complete'")
        toggles = [
            b for b in browser.find_elements(By.CSS_SELECTOR, ".primary-toggle") if b.is_displayed()
        ]
        assert toggles, "no visible sidebar toggle"
        browser.save_screenshot(str(out / f"{width}-start.png"))
        for i, toggle in enumerate(toggles):
            if width < 960:  # the theme's breakpoint: the sidebar is hidden
                _wait(browser, f"return {hidden}")
                for close in ("escape", "backdrop"):
                    toggle.click()
                    _wait(browser, f"return {_MODAL_OPEN} && {shown}")
                    assert toggle.get_attribute("aria-expanded") == "true"
                    browser.save_screenshot(str(out / f"{width}-{i}-open-{close}.png"))
                    if close == "escape":
                        browser.switch_to.active_element.send_keys(Keys.ESCAPE)
                    else:  # on the backdrop: right of the dialog, left of the page's scrollbar
                        x = browser.execute_script(
                            "const r = document.getElementById('pst-primary-sidebar-modal').getBoundingClientRect();"
                            "return Math.round((r.right + document.documentElement.clientWidth) / 2)"
                        )
                        click = ActionBuilder(browser)
                        click.pointer_action.move_to_location(x, 450).click()
                        click.perform()
                    _wait(browser, f"return !{_MODAL_OPEN} && {hidden}")
                    assert toggle.get_attribute("aria-expanded") == "false"
                    assert browser.execute_script("return document.activeElement") == toggle, (
                        "focus not given back"
                    )
            else:
                _wait(browser, f"return {shown}")
                toggle.click()
                _wait(browser, f"return {hidden}")
                assert toggle.get_attribute("aria-expanded") == "false"
                browser.save_screenshot(str(out / f"{width}-{i}-collapsed.png"))
                toggle.click()
                _wait(browser, f"return {shown}")
                assert toggle.get_attribute("aria-expanded") == "true"
                assert not browser.execute_script(f"return {_MODAL_OPEN}")
        browser.save_screenshot(str(out / f"{width}-end.png"))
    finally:
        browser.set_window_size(1400, 1800)
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors}"


_SEARCH_FIELDS = """[...document.querySelectorAll('.search-button-field')].filter(b => {
  const r = b.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(b).visibility === 'visible'; }).length"""


def test_collapsed_sidebar_is_remembered_and_one_search_field_shows(site, browser):
    """On a wide screen the sidebar a reader hid stays hidden on the next page, and shown again once restored
    (book/_static/gspa-nav.js, localStorage); exactly one search field is on screen either way (the theme's
    header bar, which held a second one, is hidden while the sidebar shows: book/_static/gspa.css)."""
    from selenium.webdriver.common.by import By

    shown, hidden = f"{_NAV_COUNT} > 0", f"{_NAV_COUNT} === 0"

    def toggle():
        [b for b in browser.find_elements(By.CSS_SELECTOR, ".primary-toggle") if b.is_displayed()][
            0
        ].click()

    def visit(page):
        browser.get(f"{site}/{page}")
        _wait(browser, "return document.readyState === 'complete'")

    browser.set_window_size(1400, 900)
    try:
        visit("book/intro.html")
        browser.execute_script("window.localStorage.clear()")
        visit("book/intro.html")
        _wait(browser, f"return {shown}")
        assert browser.execute_script(f"return {_SEARCH_FIELDS}") == 1
        toggle()
        _wait(browser, f"return {hidden}")
        assert (
            browser.execute_script(f"return {_SEARCH_FIELDS}") == 1
        )  # the header's, with the sidebar gone
        visit("book/ledger.html")
        assert browser.execute_script(f"return {hidden}"), (
            "the hidden sidebar came back on the next page"
        )
        toggle()
        _wait(browser, f"return {shown}")
        visit("book/intro.html")
        assert browser.execute_script(f"return {shown}"), (
            "the restored sidebar stayed hidden on the next page"
        )
        assert browser.execute_script(f"return {_SEARCH_FIELDS}") == 1
    finally:
        browser.execute_script("window.localStorage.clear()")
        browser.set_window_size(1400, 1800)


#: the most a page may be tall, in px, at each window width; a paper's ledger page is allowed more at the
#: desktop width (benchmarks/page_heights.py measures every page)
PAGE_HEIGHT = {1400: 15_000, 400: 25_000}

# the page is loaded and MathJax has typeset it (heights are measured after)
_TYPESET = (
    "return document.readyState === 'complete' && (!window.MathJax || !MathJax.startup || "
    "!MathJax.startup.promise || (MathJax.startup.promise.then(() => window.__typeset = 1), "
    "window.__typeset === 1))"
)


def test_a_chapter_s_claims_table_keeps_its_column_widths(site, browser):
    """In a chapter the claims table sits in a cell's output, where the theme lays tables out by their
    content: the book's own rule must win, or the long columns squeeze to a few characters a line."""
    page = next(p for p in PAGES if p.startswith("book/chapters/flame/"))
    browser.get(f"{site}/{page}")
    _wait(browser, _TYPESET)
    layouts = browser.execute_script(
        "return [...document.querySelectorAll('table.gspa-claims')].map(t => getComputedStyle(t).tableLayout)"
    )
    assert layouts and set(layouts) == {"fixed"}, f"{page}: claims tables laid out {layouts}"


_WHATFAILS_WIDTH = """document.querySelectorAll('details.gspa-whatfails').forEach(d => d.open = true);
return [...document.querySelectorAll('table.gspa-whatfails')]
  .map(t => [t.caption.innerText.slice(0, 40), t.parentElement.scrollWidth, t.parentElement.clientWidth])
  .filter(([c, sw, cw]) => sw > cw + 1);"""


_WHATFAILS_COLUMNS = """document.querySelectorAll('details.gspa-whatfails').forEach(d => d.open = true);
return [...document.querySelectorAll('table.gspa-whatfails')]
  .map(t => [t.caption.innerText.slice(0, 40), ...[...t.querySelectorAll(':scope > thead th')]
    .map(th => th.getBoundingClientRect().width)]);"""


def _on_the_front_page(site, browser, size: tuple[int, int], script: str):
    """``script``'s result on the front page in a window of ``size``, once MathJax has typeset it (the window's
    size is restored after)."""
    browser.set_window_size(*size)
    try:
        browser.get(f"{site}/book/intro.html")
        _wait(browser, _TYPESET)
        return browser.execute_script(script)
    finally:
        browser.set_window_size(1400, 1800)


@pytest.mark.parametrize("width", [1400, 400])
def test_what_fails_gives_the_statement_the_width(site, browser, width):
    """The front page's what-fails tables: the statement column takes the width, the kind column (one word) no
    more than it needs (it used to take more than the statement at every width)."""
    tables = _on_the_front_page(site, browser, (width, 900), _WHATFAILS_COLUMNS)
    assert tables, "no what-fails table on the front page"
    narrow = [(c, round(s), round(k)) for c, s, k in tables if s < 2 * k]
    assert narrow == [], (
        f"statement column not twice the kind column (caption, statement, kind): {narrow}"
    )


#: the top of the front page's verdicts-by-paper table, in px from the top of the page, less the warning boxes
#: above it (a build with other settings than the paper's says so there; a paper build has none), and the
#: window's height
_VERDICTS_TOP = """const t = document.querySelector('table.gspa-summary');
if (!t) return null;
let top = t.getBoundingClientRect().top + window.scrollY;
for (const w of document.querySelectorAll('.admonition.warning')) {
  const r = w.getBoundingClientRect(), cs = getComputedStyle(w);
  if (r.bottom <= t.getBoundingClientRect().top)
    top -= r.height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom);
}
return [top, window.innerHeight];"""


@pytest.mark.parametrize("width, height, screens", [(1400, 1000, 1), (400, 850, 2)])
def test_the_front_page_answers_in_the_first_screens(site, browser, width, height, screens):
    """The verdicts by paper start within the first screen at 1400 px and within the first two at 400 px (issue
    58's rule), measured once MathJax has typeset the page, as a paper build shows it: without the warning box
    that a build with other settings (the smoke book) puts above them."""
    found = _on_the_front_page(site, browser, (width, height), _VERDICTS_TOP)
    assert found, "no verdicts-by-paper table on the front page"
    top, screen = found
    assert top < screens * screen, (
        f"the verdicts start {top:.0f} px down, over {screens} x {screen} px"
    )


_CLAIMS_SIDEWAYS = """return [...document.querySelectorAll('table.gspa-claims')]
  .filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1).length"""


def _sideways_on_a_phone(browser, page) -> list:
    """What makes the page, shown in a 400 px window, scroll sideways (empty: nothing). The book must read on
    a phone: wide tables, code blocks and typeset formulas scroll inside their own boxes, long inline code
    wraps, and a claims table is read claim by claim. (Its height, within :data:`PAGE_HEIGHT` at both widths —
    the ledger, errata and API are split into a page per paper or subpackage — is checked by
    :func:`test_page_renders_offline`.)"""
    w = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    wide = [(page, w)] if w[0] > w[1] + 1 else []
    if n := browser.execute_script(_CLAIMS_SIDEWAYS):  # stacked claim by claim on a phone
        wide.append((f"{page}, {n} claims table(s) scrolling sideways", w))
    if page == "book/intro.html":
        # what fails, opened: each table fits (a long formula scrolls alone)
        over = browser.execute_script(_WHATFAILS_WIDTH)
        wide += [(f"{page}, what fails: {c}", [sw, cw]) for c, sw, cw in over]
    return wide


_RESULTS = """const items = [...document.querySelectorAll('#search-results li')];
const done = (document.querySelector('#search-results p.search-summary') || {}).innerText || '';
if (!done.includes('Search finished') && !done.includes('did not match')) return false;
if (!items.every(li => li.querySelector('p.context'))) return false;
return items.map(li => [li.querySelector('a').getAttribute('href'), li.querySelector('p.context').innerText,
                        [...li.querySelectorAll('.highlighted')].map(e => e.innerText)]);"""


def _search(browser, site, query):
    from urllib.parse import quote

    browser.get(f"{site}/search.html?q={quote(query)}")
    return _wait(browser, _RESULTS)


def test_search_finds_numbered_items_and_decimal_numbers(site, browser):
    """Search: "Theorem 4" is one term — every result names Theorem 4 and only it is highlighted;
    a chapter, not a page that lists every claim, comes first, and the chapter whose title names the item
    before every other; a decimal number printed in a chapter finds
    it; the snippets show formulas as text, not TeX."""
    import re

    results = _search(browser, site, "Theorem 4")
    assert results, "no result for 'Theorem 4'"
    assert "chapters/" in results[0][0], (
        f"first result for 'Theorem 4' is not a chapter: {results[0][0]}"
    )
    for href, snippet, marked in results:
        assert {m.lower() for m in marked} <= {"theorem 4"}, f"{href}: highlighted {marked}"
    first = _search(browser, site, "Theorem 2")[0][0]  # the chapter titled "Theorem 2: ..." leads
    assert first.startswith("book/chapters/gspa/theorem2"), f"first result for 'Theorem 2': {first}"
    tex = [(h, s) for h, s, _ in results if re.search(r"\\[A-Za-z]+|\\\(|\$", s)]
    assert tex == [], f"raw TeX in search snippets: {tex[:2]}"
    browser.get(f"{site}/book/chapters/gspa/figure2.html")
    _wait(browser, "return document.readyState === 'complete'")
    prose = browser.execute_script(_PROSE)
    number = re.search(r"(?<![\w.,])\d+\.\d{2,}(?![\w.])", prose)
    assert number, "figure2 prints no decimal number"
    found = [h for h, _, _ in _search(browser, site, number.group(0))]
    assert any(h.startswith("book/chapters/gspa/figure2") for h in found), (
        f"{number.group(0)!r} not found: {found}"
    )
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors}"


def test_search_shows_context_when_the_book_is_opened_from_disk(site_dir, browser):
    """Opened from disk (file://, as the README says), the browser fetches no page: the snippets under the
    results come from the texts the build embeds (_static/gspa-pages.js)."""
    browser.get(f"{Path(site_dir).resolve().as_uri()}/search.html?q=Theorem%204")
    results = _wait(browser, _RESULTS)
    assert results and all(snippet.strip() for _, snippet, _ in results), results[:3]
    assert any("theorem 4" in snippet.lower() for _, snippet, _ in results), results[:3]


def test_figures_say_what_made_them(site, browser):
    """Provenance: under a chapter's figure, the gspa functions and parameters that made it, linked
    to the table at the chapter's end, which names them too."""
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/book/chapters/gspa/figure2.html")
    _wait(browser, "return document.readyState === 'complete'")
    lines = browser.find_elements(By.CSS_SELECTOR, ".cell .gspa-madeby")
    assert lines, "no 'made by' line under figure 2's figure"
    assert "comparison.figure2_grid" in lines[0].text and "delta" in lines[0].text
    link = lines[0].find_element(By.TAG_NAME, "a")
    assert link.get_attribute("href").endswith("figure2.html#gspa-provenance")
    browser.execute_script("arguments[0].click()", link)
    # the link opens the collapsed table at the chapter's end (book/_static/gspa-reveal.js)
    text = _wait(
        browser,
        "const d = document.getElementById('gspa-provenance'); return d.open && d.innerText",
    )
    assert "comparison.figure2_grid" in text and "delta" in text
    # closed by the reader, the table opens again at the next click on the same link (no hashchange then)
    browser.execute_script("document.getElementById('gspa-provenance').open = false")
    browser.execute_script("arguments[0].click()", link)
    _wait(browser, "return document.getElementById('gspa-provenance').open")
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors}"


def test_a_glued_figure_says_what_made_it(site, browser):
    """Figure 4's curves are glued into the text ({glue:figure} with a :name:): the 'made by' line sits
    right under that figure too, not only in the chapter's provenance table."""
    browser.get(f"{site}/book/chapters/gspa/figure4.html")
    _wait(browser, "return document.readyState === 'complete'")
    line = browser.execute_script(
        "const f = document.getElementById('fig-gspa-figure4'); const n = f && f.nextElementSibling;"
        "return n && n.classList.contains('gspa-madeby') ? n.innerText : null"
    )
    assert line, "no 'made by' line under Figure 4's glued figure"
    assert "private_sgd.run_sets" in line and "epochs" in line


def test_no_chapter_shows_a_stray_cell_value(site_dir):
    """A code cell's last expression is shown as its output: a stray value (a matplotlib artist, a search
    object, a title, a file path) is a repr on the page. Jupyter Book renders such a text-only result as
    ``output text_plain highlight-myst-ansi``; tables, figures and glued values are rendered otherwise. The
    notebooks end those cells with a semicolon."""
    stray = {
        str(p.relative_to(site_dir)): p.read_text(encoding="utf-8").count(
            'class="output text_plain highlight-myst-ansi'
        )
        for p in sorted(site_dir.glob("book/chapters/**/*.html"))
    }
    assert {k: v for k, v in stray.items() if v} == {}
