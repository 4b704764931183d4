// site-gen: colour-scheme toggle (remembered) and "/" to search. No dependencies.
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "site-gen-theme";
  try {
    var saved = localStorage.getItem(KEY);
    if (saved === "light" || saved === "dark") root.setAttribute("data-theme", saved);
  } catch (e) { /* storage may be blocked; the OS preference still applies */ }

  function current() {
    var set = root.getAttribute("data-theme");
    if (set) return set;
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  document.addEventListener("DOMContentLoaded", function () {
    var toggle = document.querySelector(".theme-toggle");
    if (toggle) {
      toggle.hidden = false;
      var label = function () {
        var next = current() === "dark" ? "light" : "dark";
        toggle.setAttribute("aria-label", "Switch to " + next + " colour scheme");
        toggle.setAttribute("title", "Switch to " + next + " colour scheme");
      };
      label();
      toggle.addEventListener("click", function () {
        var next = current() === "dark" ? "light" : "dark";
        root.setAttribute("data-theme", next);
        try { localStorage.setItem(KEY, next); } catch (e) { /* ignore */ }
        label();
      });
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) return;
    var box = document.getElementById("q") || document.getElementById("header-q");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
  });
})();
