// site-gen: colour scheme (follows the OS; the toggle's choice is remembered), "/" focuses
// search, folded lists open for printing. Loaded in <head> without defer so that a remembered
// scheme applies before the first paint. No dependencies.
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "site-gen-theme";
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }  // storage may be blocked
  }
  function remember(value) {
    try {
      if (value) localStorage.setItem(KEY, value); else localStorage.removeItem(KEY);
    } catch (e) { /* the choice then lasts for this page only */ }
  }
  function system() {
    return dark && dark.matches ? "dark" : "light";
  }
  function current() {
    return root.getAttribute("data-theme") || system();
  }
  // Choosing the scheme the OS already asks for means "follow the OS" again.
  function apply(scheme) {
    if (scheme === system()) root.removeAttribute("data-theme"); else root.setAttribute("data-theme", scheme);
  }

  var saved = stored();
  if (saved === "light" || saved === "dark") apply(saved);

  function setupToggle() {
    var toggle = document.querySelector(".theme-toggle");
    if (!toggle) return;
    var label = function () {
      var next = current() === "dark" ? "light" : "dark";
      toggle.setAttribute("aria-label", "Switch to " + next + " colour scheme");
      toggle.setAttribute("title", "Switch to " + next + " colour scheme");
    };
    toggle.hidden = false;
    label();
    toggle.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      apply(next);
      remember(next === system() ? null : next);
      label();
    });
    if (dark && dark.addEventListener) dark.addEventListener("change", label);
  }

  function isTyping(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    var box = document.getElementById("q") || document.getElementById("header-q");
    if (!box) return;
    event.preventDefault();
    box.focus();
    box.select();
  });

  // Browsers without ::details-content printing: open every folded list while printing.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = Array.prototype.filter.call(document.querySelectorAll("details:not([open])"), function (d) {
      d.open = true;
      return true;
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });

  // Opened from a file (file://), the search page cannot load its index: say how to preview.
  function explainFileSearch() {
    var form = document.querySelector("form[data-index]");
    if (location.protocol !== "file:" || !form) return;
    var note = document.createElement("p");
    note.className = "file-notice";
    note.setAttribute("role", "note");
    note.textContent = "Search needs the site served over HTTP: browsers do not let a page " +
      "opened from a file load the search index. Run `site-gen serve` in the project folder " +
      "and open the address it prints.";
    form.parentNode.insertBefore(note, form);
  }

  function setup() {
    setupToggle();
    explainFileSearch();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
