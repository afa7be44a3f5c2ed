/* gspa book: make every "Toggle primary sidebar" button (☰) work.
 *
 * pydata-sphinx-theme >= 0.17 renders its own .primary-toggle in #pst-header (hidden under
 * sphinx-book-theme) before sphinx-book-theme's visible one in the article header, and both themes'
 * scripts listen on document.querySelector(".primary-toggle") only, i.e. on the hidden button
 * (pydata-sphinx-theme issue #2451). The visible button did nothing at any width.
 *
 * This script handles a click on any .primary-toggle itself, before the themes' listeners (capture
 * phase on window), so the behaviour does not depend on which button a theme version listens on:
 *  - narrow screens (the theme hides the sidebar below 960px): open the theme's modal sidebar, as the
 *    theme does — move #pst-primary-sidebar's children and classes into
 *    <dialog id="pst-primary-sidebar-modal">, showModal(); Escape, a click on the backdrop or
 *    closing the dialog moves them back and returns the focus to the button;
 *  - wide screens: collapse or restore the sidebar (class gspa-nav-collapsed on <html>; see gspa.css).
 *    The choice is kept in localStorage, so the next page opens the same way; the class is set while
 *    <head> is parsed (this script is loaded there), before the sidebar is drawn.
 */
(function () {
  "use strict";
  var NARROW = "(max-width: 959.98px)";        // pydata-sphinx-theme's breakpoint for the modal sidebar
  var COLLAPSED = "gspa-nav-collapsed";
  var KEY = "gspa-nav-collapsed";               // localStorage: "1" while the reader keeps the sidebar hidden

  function remembered(value) {                 // storage may be disabled (private mode, file://): then forget
    try {
      if (value === undefined) return window.localStorage.getItem(KEY) === "1";
      if (value) window.localStorage.setItem(KEY, "1"); else window.localStorage.removeItem(KEY);
    } catch (e) { /* nothing to remember with */ }
    return false;
  }
  if (remembered()) document.documentElement.classList.add(COLLAPSED);

  function parts() {
    return {
      sidebar: document.getElementById("pst-primary-sidebar"),
      dialog: document.getElementById("pst-primary-sidebar-modal"),
    };
  }

  function move(from, to) {                    // the theme's cut-and-paste of nodes and classes
    Array.from(from.childNodes).forEach(function (n) { to.appendChild(n); });
    Array.from(from.classList).forEach(function (c) { from.classList.remove(c); to.classList.add(c); });
  }

  function setExpanded() {
    var p = parts();
    var open = window.matchMedia(NARROW).matches
      ? !!(p.dialog && p.dialog.open)
      : !document.documentElement.classList.contains(COLLAPSED);
    document.querySelectorAll(".primary-toggle").forEach(function (b) {
      b.setAttribute("aria-expanded", open ? "true" : "false");
      b.setAttribute("aria-controls", "pst-primary-sidebar");
    });
  }

  function openModal(button) {
    var p = parts();
    if (!p.sidebar || !p.dialog || p.dialog.open) return;
    move(p.sidebar, p.dialog);
    p.dialog.showModal();
    p.dialog.addEventListener("close", function () { if (button.focus) button.focus(); }, { once: true });
    setExpanded();
  }

  window.addEventListener("click", function (event) {
    var button = event.target && event.target.closest && event.target.closest(".primary-toggle");
    if (!button) return;
    event.preventDefault();
    event.stopImmediatePropagation();          // the themes' listeners on the first .primary-toggle stay out
    if (window.matchMedia(NARROW).matches) {
      openModal(button);
    } else {
      remembered(document.documentElement.classList.toggle(COLLAPSED));
      button.blur();                           // as sphinx-book-theme does: lets the tooltip go
      setExpanded();
    }
  }, true);

  function setup() {
    var p = parts();
    if (!p.sidebar || !p.dialog) return;
    // The theme binds these too (when it finds a .primary-toggle); closing twice is harmless.
    p.dialog.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {             // sphinx_highlight.js swallows Escape's default
        event.preventDefault();
        event.stopPropagation();
        p.dialog.close();
      }
    });
    p.dialog.addEventListener("click", function (event) {
      var r = p.dialog.getBoundingClientRect();   // the dialog's box leaves out its ::backdrop
      if (event.target === p.dialog && (event.clientX < r.left || event.clientX > r.right || event.clientY < r.top || event.clientY > r.bottom)) {
        p.dialog.close();                      // a click on the backdrop
      }
    });
    p.dialog.addEventListener("close", function () {
      move(p.dialog, p.sidebar);               // a no-op if the theme's own listener did it first
      setExpanded();
    });
    window.matchMedia(NARROW).addEventListener("change", setExpanded);
    setExpanded();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
