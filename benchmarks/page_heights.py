"""The height of every page of a built book in headless Chromium, at a desktop and a phone width.

    .venv/bin/python benchmarks/page_heights.py [_build/html] [--widths 1400,400] [--only book/errata]

Prints one row per page (its path under the site, then its height in CSS pixels at each width, after
MathJax has typeset it) and marks a height over the targets: 15,000 px at 1400 px wide (the ledger's
pages excepted) and 25,000 px at 400 px. A run over every page at both widths rewrites its section of
benchmarks/README.md. Needs chromium and chromedriver (`make browser`).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import shutil
import sys
import threading
from pathlib import Path

import report

TITLE = "Page heights (`page_heights.py`)"

#: the targets: the most a page may be tall (px) at each width
TARGETS = {1400: 15_000, 400: 25_000}
#: pages allowed over the desktop target (one paper's ledger)
EXEMPT = ("book/ledger",)

_READY = """
const mj = window.MathJax;
if (document.readyState !== 'complete') return false;
if (mj && mj.startup && mj.startup.promise && !window.__gspaTypeset) {
  window.__gspaTypeset = 'waiting';
  mj.startup.promise.then(() => { window.__gspaTypeset = 'done'; });
}
return !mj || !mj.startup || window.__gspaTypeset === 'done';
"""


def pages(site: Path, only: list[str]) -> list[str]:
    """The site's pages under book/ (chapters included), as paths without '.html', sorted."""
    found = sorted(
        str(p.relative_to(site).with_suffix("")) for p in (site / "book").rglob("*.html")
    )
    return [p for p in found if not only or any(p.startswith(o) for o in only)]


def measure(site: Path, widths: list[int], only: list[str]) -> dict[str, dict[int, int]]:
    """``{page: {width: height}}`` for every page of ``site``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # one table, not a log
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "chromium"
    # the flags of tests/book/test_browser.py and its window at 1400 px (scrollbars shown): the same heights
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "chromedriver"), options=opts
    )
    driver.set_page_load_timeout(300)
    out: dict[str, dict[int, int]] = {}
    try:
        for w in widths:
            driver.set_window_size(w, 1800)
            for page in pages(site, only):
                driver.get(f"{base}/{page}.html")
                WebDriverWait(driver, 180).until(lambda d: d.execute_script(_READY))
                h = driver.execute_script(
                    "return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)"
                )
                out.setdefault(page, {})[w] = int(h)
    finally:
        driver.quit()
        server.shutdown()
    return out


def table(heights: dict[str, dict[int, int]], widths: list[int]) -> str:
    """A Markdown table of the heights, a page over its target marked with '!'."""
    rows = [
        "| page | " + " | ".join(f"{w} px" for w in widths) + " |",
        "|---|" + "---:|" * len(widths),
    ]
    for page, hs in heights.items():
        cells = []
        for w in widths:
            h = hs.get(w, 0)
            over = h > TARGETS.get(w, 10**9) and not (w == 1400 and page.startswith(EXEMPT))
            cells.append(f"{h:,}{' !' if over else ''}")
        rows.append(f"| {page} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", nargs="?", default="_build/html", type=Path)
    ap.add_argument("--widths", default="1400,400")
    ap.add_argument("--only", default="", help="comma-separated page prefixes (book/errata,...)")
    report.add_readme_option(ap, "page_heights")
    args = ap.parse_args(argv)
    if not (args.site / "book").is_dir():
        ap.error(f"{args.site} holds no built book (no book/ folder)")
    widths = [int(w) for w in args.widths.split(",")]
    only = [o for o in args.only.split(",") if o]
    if not pages(args.site, only):
        ap.error(f"--only {args.only!r}: no page of {args.site} starts with it (e.g. book/errata)")
    with report.recorded("page_heights", TITLE, args.readme or None) as entry:
        heights = measure(args.site, widths, only)
        print(f"site: {args.site}")
        print(table(heights, widths))
        entry.skip = bool(only) or widths != list(TARGETS)  # only a full run is recorded
        tallest = {w: max(heights, key=lambda p: heights[p].get(w, 0)) for w in widths}
        over = sum(
            h > TARGETS.get(w, 10**9) and not (w == 1400 and p.startswith(EXEMPT))
            for p, hs in heights.items()
            for w, h in hs.items()
        )
        entry.summary = f"{len(heights)} pages, {over} over the targets; tallest " + ", ".join(
            f"{tallest[w]} {heights[tallest[w]][w]:,} px at {w} px" for w in widths
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
