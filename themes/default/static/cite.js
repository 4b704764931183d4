// site-gen: the "Cite" box of paper pages (partials/cite.html). No dependencies.
// BibTeX is the entry the page shows (escaped at build time). RIS and CSL-JSON are made here
// from the box's JSON (.cite-data) and the page's citation_abstract and citation_keywords
// tags (the page's one copy of each); every value is
// untrusted text, so RIS values are forced onto one line and JSON goes through
// JSON.stringify. A download is a Blob, so no file per paper is needed. The format, copy and
// download buttons are made here (they work only with this script, and every paper page
// would otherwise carry their markup); without JavaScript the BibTeX text remains readable
// and selectable.
(function () {
  "use strict";

  var FORMATS = {
    bibtex: { type: "application/x-bibtex", extension: ".bib", label: "BibTeX" },
    ris: { type: "application/x-research-info-systems", extension: ".ris", label: "RIS" },
    csl: { type: "application/vnd.citationstyles.csl+json", extension: ".json", label: "CSL-JSON" }
  };

  // One line of plain text: no control characters or line separators, single spaces.
  function oneLine(value) {
    return String(value == null ? "" : value)
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  }

  function risName(name) {
    if (name.literal) return name.literal;
    return name.given ? name.family + ", " + name.given : name.family;
  }

  function makeRis(data, abstract, keywords) {
    var item = data.csl;
    var lines = [["TY", "GEN"], ["TI", item.title]];
    (item.author || []).forEach(function (name) { lines.push(["AU", risName(name)]); });
    lines.push(["PY", item.issued ? item.issued["date-parts"][0][0] : ""], ["AB", abstract],
               ["DO", item.DOI], ["UR", item.URL], ["L1", data.pdf]);
    keywords.forEach(function (keyword) { lines.push(["KW", keyword]); });
    lines.push(["N1", item.annote], ["ER", ""]);
    return lines.map(function (line) { return [line[0], oneLine(line[1])]; })
      .filter(function (line) { return line[1] || line[0] === "ER"; })
      .map(function (line) { return line[0] + "  - " + line[1] + "\r\n"; })
      .join("");
  }

  function makeCsl(data, key, abstract) {
    var item = { id: key };
    Object.keys(data.csl).forEach(function (field) { item[field] = data.csl[field]; });
    if (abstract) item.abstract = abstract;
    return JSON.stringify([item], null, 2) + "\n";
  }

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

  function download(text, name, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type + ";charset=utf-8" }));
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    link.hidden = true;
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text) node.textContent = text;
    return node;
  }

  function button(attributes, text) {
    attributes.type = "button";
    attributes["class"] = "button";
    return element("button", attributes, text);
  }

  // The format choice before the text, copy and download after it.
  function controls(pre) {
    var formats = element("div", { "class": "cite-formats", role: "group",
                                   "aria-label": "Citation format" });
    Object.keys(FORMATS).forEach(function (format) {
      formats.appendChild(button({ "data-format": format,
                                   "aria-pressed": format === "bibtex" ? "true" : "false" },
                                 FORMATS[format].label));
    });
    var actions = element("p", { "class": "cite-actions" });
    actions.appendChild(button({ "data-action": "copy" }, "Copy"));
    actions.appendChild(document.createTextNode(" "));
    actions.appendChild(button({ "data-action": "download" }, "Download"));
    actions.appendChild(document.createTextNode(" "));
    actions.appendChild(element("span", { "class": "copy-status", role: "status",
                                          "aria-live": "polite" }));
    pre.parentNode.insertBefore(formats, pre);
    pre.parentNode.insertBefore(actions, pre.nextSibling);
    return { formats: formats, actions: actions };
  }

  function wire(box) {
    var holder = box.querySelector(".cite-data");
    var code = box.querySelector(".cite-text code");
    if (!holder || !code) return;
    var data;
    try { data = JSON.parse(holder.textContent); } catch (e) { return; }
    var made = controls(code.parentNode);
    var formats = made.formats;
    var actions = made.actions;
    var bibtex = code.textContent;
    var found = /^@\w+\{([^,\s]+),/.exec(bibtex);
    var key = found ? found[1] : "citation";
    var meta = document.querySelector('meta[name="citation_abstract"]');
    var abstract = oneLine(meta ? meta.getAttribute("content") : "");
    var keywords = Array.prototype.map.call(
      document.querySelectorAll('meta[name="citation_keywords"]'),
      function (tag) { return tag.getAttribute("content"); });
    var texts = { bibtex: bibtex, ris: makeRis(data, abstract, keywords),
                  csl: makeCsl(data, key, abstract) };
    var current = "bibtex";
    var status = actions.querySelector(".copy-status");
    var fileName = key.replace(/[^A-Za-z0-9_-]/g, "") || "citation";
    function say(text) { status.textContent = text; }

    Array.prototype.forEach.call(formats.querySelectorAll("button[data-format]"), function (button) {
      button.addEventListener("click", function () {
        current = button.getAttribute("data-format");
        Array.prototype.forEach.call(formats.querySelectorAll("button[data-format]"), function (b) {
          b.setAttribute("aria-pressed", b === button ? "true" : "false");
        });
        code.textContent = texts[current];
        say("");
      });
    });
    actions.querySelector('[data-action="copy"]').addEventListener("click", function () {
      var label = FORMATS[current].label;
      copyText(texts[current]).then(function () {
        say("Copied " + label + ".");
      }, function () {
        selectContents(code);
        say("Selected: press Ctrl+C (⌘C on a Mac) to copy.");
      });
    });
    actions.querySelector('[data-action="download"]').addEventListener("click", function () {
      var format = FORMATS[current];
      download(texts[current], fileName + format.extension, format.type);
      say("Downloaded " + fileName + format.extension + ".");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".cite"), wire);
  });
})();
