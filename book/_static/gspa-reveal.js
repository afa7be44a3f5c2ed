/* gspa book: a link to something inside a collapsed section (<details>) opens that section and every one
 * around it, then scrolls to it — a claim among a ledger page's collapsed reproduced claims, the provenance
 * table at a chapter's end that a figure's "Made by" line links to. On load and on every change of the hash.
 */
(function () {
  "use strict";
  function reveal() {
    var t = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!t) return;
    for (var d = t.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.open = true;
    }
    t.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  document.addEventListener("DOMContentLoaded", reveal);
})();
