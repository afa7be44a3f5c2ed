/*
 * The book's search page (set as html_search_scorer by book/_ext/gspa_book.py; Sphinx puts this file into
 * _static/language_data.js, which the search page loads after searchtools.js).
 *
 * 1. Scorer: Sphinx's default weights, and the pages that list every claim (the front page, the ledger,
 *    the errata, the two copies) ranked below the chapters that treat a claim: a search
 *    for "Theorem 4" leads with the chapter about Theorem 4, not with the ledger that names it in a row; a
 *    page whose title names the numbered item of the query ("Theorem 2: ...") comes before every other.
 * 2. Snippets: the text under each result is cut from the page's HTML (opened from disk, from the texts
 *    embedded in _static/gspa-pages.js, since a browser does not fetch file:// pages), where formulas are still TeX
 *    (MathJax typesets them in the browser). Formulas are turned into readable text first:
 *    "\(\varepsilon_0\)" becomes "ε₀".
 */
// the numbered items of the reader's query ("Theorem 2", "Lemma 1": the terms the page's splitQuery, from
// gspa.book.sitesearch, makes of a label and a number), as patterns matching them in a title; made at the first
// score, when splitQuery is defined
var gspaItems = null;
var gspaQueryItems = () => gspaItems || (gspaItems = splitQuery(
  new URLSearchParams(location.search).get("q") || "").filter((t) => / /.test(t)).map((t) => {
    const [label, num] = t.split(" ");
    return new RegExp("\\b" + label + "\\.?[ \\u00a0]?\\(?" + num.replace(/\./g, "\\.") + "\\)?(?![\\w.])", "i");
  }));

var Scorer = {
  score: (result) => {
    const [docname, title, , , score] = result;
    // a page whose title names the numbered item searched for ("Theorem 2: ...") leads
    const named = gspaQueryItems().some((re) => re.test(title || "")) ? 30 : 0;
    return score + named - (/^book\/(intro|versions|(ledger|errata)(-[a-z0-9]+)?)$/.test(docname) ? 4 : 0);
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};

var gspaTexToText = (tex) => {
  const greek = {
    varepsilon: "ε", epsilon: "ε", delta: "δ", Delta: "Δ", mu: "μ", alpha: "α", beta: "β", gamma: "γ",
    Gamma: "Γ", lambda: "λ", sigma: "σ", Sigma: "Σ", phi: "φ", varphi: "φ", Phi: "Φ", pi: "π", tau: "τ",
    theta: "θ", rho: "ρ", eta: "η", kappa: "κ", omega: "ω", Omega: "Ω", nu: "ν", xi: "ξ", chi: "χ", psi: "ψ",
    sum: "Σ", prod: "Π", infty: "∞", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", cdot: "·",
    times: "×", approx: "≈", to: "→", rightarrow: "→", in: "∈", sqrt: "√", pm: "±", ll: "≪", gg: "≫",
    ldots: "…", dots: "…", cdots: "⋯", mid: "|", lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉",
  };
  const sub = { 0: "₀", 1: "₁", 2: "₂", 3: "₃", 4: "₄", 5: "₅", 6: "₆", 7: "₇", 8: "₈", 9: "₉", i: "ᵢ", j: "ⱼ",
    k: "ₖ", n: "ₙ", m: "ₘ", t: "ₜ", "+": "₊", "-": "₋", "=": "₌", "(": "₍", ")": "₎" };
  const sup = { 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹", i: "ⁱ", n: "ⁿ",
    "+": "⁺", "-": "⁻", "=": "⁼", "(": "⁽", ")": "⁾" };
  const script = (text, table, mark) =>
    [...text].every((c) => c in table) ? [...text].map((c) => table[c]).join("")
      : mark + ([...text].length > 1 ? "(" + text + ")" : text);
  let s = tex.replace(/\\\{/g, "\u2983").replace(/\\\}/g, "\u2984").replace(/^\s*(\\\(|\\\[|\$\$?)|(\\\)|\\\]|\$\$?)\s*$/g, "");
  s = s.replace(/\\(left|right|big|Big|bigg|Bigg)\b\\?/g, "");
  s = s.replace(/\\(mathrm|text|textrm|mathbf|mathit|mathcal|mathbb|operatorname|boldsymbol)\s*\{([^{}]*)\}/g, "$2");
  s = s.replace(/\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "($1)/($2)");
  s = s.replace(/\\([,;:! ]|quad|qquad)/g, " ");
  s = s.replace(/\\([A-Za-z]+)/g, (m, w) => (w in greek ? greek[w] : " " + w));
  s = s.replace(/_\{([^{}]*)\}|_(\w)/g, (m, a, b) => script(a ?? b, sub, "_"));
  s = s.replace(/\^\{([^{}]*)\}|\^(\w)/g, (m, a, b) => script(a ?? b, sup, "^"));
  s = s.replace(/\\([%$&#])/g, "$1").replace(/[{}]/g, "").replace(/\u2983/g, "{").replace(/\u2984/g, "}");
  return s.replace(/\s+/g, " ").trim();
};

// Opened from disk, the browser refuses to fetch the pages whose text the snippets are cut from: the texts are
// read from _static/gspa-pages.js instead (written by book/_ext/gspa_book.py at the end of the build).
if (typeof location !== "undefined" && location.protocol === "file:" && !window.gspaFetchPatched) {
  const root = document.documentElement.dataset.content_root || "";
  let pages = null; // loaded at the first fetch (every page loads this file; only the search page fetches)
  const load = () => pages || (pages = new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = root + "_static/gspa-pages.js";
    script.onload = () => resolve(window.gspaPages || {});
    script.onerror = () => resolve({});
    document.head.appendChild(script);
  }));
  const realFetch = window.fetch;
  window.fetch = (url, ...rest) => {
    const key = String(url).startsWith(root) ? String(url).slice(root.length) : String(url);
    return load().then((texts) =>
      key in texts ? new Response('<div role="main">' + texts[key] + "</div>") : realFetch(url, ...rest));
  };
  window.gspaFetchPatched = true;
}

if (typeof Search !== "undefined" && !Search.gspaPatched) {
  const htmlToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(".math").forEach((el) => (el.textContent = gspaTexToText(el.textContent)));
    // formulas outside math elements (tables written by a notebook keep their $...$ for MathJax)
    return htmlToText(doc.documentElement.outerHTML, anchor).replace(
      /\$\$?([^$]+?)\$\$?|\\\((.+?)\\\)|\\\[(.+?)\\\]/g, (m, a, b, c) => gspaTexToText(a ?? b ?? c));
  };
  Search.gspaPatched = true;
}
