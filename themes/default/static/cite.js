// site-gen: "Copy" buttons for citation text (partials/cite.html). No dependencies.
// Without JavaScript the buttons stay hidden; the visible text and download links remain.
(function () {
  "use strict";

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) resolve(); else reject(new Error("copy failed"));
    });
  }

  function selectContents(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function wire(button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var status = button.parentNode.querySelector(".copy-status");
    function say(text) { if (status) status.textContent = text; }
    button.hidden = false;
    button.addEventListener("click", function () {
      copyText(source.textContent).then(function () {
        say("Copied.");
      }, function () {
        selectContents(source);
        say("Selected: press Ctrl+C (⌘C on a Mac) to copy.");
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), wire);
  });
})();
