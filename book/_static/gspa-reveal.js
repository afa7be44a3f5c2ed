/* gspa book: a link to something inside a collapsed section (<details>) opens that section and every one
 * around it, then scrolls to it — a claim among a ledger page's collapsed reproduced claims, the provenance
 * table at a chapter's end that a figure's "Made by" line links to. On load, on every change of the hash, and
 * on a click on a link to the hash the page already has (no hashchange then: the reader may have closed it).
 */
(function () {
  "use strict";
  function reveal() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }  // a malformed hash
    var t = id && document.getElementById(id);
    if (!t) return;
    for (var d = t.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.open = true;
    }
    t.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  document.addEventListener("DOMContentLoaded", reveal);
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href]");
    if (a && a.hash && a.hash === location.hash && a.pathname === location.pathname) {
      setTimeout(reveal, 0);
    }
  });
})();
