// site-gen search: loads search.json once, matches on every keystroke, all in the browser.
// Words match by prefix; every query word must match somewhere; title hits rank first.
(function () {
  "use strict";
  var form = document.querySelector(".search-form");
  if (!form) return;
  var input = form.querySelector("input[type=search]");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var root = form.getAttribute("data-root") || "./";
  var docs = null;
  var MAX = 50;

  function fold(text) {
    return String(text || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  function words(text) {
    return fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  }

  function prepare(index) {
    var out = [];
    index.papers.forEach(function (p) {
      var subjects = p.subjects.map(function (c) { return c + " " + (index.subjects[c] || ""); });
      out.push({
        kind: "paper", url: p.url, title: p.title, meta: p.authors.join(", ") + (p.year ? " · " + p.year : ""),
        fields: [words(p.title), words(p.authors.join(" ")), words(subjects.join(" ")), words(p.abstract)],
        year: p.year || 0
      });
    });
    index.authors.forEach(function (a) {
      out.push({
        kind: "author", url: a.url, title: a.name, meta: a.papers + (a.papers === 1 ? " paper" : " papers"),
        fields: [words(a.name), [], [], []], year: 0
      });
    });
    return out;
  }

  var WEIGHTS = [8, 5, 3, 1];
  function score(doc, terms) {
    var total = 0;
    for (var t = 0; t < terms.length; t++) {
      var best = 0;
      for (var f = 0; f < doc.fields.length && best < WEIGHTS[f]; f++) {
        var field = doc.fields[f];
        for (var i = 0; i < field.length; i++) {
          if (field[i].lastIndexOf(terms[t], 0) === 0) { best = Math.max(best, WEIGHTS[f]); break; }
        }
      }
      if (!best) return 0;
      total += best;
    }
    return total;
  }

  function highlight(text, terms) {
    var span = document.createDocumentFragment();
    var pattern = terms.map(function (t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }).join("|");
    if (!pattern) { span.appendChild(document.createTextNode(text)); return span; }
    var folded = fold(text);
    var re = new RegExp("(^|[^\\p{L}\\p{N}])(" + pattern + ")", "gu");
    var last = 0, m;
    // fold() keeps string length for Latin text; fall back to plain text if it did not.
    if (folded.length !== text.length) { span.appendChild(document.createTextNode(text)); return span; }
    while ((m = re.exec(folded)) !== null) {
      var start = m.index + m[1].length, end = start + m[2].length;
      span.appendChild(document.createTextNode(text.slice(last, start)));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(start, end);
      span.appendChild(mark);
      last = end;
      if (m[0].length === 0) re.lastIndex++;
    }
    span.appendChild(document.createTextNode(text.slice(last)));
    return span;
  }

  function render(query) {
    var terms = words(query);
    list.textContent = "";
    if (!terms.length) { status.textContent = ""; return; }
    var hits = [];
    docs.forEach(function (doc) {
      var s = score(doc, terms);
      if (s) hits.push([s, doc]);
    });
    hits.sort(function (a, b) { return b[0] - a[0] || b[1].year - a[1].year || (a[1].title < b[1].title ? -1 : 1); });
    hits.slice(0, MAX).forEach(function (hit) {
      var doc = hit[1];
      var li = document.createElement("li");
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = doc.kind;
      var a = document.createElement("a");
      a.href = root + doc.url;
      a.appendChild(highlight(doc.title, terms));
      var meta = document.createElement("p");
      meta.className = "snippet";
      meta.appendChild(highlight(doc.meta, terms));
      li.appendChild(kind); li.appendChild(a); li.appendChild(meta);
      list.appendChild(li);
    });
    var n = hits.length;
    status.textContent = n === 0 ? "No results for “" + query + "”." :
      n + (n === 1 ? " result" : " results") + (n > MAX ? ", showing the first " + MAX : "") + ".";
  }

  function update(push) {
    var q = input.value;
    if (docs) render(q);
    var url = new URL(window.location.href);
    if (q) url.searchParams.set("q", q); else url.searchParams.delete("q");
    history[push ? "pushState" : "replaceState"](null, "", url);
  }

  input.addEventListener("input", function () { update(false); });
  form.addEventListener("submit", function (event) { event.preventDefault(); update(true); });
  window.addEventListener("popstate", function () {
    input.value = new URL(window.location.href).searchParams.get("q") || "";
    if (docs) render(input.value);
  });

  input.value = new URL(window.location.href).searchParams.get("q") || "";
  status.textContent = "Loading the search index…";
  fetch(form.getAttribute("data-index"))
    .then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    })
    .then(function (index) { docs = prepare(index); status.textContent = ""; render(input.value); })
    .catch(function (error) { status.textContent = "The search index could not be loaded (" + error.message + ")."; });
})();
