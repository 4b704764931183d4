// site-gen search page. Loads a small manifest, then for each query only the term shards,
// vocabularies and result fragments it needs (format: docs/search.md). No dependencies.
// Every query word must match the start of a word in the title, authors, subjects or
// abstract; words of 5+ letters also match with one typo. Title matches rank first.
// Text from the index is only ever inserted with textContent / createTextNode.
(function () {
  "use strict";
  var form = document.querySelector(".search-form");
  if (!form || !window.fetch || !window.URL) return;
  var input = document.getElementById("q");
  var subjectSelect = document.getElementById("filter-subject");
  var yearSelect = document.getElementById("filter-year");
  var countEl = document.getElementById("search-count");
  var statusEl = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var moreButton = document.getElementById("search-more");
  var root = form.getAttribute("data-root") || "./";
  var metaUrl = new URL(form.getAttribute("data-index"), window.location.href);

  var PAGE = 10;
  var WEIGHTS = [8, 4, 2, 1];  // title, authors, subjects, abstract
  var FUZZY = 0.5;             // a one-typo match counts half
  var DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
  var VALUE = {};
  for (var d = 0; d < DIGITS.length; d++) VALUE[DIGITS.charCodeAt(d)] = d;
  var EMPTY = [];
  var SPLIT = /[^\p{L}\p{N}]+/u;
  var TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

  var meta = null;
  var stop = {};
  var files = {};      // URL -> Promise of parsed JSON
  var decoded = {};    // term -> [title, authors, subjects, abstract] doc lists
  var fragments = {};  // doc number -> fragment (loaded)
  var subjectNames = {};
  var sequence = 0;
  var current = null;  // the result list on screen: {ids, shown, marks, key}
  var announceTimer = 0;

  // ---- text ------------------------------------------------------------------------------
  function fold(text) {
    return String(text || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  function words(text) {
    return fold(text).split(SPLIT).filter(Boolean);
  }
  // Query words worth searching: no lone ASCII letters or digits, no repeats, no stopwords
  // unless the query has nothing else.
  function queryWords(query) {
    var seen = {}, all = [], content = [];
    words(query).forEach(function (w) {
      if (seen[w] || (w.length === 1 && w.charCodeAt(0) < 128)) return;
      seen[w] = true;
      all.push(w);
      if (!stop[w]) content.push(w);
    });
    return content.length ? content : all;
  }

  // ---- loading ---------------------------------------------------------------------------
  function load(path) {
    var url = new URL(path + "?v=" + meta.hash, metaUrl).href;
    if (!files[url]) {
      files[url] = fetch(url).then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status + " for " + path);
        return response.json();
      });
      files[url].catch(function () { delete files[url]; });
    }
    return files[url];
  }
  function shardIndex(term) {  // the last shard whose first term is <= term
    var lo = 0, hi = meta.shards.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (meta.shards[mid] <= term) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  function prefixShards(prefix) {  // every shard that may hold a term starting with prefix
    var out = [], end = prefix + "\uffff";
    for (var i = shardIndex(prefix); i < meta.shards.length; i++) {
      if (out.length && meta.shards[i] >= end) break;
      out.push(i);
    }
    return out;
  }
  function loadShards(indexes) {
    return Promise.all(indexes.map(function (i) { return load("t/" + i + ".json"); }));
  }
  function letterKey(word) {
    return word.codePointAt(0).toString(16);
  }

  // ---- posting lists ---------------------------------------------------------------------
  function decodeIds(text) {
    if (!text) return EMPTY;
    var out = [], i, v;
    if (text.charAt(0) === "~") {
      for (i = 1; i < text.length; i++) {
        v = VALUE[text.charCodeAt(i)];
        for (var bit = 0; bit < 6; bit++) if (v & (1 << bit)) out.push((i - 1) * 6 + bit);
      }
      return out;
    }
    var last = -1, n = 0, shift = 0;
    for (i = 0; i < text.length; i++) {
      v = VALUE[text.charCodeAt(i)];
      n += (v & 31) * Math.pow(2, shift);
      if (v & 32) { shift += 5; continue; }
      last += n + 1;
      out.push(last);
      n = 0; shift = 0;
    }
    return out;
  }
  function termLists(term, encoded) {
    if (!decoded[term]) decoded[term] = encoded.split(".").map(decodeIds);
    return decoded[term];
  }

  // ---- typo tolerance ----------------------------------------------------------------------
  // True when a and b differ by exactly one insertion, deletion, substitution or swap of
  // two neighbouring letters.
  function oneEdit(a, b) {
    var la = a.length, lb = b.length, i = 0;
    if (Math.abs(la - lb) > 1) return false;
    while (i < la && i < lb && a.charAt(i) === b.charAt(i)) i++;
    if (la === lb) {
      if (i === la) return false;
      if (a.slice(i + 1) === b.slice(i + 1)) return true;
      return a.charAt(i) === b.charAt(i + 1) && a.charAt(i + 1) === b.charAt(i) &&
        a.slice(i + 2) === b.slice(i + 2);
    }
    return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
  }
  // True when term is within one typo of the word, or starts with something that is and
  // ends in the word's last letter (so "model" does not drift to "modern"). A word being
  // typed never matches its own beginning ("rollm" is not a typo for "roll").
  function fuzzyMatch(word, term) {
    if (term.lastIndexOf(word, 0) === 0 || word.lastIndexOf(term, 0) === 0) return false;
    if (term.length <= word.length + 1) return oneEdit(word, term);
    var last = word.charAt(word.length - 1);
    for (var n = word.length - 1; n <= word.length + 1; n++) {
      var head = term.slice(0, n);
      if (head.charAt(n - 1) === last && oneEdit(word, head)) return true;
    }
    return false;
  }

  // ---- matching ----------------------------------------------------------------------------
  // Resolves to [{term, quality, lists}] for one query word.
  function matchWord(word) {
    var wantFuzzy = word.length >= 5 && meta.letters.indexOf(letterKey(word)) >= 0;
    var vocab = wantFuzzy ? load("v/" + letterKey(word) + ".json") : Promise.resolve("");
    return Promise.all([loadShards(prefixShards(word)), vocab]).then(function (loaded) {
      var found = [];
      loaded[0].forEach(function (shard) {
        for (var term in shard) {
          if (term.lastIndexOf(word, 0) === 0) found.push({term: term, quality: 1, encoded: shard[term]});
        }
      });
      var typos = loaded[1] ? loaded[1].split(" ").filter(function (t) { return fuzzyMatch(word, t); }) : [];
      if (!typos.length) return found;
      var needed = {};
      typos.forEach(function (t) { needed[shardIndex(t)] = true; });
      return loadShards(Object.keys(needed).map(Number)).then(function (shards) {
        shards.forEach(function (shard) {
          typos.forEach(function (t) {
            if (shard[t] !== undefined) found.push({term: t, quality: FUZZY, encoded: shard[t]});
          });
        });
        return found;
      });
    }).then(function (found) {
      return found.map(function (m) {
        return {term: m.term, quality: m.quality, lists: termLists(m.term, m.encoded)};
      });
    });
  }

  // Doc numbers that match every word, best first: title hits, then weighted fields, then
  // doc number (papers newest first, then authors with most papers).
  function rank(matches, allowed) {
    var size = meta.docs;
    var count = new Uint8Array(size), score = new Float64Array(size), titles = new Float64Array(size);
    var best = new Float64Array(size), inTitle = new Float64Array(size);
    matches.forEach(function (terms) {
      var touched = [];
      terms.forEach(function (m) {
        m.lists.forEach(function (ids, field) {
          var weight = WEIGHTS[field] * m.quality;
          for (var k = 0; k < ids.length; k++) {
            var id = ids[k];
            if (best[id] === 0) touched.push(id);
            if (weight > best[id]) best[id] = weight;
            if (field === 0 && m.quality > inTitle[id]) inTitle[id] = m.quality;
          }
        });
      });
      touched.forEach(function (id) {
        count[id]++;
        score[id] += best[id];
        titles[id] += inTitle[id];
        best[id] = 0;
        inTitle[id] = 0;
      });
    });
    var hits = [];
    for (var id = 0; id < size; id++) {
      if (count[id] === matches.length && (!allowed || allowed(id))) hits.push(id);
    }
    hits.sort(function (a, b) {
      return (titles[b] - titles[a]) * 1000 + (score[b] - score[a]) || a - b;
    });
    return hits;
  }

  // ---- filters -----------------------------------------------------------------------------
  // Resolves to a predicate on doc numbers, or null when no filter is set. Filters keep
  // papers only: authors have no year or subject.
  function filterFor(subject, year) {
    if (!subject && !year) return Promise.resolve(null);
    var range = [0, meta.papers];
    if (year) {
      var entry = meta.years.filter(function (y) { return String(y[0]) === year; })[0];
      range = entry ? [entry[1], entry[1] + entry[2]] : [0, 0];
    }
    var known = meta.subjects.some(function (s) { return s[0] === subject; });
    var members = !subject ? Promise.resolve(null) :
      !known ? Promise.resolve([]) : load("s/" + subject + ".json").then(decodeIds);
    return members.then(function (ids) {
      var inSubject = null;
      if (ids) {
        inSubject = new Uint8Array(meta.docs);
        ids.forEach(function (id) { inSubject[id] = 1; });
      }
      return function (id) {
        return id >= range[0] && id < range[1] && (!inSubject || inSubject[id] === 1);
      };
    });
  }

  // ---- searching ---------------------------------------------------------------------------
  function settings() {
    return {query: input.value, subject: subjectSelect.value, year: yearSelect.value};
  }
  function run() {
    if (!meta) return;
    var mine = ++sequence;
    var wanted = settings();
    var qwords = queryWords(wanted.query).slice(0, 12);
    form.setAttribute("data-state", "searching");
    if (!qwords.length && !wanted.subject && !wanted.year) {
      show(wanted, qwords, [], []);
      return;
    }
    Promise.all([Promise.all(qwords.map(matchWord)), filterFor(wanted.subject, wanted.year)])
      .then(function (done) {
        if (mine !== sequence) return;
        var matches = done[0], allowed = done[1], ids;
        if (qwords.length) {
          ids = rank(matches, allowed);
        } else {
          ids = [];
          for (var id = 0; id < meta.papers; id++) if (allowed(id)) ids.push(id);
        }
        var marks = matches.map(function (terms, i) {
          return {prefix: qwords[i], typos: terms.filter(function (m) { return m.quality < 1; })
            .map(function (m) { return m.term; })};
        });
        return fetchFragments(ids.slice(0, PAGE)).then(function () {
          if (mine === sequence) show(wanted, qwords, ids, marks);
        });
      })
      .catch(function (error) {
        if (mine === sequence) fail(error);
      });
  }
  function fetchFragments(ids) {
    return Promise.all(ids.map(function (id) {
      if (fragments[id]) return fragments[id];
      return load("d/" + id + ".json").then(function (fragment) { fragments[id] = fragment; });
    }));
  }

  // ---- rendering -------------------------------------------------------------------------
  function show(wanted, qwords, ids, marks) {
    current = {ids: ids, shown: 0, marks: marks};
    list.textContent = "";
    appendResults();
    var filtered = wanted.subject || wanted.year;
    var text = "";
    if (qwords.length || filtered) {
      text = ids.length === 0 ? "No results" : ids.length + (ids.length === 1 ? " result" : " results");
      if (qwords.length) text += " for “" + wanted.query.trim() + "”";
      if (wanted.subject) text += " in " + wanted.subject + " " + (subjectNames[wanted.subject] || "");
      if (wanted.year) text += (wanted.subject ? "," : "") + " from " + wanted.year;
      text += ids.length === 0 ? ". Check the spelling, use fewer words, or clear the filters." : ".";
    } else if (wanted.query.trim()) {
      text = "Keep typing: single letters and words such as “the” are not searched.";
    }
    countEl.textContent = text;
    form.setAttribute("data-state", "done");
    form.setAttribute("data-rendered-query", wanted.query);
    window.clearTimeout(announceTimer);
    announceTimer = window.setTimeout(function () { statusEl.textContent = text; }, 400);
  }
  function appendResults() {
    var next = current.ids.slice(current.shown, current.shown + PAGE);
    next.forEach(function (id) { list.appendChild(resultItem(id, fragments[id], current.marks)); });
    current.shown += next.length;
    moreButton.hidden = current.shown >= current.ids.length;
  }
  function fail(error) {
    countEl.textContent = "The search index could not be loaded (" + error.message + ").";
    statusEl.textContent = countEl.textContent;
    form.setAttribute("data-state", "error");
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function resultItem(id, doc, marks) {
    var li = element("li", "result");
    var link = element("a", "result-title");
    link.href = root + doc.u;
    li.appendChild(link);
    var info = element("p", "result-meta");
    li.appendChild(info);
    if (doc.n !== undefined) {  // an author
      li.className += " result-author";
      link.appendChild(highlight(doc.n, marks));
      info.appendChild(element("span", "result-kind", doc.p ? "Profiled author" : "Author"));
      info.appendChild(document.createTextNode(" · " + doc.c + (doc.c === 1 ? " paper" : " papers")));
      return li;
    }
    link.appendChild(highlight(doc.t, marks));
    info.appendChild(authorLine(doc, marks));
    info.appendChild(document.createTextNode(" · " + (doc.y || "year unknown")));
    doc.s.forEach(function (code) {
      info.appendChild(document.createTextNode(" "));
      var chip = element("span", "chip", code);
      chip.title = subjectNames[code] || code;
      info.appendChild(chip);
    });
    if (doc.b) {
      var snippet = element("p", "result-snippet");
      snippet.appendChild(highlight(excerpt(doc.b, marks), marks));
      li.appendChild(snippet);
    }
    return li;
  }
  // Authors as the site lists them: a truncated list keeps its "et al.", long ones are cut.
  function authorLine(doc, marks) {
    var span = element("span", "result-authors");
    var names = doc.a, listed = doc.e !== undefined ? doc.e : names.length;
    var limit = 8, shown = names.slice(0, Math.min(listed, limit));
    span.appendChild(highlight(shown.join(", "), marks));
    if (listed > limit) {
      span.appendChild(document.createTextNode(" and " + (listed - limit) + " more"));
    } else if (doc.e !== undefined) {
      span.appendChild(document.createTextNode(" et al."));
    }
    var extra = names.slice(listed);
    if (extra.length) {
      span.appendChild(document.createTextNode(doc.e !== undefined && listed ? " (including " : (listed ? ", " : "")));
      span.appendChild(highlight(extra.join(", "), marks));
      if (doc.e !== undefined && listed) span.appendChild(document.createTextNode(")"));
    }
    return span;
  }

  // [how much of the word to mark, bit mask of the query words it matches]
  function tokenMatch(token, marks) {
    var folded = fold(token), length = 0, which = 0;
    marks.forEach(function (mark, i) {
      if (folded.lastIndexOf(mark.prefix, 0) === 0) {
        length = Math.max(length, folded.length === token.length ? mark.prefix.length : token.length);
        which |= 1 << i;
      } else if (mark.typos.some(function (t) { return folded.lastIndexOf(t, 0) === 0; })) {
        length = token.length;
        which |= 1 << i;
      }
    });
    return [length, which];
  }
  function highlight(text, marks) {
    var out = document.createDocumentFragment(), last = 0, match;
    TOKEN.lastIndex = 0;
    while ((match = TOKEN.exec(text)) !== null) {
      var n = tokenMatch(match[0], marks)[0];
      if (!n) continue;
      out.appendChild(document.createTextNode(text.slice(last, match.index)));
      out.appendChild(element("mark", "", text.slice(match.index, match.index + n)));
      last = match.index + n;
    }
    out.appendChild(document.createTextNode(text.slice(last)));
    return out;
  }
  // About 30 words of the abstract: the stretch that matches the most query words.
  function excerpt(text, marks) {
    var tokens = [], which = [], match, SIZE = 30;
    TOKEN.lastIndex = 0;
    while ((match = TOKEN.exec(text)) !== null) {
      tokens.push(match);
      which.push(tokenMatch(match[0], marks)[1]);
    }
    if (tokens.length <= SIZE) return text;
    var start = 0, best = 0;
    for (var i = 0; i < tokens.length; i++) {
      if (!which[i]) continue;
      var from = Math.max(0, Math.min(i - 6, tokens.length - SIZE)), seen = 0, count = 0;
      for (var k = from; k < from + SIZE; k++) seen |= which[k];
      for (; seen; seen &= seen - 1) count++;
      if (count > best) { best = count; start = from; }
    }
    var end = Math.min(tokens.length, start + SIZE);
    var head = start === 0 ? 0 : tokens[start].index;
    var tail = end === tokens.length ? text.length : tokens[end - 1].index + tokens[end - 1][0].length;
    return (start ? "… " : "") + text.slice(head, tail) + (end < tokens.length ? " …" : "");
  }

  // ---- the URL holds the query and filters -----------------------------------------------
  function readUrl() {
    var params = new URL(window.location.href).searchParams;
    input.value = params.get("q") || "";
    subjectSelect.value = params.get("subject") || "";
    yearSelect.value = params.get("year") || "";
  }
  // Typing only replaces the URL once the reader pauses (the History API is slow, and
  // browsers throttle it); a filter change or Enter adds a history entry at once.
  var urlTimer = 0;
  function writeUrlSoon() {
    window.clearTimeout(urlTimer);
    urlTimer = window.setTimeout(function () { writeUrl(false); }, 300);
  }
  function writeUrl(push) {
    window.clearTimeout(urlTimer);
    urlTimer = 0;
    var url = new URL(window.location.href), now = settings();
    [["q", now.query], ["subject", now.subject], ["year", now.year]].forEach(function (pair) {
      if (pair[1]) url.searchParams.set(pair[0], pair[1]); else url.searchParams.delete(pair[0]);
    });
    if (url.href !== window.location.href) history[push ? "pushState" : "replaceState"](null, "", url.href);
  }

  // ---- keyboard: arrows move between the box and the results -----------------------------
  function resultLinks() {
    return Array.prototype.slice.call(list.querySelectorAll("a.result-title"));
  }
  input.addEventListener("keydown", function (event) {
    if (event.key !== "ArrowDown") return;
    var links = resultLinks();
    if (links.length) { event.preventDefault(); links[0].focus(); }
  });
  list.addEventListener("keydown", function (event) {
    var links = resultLinks(), i = links.indexOf(document.activeElement);
    if (i < 0) return;
    if (event.key === "ArrowDown" && i + 1 < links.length) links[i + 1].focus();
    else if (event.key === "ArrowDown" && !moreButton.hidden) moreButton.focus();
    else if (event.key === "ArrowUp") (i ? links[i - 1] : input).focus();
    else if (event.key === "Escape") input.focus();
    else return;
    event.preventDefault();
  });
  moreButton.addEventListener("keydown", function (event) {
    var links = resultLinks();
    if (event.key === "ArrowUp" && links.length) { event.preventDefault(); links[links.length - 1].focus(); }
  });

  // ---- wiring ------------------------------------------------------------------------------
  moreButton.addEventListener("click", function () {
    var first = current.shown;
    fetchFragments(current.ids.slice(first, first + PAGE)).then(function () {
      appendResults();
      var links = resultLinks();
      if (links[first]) links[first].focus();
    }, fail);
  });
  input.addEventListener("input", function () { run(); writeUrlSoon(); });
  // Leaving for a result: the URL must hold the query first, so that Back returns to it.
  function flushUrl() { if (urlTimer) writeUrl(false); }
  list.addEventListener("click", flushUrl, true);
  list.addEventListener("keydown", function (event) { if (event.key === "Enter") flushUrl(); }, true);
  window.addEventListener("pagehide", flushUrl);
  [subjectSelect, yearSelect].forEach(function (select) {
    select.addEventListener("change", function () { run(); writeUrl(true); });
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); writeUrl(true); });
  window.addEventListener("popstate", function () { readUrl(); run(); });

  function fillFilters() {
    meta.subjects.forEach(function (s) {
      subjectNames[s[0]] = s[1];
      var option = element("option", "", s[0] + " · " + s[1]);
      option.value = s[0];
      subjectSelect.appendChild(option);
    });
    meta.years.forEach(function (y) {
      if (y[0] === null) return;
      var option = element("option", "", String(y[0]));
      option.value = String(y[0]);
      yearSelect.appendChild(option);
    });
    form.querySelector(".search-filters").hidden = false;
  }

  readUrl();
  if (input.value) countEl.textContent = "Loading the search index…";
  form.setAttribute("data-state", "loading");
  fetch(metaUrl.href, {cache: "no-cache"})
    .then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    })
    .then(function (manifest) {
      meta = manifest;
      meta.stopwords.forEach(function (w) { stop[w] = true; });
      fillFilters();
      readUrl();
      if (!input.value) countEl.textContent = "";
      run();
    })
    .catch(fail);
})();
