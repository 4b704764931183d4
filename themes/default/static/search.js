//# allFunctionsCalledOnLoad
// (V8's compile hint, first line only: compile every function as the file loads, not the
// first query's functions on the main thread while a reader waits for results.)
// site-gen search page. Loads a small manifest, then for each query only the term shards,
// vocabularies and result fragments it needs (format: docs/search.md). No dependencies.
// Every query word must match a word of the title, authors, subjects or abstract: the same
// word or another form of it (Snowball stems), or a word it starts; when that finds fewer
// than a page of results, words of 5+ letters also match with one typo. Results are ranked
// by BM25F over the four fields. Text from the index is only ever inserted with textContent
// or createTextNode. In node (no document), the file exports its stemmer for the tests.
(function () {
  "use strict";
  // ---- stemming: Snowball English (Porter2), as snowballstemmer 3 stems at build time ------
  /*! The stemmer is a port of Snowball's english.sbl. Copyright (c) 2001, Dr Martin Porter;
      (c) 2004,2005, Richard Boulton; (c) 2013, Yoshiki Shibukawa; (c) 2006-2025, Olly Betts.
      BSD 3-clause licence: https://snowballstem.org/license.html */
  // For folded ASCII words; other words are left as they are, on both sides.
  // tests/test_search_stem.py runs it on every word of the demo and a generated corpus
  // against the Python library.
  var stem = (function () {
    var VOWEL = {a: 1, e: 1, i: 1, o: 1, u: 1, y: 1};
    var WXY = {a: 1, e: 1, i: 1, o: 1, u: 1, y: 1, w: 1, x: 1, Y: 1};
    var VALID_LI = {c: 1, d: 1, e: 1, g: 1, h: 1, k: 1, m: 1, n: 1, r: 1, t: 1};
    var EXCEPTIONS = {skis: "ski", skies: "sky", idly: "idl", gently: "gentl", ugly: "ugli",
      early: "earli", only: "onli", singly: "singl", andes: "andes", atlas: "atlas",
      bias: "bias", cosmos: "cosmos", howe: "howe", news: "news", sky: "sky"};
    var PREFIXES = ["arsen", "commun", "emerg", "gener", "inter", "later", "organ", "past",
      "univers"];
    var STEP2 = {tional: "tion", enci: "ence", anci: "ance", abli: "able", entli: "ent",
      izer: "ize", ization: "ize", ational: "ate", ation: "ate", ator: "ate", alism: "al",
      aliti: "al", alli: "al", fulness: "ful", fulli: "ful", ousli: "ous", ousness: "ous",
      iveness: "ive", iviti: "ive", biliti: "ble", bli: "ble", ogist: "og", lessli: "less",
      ogi: "og", li: ""};
    var STEP3 = {tional: "tion", ational: "ate", alize: "al", icate: "ic", iciti: "ic",
      ical: "ic", ful: "", ness: "", ative: ""};
    var STEP4 = ["ic", "ance", "ence", "able", "ible", "ate", "ive", "ize", "iti", "al", "ism",
      "er", "ous", "ant", "ent", "ment", "ement", "ion"];
    var ASCII_WORD = /^[a-z0-9]+$/;

    function ends(s, suffix) {
      return s.length >= suffix.length && s.slice(s.length - suffix.length) === suffix;
    }
    function longest(s, suffixes) {  // the longest of suffixes that s ends with, or ""
      var best = "";
      for (var i = 0; i < suffixes.length; i++) {
        if (suffixes[i].length > best.length && ends(s, suffixes[i])) best = suffixes[i];
      }
      return best;
    }
    function hasVowel(s) {
      for (var i = 0; i < s.length; i++) if (VOWEL[s.charAt(i)]) return true;
      return false;
    }
    function afterVowelConsonant(s, from) {  // just past the first non-vowel after a vowel
      var i = from;
      while (i < s.length && !VOWEL[s.charAt(i)]) i++;
      for (i++; i < s.length && VOWEL[s.charAt(i)]; i++);
      return i < s.length ? i + 1 : -1;
    }
    function shortSyllable(s) {
      var n = s.length, last = s.charAt(n - 1), before = s.charAt(n - 2);
      if (n >= 3 && !WXY[last] && VOWEL[before] && !VOWEL[s.charAt(n - 3)]) return true;
      if (n === 2 && !VOWEL[last] && VOWEL[before]) return true;
      return ends(s, "past");
    }
    function step1a(s) {
      if (ends(s, "sses")) return s.slice(0, -2);
      if (ends(s, "ied") || ends(s, "ies")) return s.slice(0, -3) + (s.length > 4 ? "i" : "ie");
      if (ends(s, "ss") || ends(s, "us") || !ends(s, "s")) return s;
      return hasVowel(s.slice(0, -2)) ? s.slice(0, -1) : s;
    }
    function step1b(s, p1) {
      var suffix = longest(s, ["eedly", "ingly", "edly", "eed", "ing", "ed"]);
      if (!suffix) return s;
      var head = s.slice(0, s.length - suffix.length);
      if (suffix === "eed" || suffix === "eedly") {
        if (head.length < p1 || head === "succ" || head === "proc" || head === "exc") return s;
        return head + "ee";
      }
      if (suffix === "ing") {
        var special = longest(head, ["even", "cann", "inn", "earr", "herr", "out", "y"]);
        if (special === "y" && head.length === 2 && !VOWEL[head.charAt(0)]) {
          return head.charAt(0) + "ie";
        }
        if (special && special !== "y" && head.length === special.length) return s;
      }
      if (!hasVowel(head)) return s;
      if (ends(head, "at") || ends(head, "bl") || ends(head, "iz")) return head + "e";
      if (/(bb|dd|ff|gg|mm|nn|pp|rr|tt)$/.test(head)) {
        if (head.length === 3 && "aeo".indexOf(head.charAt(0)) >= 0) return head;
        return head.slice(0, -1);
      }
      if (head.length === p1 && shortSyllable(head)) return head + "e";
      return head;
    }
    function step1c(s) {
      var n = s.length, last = s.charAt(n - 1);
      if ((last === "y" || last === "Y") && n > 2 && !VOWEL[s.charAt(n - 2)]) {
        return s.slice(0, -1) + "i";
      }
      return s;
    }
    function step2(s, p1) {
      var suffix = longest(s, Object.keys(STEP2));
      var head = s.slice(0, s.length - suffix.length);
      if (!suffix || head.length < p1) return s;
      if (suffix === "ogi" && !ends(head, "l")) return s;
      if (suffix === "li" && !VALID_LI[head.charAt(head.length - 1)]) return s;
      return head + STEP2[suffix];
    }
    function step3(s, p1, p2) {
      var suffix = longest(s, Object.keys(STEP3));
      var head = s.slice(0, s.length - suffix.length);
      if (!suffix || head.length < p1 || (suffix === "ative" && head.length < p2)) return s;
      return head + STEP3[suffix];
    }
    function step4(s, p2) {
      var suffix = longest(s, STEP4);
      var head = s.slice(0, s.length - suffix.length);
      if (!suffix || head.length < p2) return s;
      if (suffix === "ion" && !ends(head, "s") && !ends(head, "t")) return s;
      return head;
    }
    function step5(s, p1, p2) {
      var head = s.slice(0, -1);
      if (ends(s, "e")) {
        if (head.length >= p2 || (head.length >= p1 && !shortSyllable(head))) return head;
      } else if (ends(s, "l") && head.length >= p2 && ends(head, "l")) {
        return head;
      }
      return s;
    }
    return function (word) {
      if (!ASCII_WORD.test(word)) return word;
      if (Object.prototype.hasOwnProperty.call(EXCEPTIONS, word)) return EXCEPTIONS[word];
      if (word.length < 3) return word;
      var s = word.charAt(0) === "y" ? "Y" : word.charAt(0);
      for (var i = 1; i < word.length; i++) {
        var c = word.charAt(i);
        s += c === "y" && VOWEL[s.charAt(i - 1)] ? "Y" : c;
      }
      var p1 = -1, p2;
      for (i = 0; i < PREFIXES.length; i++) {
        if (s.lastIndexOf(PREFIXES[i], 0) === 0) p1 = PREFIXES[i].length;
      }
      if (p1 < 0) p1 = afterVowelConsonant(s, 0);
      p2 = p1 < 0 ? -1 : afterVowelConsonant(s, p1);
      if (p1 < 0) p1 = s.length;
      if (p2 < 0) p2 = s.length;
      s = step1c(step1b(step1a(s), p1));
      s = step5(step4(step3(step2(s, p1), p1, p2), p2), p1, p2);
      return s.replace(/Y/g, "y");
    };
  })();

  if (typeof document === "undefined") {
    if (typeof module !== "undefined") module.exports = {stem: stem};
    return;
  }
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
  var SPECULATE = 8000;  // bytes: a vocabulary this small is fetched before it is needed
  // BM25F: a field's weight times how strongly it holds the term (its level: as usual,
  // strongly, weakly), times how well the term matches the query word; saturated by K1.
  var WEIGHTS = [4, 3, 1.5, 1];  // title (an author's name), authors, subjects, abstract
  var LEVELS = [1, 2, 0.5];
  var K1 = 1.2;
  var EXACT = 1, PREFIX = 0.5, ENDING = 0.3, TYPO = 0.3;
  // Endings a word being typed may have begun past its stem ("scali" of scaling, stem scale).
  var ENDINGS = ("s es ed edly ing ingly ly er ers est ation ations ational ize izes ized " +
    "izing ization izations ise ised ising isation ment ments ness ity ities ive ives ively al " +
    "ally ous ously ence ences ance ances able ably ible ful less ism isms ist ists ent ant ic " +
    "ical ically ion ions ional y ies ied e ate ates ated ating ator ators").split(" ");
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
  var ASCII = /^[\x00-\x7f]*$/;
  function fold(text) {
    text = String(text || "");
    if (ASCII.test(text)) return text.toLowerCase();  // most text, and NFKD leaves it as it is
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
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
  function fileUrl(path) {
    return new URL(path + "?v=" + meta.hash, metaUrl).href;
  }
  function load(path) {
    var url = fileUrl(path);
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
    var code = word.codePointAt(0);
    return code < 128 ? code.toString(16) : "x";
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
  // [{slot: field * 4 + level, ids}] of a term's non-empty lists.
  function termLists(term, encoded) {
    if (!decoded[term]) {
      var lists = [];
      encoded.split(".").forEach(function (field, f) {
        field.split(",").forEach(function (text, level) {
          if (text) lists.push({slot: f * 4 + level, ids: decodeIds(text)});
        });
      });
      decoded[term] = lists;
    }
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
  // True when word is term followed by the beginning of an ending: the word is still being
  // typed past its stem (term "scale" or "learn", word "scali" or "learni").
  function completes(word, term) {
    var base = /[ei]$/.test(term) ? term.slice(0, -1) : term;
    if (base.length < 3 || word.length <= base.length || word.lastIndexOf(base, 0) !== 0) return false;
    return startsEnding(word.slice(base.length));
  }
  function startsEnding(text) {  // "s" or "ati" ("ation"), not "ts"
    return ENDINGS.some(function (ending) { return ending.lastIndexOf(text, 0) === 0; });
  }
  // True when the word, or its beginning followed by an ending, is within one typo of term.
  function typoOf(word, root, term) {
    if (fuzzyMatch(word, term) || (root !== word && fuzzyMatch(root, term))) return true;
    for (var n = term.length - 1; n <= term.length + 1 && n < word.length; n++) {
      if (n >= 4 && oneEdit(word.slice(0, n), term) && completes(term + word.slice(n), term)) return true;
    }
    return false;
  }
  // Every shard that may hold a term the word is (or its stem), starts, or completes: the
  // shards of the word's beginnings that the beginning of an ending follows ("prompt" and
  // "prompte" of "prompts"), not every shard between its first letters and itself.
  function wordShards(word, root) {
    var wanted = {};
    prefixShards(word).concat(prefixShards(root)).forEach(function (i) { wanted[i] = true; });
    for (var n = 3; n < word.length; n++) {
      if (!startsEnding(word.slice(n))) continue;
      var base = word.slice(0, n);
      wanted[shardIndex(base)] = wanted[shardIndex(base + "e")] = wanted[shardIndex(base + "i")] = true;
    }
    return Object.keys(wanted).map(Number);
  }
  // Resolves to [{term, quality, lists}] for one query word: the terms it is (its stem, or
  // itself in names), the terms it starts, and (withTypos) those within one typo.
  function matchWord(word, withTypos) {
    var root = stem(word);
    var wantTypos = withTypos && word.length >= 5 && meta.letters.indexOf(letterKey(word)) >= 0;
    var vocab = wantTypos ? load("v/" + letterKey(word) + ".json") : Promise.resolve("");
    return Promise.all([loadShards(wordShards(word, root)), vocab]).then(function (loaded) {
      var found = [], seen = {};
      loaded[0].forEach(function (shard) {
        for (var term in shard) {
          if (seen[term]) continue;
          var quality = term === word || term === root ? EXACT :
            term.lastIndexOf(word, 0) === 0 || term.lastIndexOf(root, 0) === 0 ? PREFIX :
            completes(word, term) ? ENDING : 0;
          if (quality) {
            seen[term] = true;
            found.push({term: term, quality: quality, encoded: shard[term]});
          }
        }
      });
      var typos = loaded[1] ? loaded[1].split(" ").filter(function (t) {
        return !seen[t] && typoOf(word, root, t);
      }) : [];
      if (!typos.length) return found;
      var needed = {};
      typos.forEach(function (t) { needed[shardIndex(t)] = true; });
      return loadShards(Object.keys(needed).map(Number)).then(function (shards) {
        shards.forEach(function (shard) {
          typos.forEach(function (t) {
            if (shard[t] !== undefined) found.push({term: t, quality: TYPO, encoded: shard[t]});
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

  // Doc numbers that match every query word, best first: BM25F, the sum over the query
  // words of idf times the saturated weighted frequency (per field the best matching term),
  // then doc number (papers newest first, then authors with most papers). When less than a
  // page match every word, those that match fewer follow, most words first; hits.full says
  // how many match every word, hits.df how many each word matches on its own.
  function rank(matches, allowed) {
    var size = meta.numbers;
    var count = new Uint8Array(size), score = new Float64Array(size), dfs = [];
    var best = new Float64Array(size * 4), mark = new Uint8Array(size);
    matches.forEach(function (terms) {
      var touched = [];
      terms.forEach(function (m) {
        m.lists.forEach(function (list) {
          var ids = list.ids, field = list.slot >> 2;
          var weight = WEIGHTS[field] * LEVELS[list.slot & 3] * m.quality;
          for (var k = 0; k < ids.length; k++) {
            var id = ids[k], at = id * 4 + field;
            if (!mark[id]) { mark[id] = 1; touched.push(id); }
            if (weight > best[at]) best[at] = weight;
          }
        });
      });
      var df = touched.length;
      dfs.push(df);
      var idf = Math.log(1 + (meta.docs - df + 0.5) / (df + 0.5));
      touched.forEach(function (id) {
        var at = id * 4, tf = best[at] + best[at + 1] + best[at + 2] + best[at + 3];
        best[at] = best[at + 1] = best[at + 2] = best[at + 3] = 0;
        mark[id] = 0;
        count[id]++;
        score[id] += idf * tf * (K1 + 1) / (K1 + tf);
      });
    });
    var hits = [], some = [];
    for (var id = 0; id < size; id++) {
      if (!count[id] || (allowed && !allowed(id))) continue;
      (count[id] === matches.length ? hits : some).push(id);
    }
    var order = function (a, b) { return count[b] - count[a] || score[b] - score[a] || a - b; };
    var full = hits.length;
    var ranked = firstInOrder(full < PAGE ? hits.concat(some) : hits, PAGE, order);
    ranked.full = full;
    ranked.df = dfs;
    return ranked;
  }
  // The ids with the best n first, in order, and the others after them unordered
  // (ids.ordered: how many are in order; inOrder sorts the others once they are shown): a
  // first page out of thousands of matches costs one pass instead of a sort of them all.
  function firstInOrder(ids, n, order) {
    var best = [], rest = [];
    for (var i = 0; i < ids.length; i++) {
      var id = ids[i];
      if (best.length === n) {
        if (order(id, best[n - 1]) > 0) { rest.push(id); continue; }
        rest.push(best.pop());
      }
      var at = best.length;
      while (at > 0 && order(id, best[at - 1]) < 0) at--;
      best.splice(at, 0, id);
    }
    var out = best.concat(rest);
    out.ordered = best.length;
    out.order = order;
    return out;
  }
  function inOrder(ids) {
    if (ids.order && ids.ordered < ids.length) {
      var rest = ids.slice(ids.ordered).sort(ids.order);
      for (var i = 0; i < rest.length; i++) ids[ids.ordered + i] = rest[i];
      ids.ordered = ids.length;
    }
    return ids;
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
    // Doc numbers leave room (numbers that hold no document): a year's range holds some, so a
    // year alone keeps the numbers of papers.json.
    var known = meta.subjects.some(function (s) { return s[0] === subject; });
    var members = !subject ? load("papers.json").then(decodeIds) :
      !known ? Promise.resolve([]) : load("s/" + subject + ".json").then(decodeIds);
    return members.then(function (ids) {
      var inSubject = null;
      if (ids) {
        inSubject = new Uint8Array(meta.numbers);
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
      show(wanted, qwords, [], [], 0);
      return;
    }
    var filter = filterFor(wanted.subject, wanted.year);
    function results(typoWords) {
      var matched = Promise.all(qwords.map(function (w) {
        return matchWord(w, typoWords.indexOf(w) >= 0);
      }));
      return Promise.all([matched, filter]).then(function (done) {
        var matches = done[0], allowed = done[1], ids = [];
        if (qwords.length) {
          ids = rank(matches, allowed);
        } else {
          for (var id = 0; id < meta.papers; id++) if (allowed(id)) ids.push(id);
        }
        return {matches: matches, ids: ids, full: qwords.length ? ids.full : ids.length,
                df: ids.df || []};
      });
    }
    // Typos are looked for only when less than a page matches every word as typed, and
    // only for the words that find less than a page on their own (a word that finds ten
    // papers is taken as meant). A small vocabulary they need is fetched beside the word's
    // shards when those are fetched, so that it is there if they are (a typo's results
    // waited for one round trip more: the slowest first queries). A word whose shards are
    // loaded costs no request for it.
    var typos = qwords.filter(function (w) {
      return w.length >= 5 && meta.letters.indexOf(letterKey(w)) >= 0;
    });
    typos.forEach(function (w) {
      var fetching = wordShards(w, stem(w)).some(function (i) {
        return !files[fileUrl("t/" + i + ".json")];
      });
      if (fetching && meta.vocabularies[meta.letters.indexOf(letterKey(w))] <= SPECULATE) {
        load("v/" + letterKey(w) + ".json");
      }
    });
    results([])
      .then(function (found) {
        var retry = typos.filter(function (w) { return found.df[qwords.indexOf(w)] < PAGE; });
        return mine === sequence && found.full < PAGE && retry.length ? results(retry) : found;
      })
      .then(function (found) {
        if (mine !== sequence) return;
        var marks = found.matches.map(function (terms, i) {
          var matched = {}, firsts = {};
          terms.forEach(function (m) { matched[m.term] = true; firsts[m.term.charAt(0)] = true; });
          return {prefix: qwords[i], terms: matched, firsts: firsts};
        });
        return fetchFragments(found.ids.slice(0, PAGE)).then(function () {
          if (mine === sequence) show(wanted, qwords, found.ids, marks, found.full);
        });
      })
      .catch(function (error) {
        if (mine === sequence) fail(error);
      });
  }
  // Fragments come in files of meta.groups[0] papers or meta.groups[1] authors.
  function fetchFragments(ids) {
    return Promise.all(ids.map(function (id) {
      if (fragments[id]) return null;
      var paper = id < meta.papers, size = meta.groups[paper ? 0 : 1];
      var number = Math.floor((paper ? id : id - meta.papers) / size);
      var first = (paper ? 0 : meta.papers) + number * size;
      return load((paper ? "d/" : "a/") + number + ".json").then(function (group) {
        group.forEach(function (fragment, i) { fragments[first + i] = fragment; });
      });
    }));
  }

  // ---- rendering -------------------------------------------------------------------------
  // full: how many of ids match every query word (the others follow them).
  function show(wanted, qwords, ids, marks, full) {
    current = {ids: ids, shown: 0, marks: marks};
    list.textContent = "";
    appendResults();
    var filtered = wanted.subject || wanted.year;
    var text = "";
    if (qwords.length || filtered) {
      var some = ids.length - full;
      text = ids.length === 0 ? "No results" : full + (full === 1 ? " result" : " results");
      if (qwords.length) text += " for “" + wanted.query.trim() + "”";
      if (wanted.subject) text += " in " + wanted.subject + " " + (subjectNames[wanted.subject] || "");
      if (wanted.year) text += (wanted.subject ? "," : "") + " from " + wanted.year;
      if (some) text += ", then " + some + (some === 1 ? " that matches" : " that match") + " some of the words";
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
    var ids = current.shown ? inOrder(current.ids) : current.ids;
    var next = ids.slice(current.shown, current.shown + PAGE);
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
    if (doc.x) {  // the abstract's opening, cut at a word end when building
      var snippet = element("p", "result-snippet");
      snippet.appendChild(highlight(doc.x, marks));
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

  // How much of a word to mark: the query word it starts with, or all of a word that is
  // another form of a matched term (its stem is the term) or begins with a typo's term.
  // A stem keeps its word's first letter, so a token is stemmed (at most once) only when a
  // matched term starts as it does: most tokens of a result are not, and stemming them all
  // was a good part of a first query's time.
  function markLength(token, marks) {
    var folded = fold(token), length = 0, stemmed = null;
    marks.forEach(function (mark) {
      if (folded.lastIndexOf(mark.prefix, 0) === 0) {
        length = Math.max(length, folded.length === token.length ? mark.prefix.length : token.length);
      } else if (mark.terms[folded] || (mark.firsts[folded.charAt(0)] &&
                 mark.terms[stemmed === null ? (stemmed = stem(folded)) : stemmed])) {
        length = token.length;
      }
    });
    return length;
  }
  function highlight(text, marks) {
    var out = document.createDocumentFragment(), last = 0, match;
    TOKEN.lastIndex = 0;
    while ((match = TOKEN.exec(text)) !== null) {
      var n = markLength(match[0], marks);
      if (!n) continue;
      out.appendChild(document.createTextNode(text.slice(last, match.index)));
      out.appendChild(element("mark", "", text.slice(match.index, match.index + n)));
      last = match.index + n;
    }
    out.appendChild(document.createTextNode(text.slice(last)));
    return out;
  }

  // ---- getting ready while idle -----------------------------------------------------------
  // A first query's results come in up to ten requests at once. Over HTTP/1.1 a browser
  // opens up to six connections to a host and the page's own files opened fewer: while
  // idle, the page opens them (requests for the manifest's headers, which have no body).
  // Over HTTP/2 they share one connection.
  function connect() {
    for (var i = 0; i < 6; i++) {
      fetch(metaUrl.href, {method: "HEAD", cache: "no-store"})
        .then(function (response) { return response.text(); })  // else "aborted"
        .catch(function () {});
    }
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
    fetchFragments(inOrder(current.ids).slice(first, first + PAGE)).then(function () {
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
      (window.requestIdleCallback || window.setTimeout)(connect);
    })
    .catch(fail);
})();
