#!/usr/bin/env python3
"""Search speed and payload of site-gen's search page next to Pagefind and Lunr, in Chromium.

    python3 benchmarks/search_bench.py [--papers 10000] [--seed 1] [--queries 50]
                                       [--work benchmarks/out] [--peers pagefind,lunr]
                                       [--baseline SITE] [--rounds 1] [--fetch-cost]

1. generates the corpus (benchmarks/gen_corpus.py) and builds it with site-gen;
2. installs the peers from npm into WORK/node (``pagefind`` ships its indexer binary inside
   the npm package; ``lunr`` is the library MkDocs' search uses) and indexes the same
   documents with each: one record per paper with its title, authors, subjects and abstract;
3. serves everything from one 127.0.0.1 origin (a minimal node static server: keep-alive, no
   compression) and, in headless Debian Chromium, for each
   engine and each of the queries:
   * cold: a fresh browser context opens the search page, waits until it is ready and the
     network has been idle for half a second (a reader looks before typing), types the
     query as one input event and waits for the first 10 results to be on screen; it records
     the bytes downloaded from navigation to that moment, and the time from the input event;
   * warm: on one open page, types every query letter by letter, timing each keystroke from
     the input event to the rendered results of that prefix.

``--baseline SITE`` measures a site built from the same corpus by other code (another commit's
site-gen) beside this one, as the engine "baseline"; ``--rounds N`` measures every engine N
times, in turn (baseline, site-gen, peers, baseline, ...), so that a load spike on the shared
machine weighs on all of them, and pools the N runs.

``--fetch-cost`` measures only what requests cost a fresh search page here: 1 to 10
fragment files fetched at once (a first query's results wait for 10), the median time to the
last one parsed. It tells how much of a first query is its number of requests.

Prints one table and writes WORK/results.json. Bytes are response bodies as served here
(no HTTP compression); the "gzip" column is what the same files weigh gzipped (as GitHub
Pages sends them; Pagefind's index files are already compressed and count as they are).
Not a test: nothing is asserted. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "browser"))

PEER_VERSIONS = {"pagefind": "1.6.0", "lunr": "2.3.9"}
SHOWN = 10
"""Results each engine puts on screen: what a reader sees first."""


@dataclass
class Engine:
    """One search implementation as the benchmark drives it."""

    name: str
    url: str
    cold_ms: list[float] = field(default_factory=list)
    cold_bytes: list[int] = field(default_factory=list)
    cold_gzip: list[int] = field(default_factory=list)
    ready_ms: list[float] = field(default_factory=list)
    key_ms: list[float] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


# ---- preparing ------------------------------------------------------------------------------

def run(cmd: list[str], **kwargs: object) -> None:
    """Run a command, failing loudly with its output."""
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")


def build_corpus(work: Path, papers: int, seed: int) -> tuple[Path, object]:
    """Generate and build the corpus; returns the site folder and the catalog."""
    from site_gen.incremental.builder import Builder

    project = work / f"corpus-{papers}-{seed}"
    if not (project / "content").is_dir():
        run([sys.executable, str(HERE / "gen_corpus.py"), str(papers), "--seed", str(seed),
             "--out", str(project), "--no-hugo"])
    started = time.perf_counter()
    result = Builder(project).build()
    if not result.ok:
        sys.exit("\n".join(map(str, result.diagnostics[:20])))
    print(f"built {result.pages} pages in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return project / "_site", result.catalog


def install_peers(work: Path, peers: list[str]) -> Path:
    """npm install the peers (pinned) into WORK/node; returns its node_modules."""
    prefix = work / "node"
    missing = [p for p in peers if not (prefix / "node_modules" / p / "package.json").is_file()]
    if missing:
        run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save",
             "--loglevel=error", *(f"{p}@{PEER_VERSIONS[p]}" for p in missing)])
    return prefix / "node_modules"


def peer_documents(catalog: object) -> list[dict[str, object]]:
    """The papers as plain records: the same text site-gen's index holds."""
    from site_gen.outputs.search import ordered_papers, search_docs

    docs = search_docs(catalog)  # type: ignore[arg-type]
    names = {s.code: s.name for s in catalog.subjects}  # type: ignore[attr-defined]
    out = []
    for paper, doc in zip(ordered_papers(catalog), docs):  # type: ignore[arg-type]
        f = doc.fragment
        out.append({"url": "/site/" + str(f["u"]), "title": f["t"], "authors": f["a"],
                    "year": f["y"], "subjects": [f"{c} {names[c]}" for c in f["s"]],
                    "abstract": doc.fields[3], "id": paper.id})
    return out


PAGEFIND_INDEXER = """
import * as pagefind from "pagefind";
import fs from "fs";
const docs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");
const { index } = await pagefind.createIndex({});
for (const d of docs) {
  const html = `<html lang="en"><body><h1>${esc(d.title)}</h1><p>${esc(d.authors.join(", "))}</p>` +
    `<p>${esc(d.subjects.join(", "))}</p><p>${esc(d.abstract)}</p>` +
    `<span data-pagefind-filter="year">${d.year || "unknown"}</span>` +
    d.subjects.map((s) => `<span data-pagefind-filter="subject">${esc(s.split(" ")[0])}</span>`).join("") +
    `</body></html>`;
  const added = await index.addHTMLFile({ url: d.url, content: html });
  if (added.errors.length) { console.error(added.errors); process.exit(1); }
}
const written = await index.writeFiles({ outputPath: process.argv[3] });
if (written.errors.length) { console.error(written.errors); process.exit(1); }
await pagefind.close();
"""

PAGEFIND_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Pagefind</title></head><body>
<input id="q" type="search" aria-label="Search"><p id="count"></p><ol id="results"></ol>
<script type="module">
const pagefind = await import("./pagefind/pagefind.js");
await pagefind.init();
const input = document.getElementById("q"), list = document.getElementById("results");
let sequence = 0;
async function show() {
  const mine = ++sequence, query = input.value;
  const search = await pagefind.search(query);
  const data = await Promise.all(search.results.slice(0, SHOWN).map((r) => r.data()));
  if (mine !== sequence) return;
  list.textContent = "";
  for (const d of data) {
    const li = document.createElement("li"), a = document.createElement("a");
    a.href = d.url; a.textContent = d.meta.title;
    const p = document.createElement("p"); p.innerHTML = d.excerpt;  // Pagefind's own excerpt markup
    li.append(a, p); list.append(li);
  }
  document.getElementById("count").textContent = search.results.length + " results";
  document.body.dataset.count = search.results.length;
  document.body.dataset.rendered = query;
}
input.addEventListener("input", show);
document.body.dataset.ready = "1";
</script></body></html>
""".replace("SHOWN", str(SHOWN))

LUNR_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Lunr</title></head><body>
<input id="q" type="search" aria-label="Search"><p id="count"></p><ol id="results"></ol>
<script src="lunr/lunr.min.js"></script>
<script>
// As MkDocs' search does: fetch search_index.json, build the index in the browser.
fetch("lunr/search_index.json").then((r) => r.json()).then((data) => {
  const docs = {};
  const index = lunr(function () {
    this.ref("location"); this.field("title", { boost: 10 }); this.field("text");
    for (const doc of data.docs) { this.add(doc); docs[doc.location] = doc; }
  });
  const input = document.getElementById("q"), list = document.getElementById("results");
  input.addEventListener("input", () => {
    const query = input.value;
    // Prefix matching as ours does: every word with a trailing wildcard.
    const terms = query.toLowerCase().split(/[^\\p{L}\\p{N}]+/u).filter(Boolean).map((t) => t + "*");
    let results = [];
    try { results = terms.length ? index.search(terms.join(" ")) : []; } catch (e) { results = []; }
    list.textContent = "";
    for (const r of results.slice(0, SHOWN)) {
      const d = docs[r.ref], li = document.createElement("li"), a = document.createElement("a");
      a.href = d.location; a.textContent = d.title;
      const p = document.createElement("p"); p.textContent = d.text.slice(0, 200);
      li.append(a, p); list.append(li);
    }
    document.getElementById("count").textContent = results.length + " results";
    document.body.dataset.count = results.length;
    document.body.dataset.rendered = query;
  });
  document.body.dataset.ready = "1";
});
</script></body></html>
""".replace("SHOWN", str(SHOWN))


STATIC_SERVER = """
// A minimal static file server for the benchmark: keep-alive, no compression, no caching
// headers beyond no-cache, so every engine's files travel the same way.
import http from "node:http"; import fs from "node:fs"; import path from "node:path";
const root = path.resolve(process.argv[2]);
const types = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
  ".json": "application/json", ".svg": "image/svg+xml", ".wasm": "application/wasm"};
const server = http.createServer((req, res) => {
  const urlPath = decodeURIComponent(new URL(req.url, "http://x").pathname);
  let file = path.join(root, path.normalize(urlPath));
  if (!file.startsWith(root)) { res.writeHead(403); res.end(); return; }
  fs.stat(file, (err, stat) => {
    if (!err && stat.isDirectory()) file = path.join(file, "index.html");
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404, {"Content-Type": "text/plain"}); res.end("not found"); return; }
      res.writeHead(200, {"Content-Type": types[path.extname(file)] || "application/octet-stream",
                          "Content-Length": data.length, "Cache-Control": "no-cache"});
      res.end(data);
    });
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
"""


def prepare_serve_root(work: Path, site: Path, docs: list[dict[str, object]],
                       modules: Path, peers: list[str]) -> Path:
    """One folder served at /: our site under /site/, each peer beside it."""
    root = work / "serve"
    root.mkdir(parents=True, exist_ok=True)
    link = root / "site"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(site.resolve())
    source = work / "docs.json"
    source.write_text(json.dumps(docs), encoding="utf-8")
    if "pagefind" in peers:
        bundle = root / "pagefind"
        if not (bundle / "pagefind.js").is_file() or source.stat().st_mtime > bundle.stat().st_mtime:
            script = work / "node" / "index-pagefind.mjs"
            script.write_text(PAGEFIND_INDEXER, encoding="utf-8")
            run(["node", str(script), str(source), str(bundle)], cwd=work / "node")
        (root / "pagefind.html").write_text(PAGEFIND_PAGE, encoding="utf-8")
    if "lunr" in peers:
        folder = root / "lunr"
        folder.mkdir(exist_ok=True)
        (folder / "lunr.min.js").write_bytes((modules / "lunr" / "lunr.min.js").read_bytes())
        (folder / "search_index.json").write_text(json.dumps(mkdocs_index(docs)), encoding="utf-8")
        (root / "lunr.html").write_text(LUNR_PAGE, encoding="utf-8")
    return root


def mkdocs_index(docs: list[dict[str, object]]) -> dict[str, object]:
    """search_index.json as MkDocs writes it (no prebuilt index: its default)."""
    entries = [{"location": d["url"], "title": d["title"],
                "text": " ".join([", ".join(d["authors"]), ", ".join(d["subjects"]),  # type: ignore[arg-type]
                                  str(d["abstract"])])} for d in docs]
    return {"config": {"lang": ["en"], "separator": r"[\s\-]+", "pipeline": ["stopWordFilter"]},
            "docs": entries}


# ---- queries --------------------------------------------------------------------------------

def make_queries(docs: list[dict[str, object]], count: int, seed: int) -> list[str]:
    """Queries a reader might type: title words, prefixes, pairs, surnames, one typo."""
    rng = random.Random(seed)
    queries: list[str] = []
    kinds = ["word", "prefix", "pair", "surname", "typo"]
    while len(queries) < count:
        doc = rng.choice(docs)
        words = [w for w in str(doc["title"]).replace(":", " ").split() if len(w) >= 5 and w.isalpha()]
        kind = kinds[len(queries) % len(kinds)]
        if kind == "surname":
            query = str(rng.choice(doc["authors"])).split()[-1]  # type: ignore[arg-type]
        elif not words:
            continue
        elif kind == "word":
            query = rng.choice(words)
        elif kind == "prefix":
            query = rng.choice(words)[:4]
        elif kind == "pair":
            query = " ".join(rng.sample(words, 2)) if len(words) > 1 else words[0]
        else:
            word = rng.choice(words)
            cut = rng.randrange(1, len(word) - 1)
            query = word[:cut] + word[cut + 1:]
        queries.append(query.lower())
    return queries


# ---- measuring ------------------------------------------------------------------------------

READY = {"site-gen": "document.querySelector('.search-form').dataset.state === 'done'",
         "baseline": "document.querySelector('.search-form').dataset.state === 'done'",
         "pagefind": "document.body.dataset.ready === '1'",
         "lunr": "document.body.dataset.ready === '1'"}
RENDERED = {"site-gen": "document.querySelector('.search-form').dataset.renderedQuery",
            "baseline": "document.querySelector('.search-form').dataset.renderedQuery",
            "pagefind": "document.body.dataset.rendered",
            "lunr": "document.body.dataset.rendered"}

TYPE_AND_WAIT = """([query, rendered]) => new Promise((resolve) => {
  const input = document.getElementById("q");
  const done = new Function("return " + rendered);
  const start = performance.now();
  const finish = () => { observer.disconnect(); resolve(performance.now() - start); };
  const observer = new MutationObserver(() => { if (done() === query) finish(); });
  observer.observe(document.body, {attributes: true, subtree: true, childList: true});
  input.value = query;
  input.dispatchEvent(new Event("input", {bubbles: true}));
  if (done() === query) finish();
})"""
"""Types a query as one input event; resolves with the ms until the engine has put its
results into the page (a MutationObserver sees the engine mark the query as rendered)."""


def gzip_size(path: Path) -> int:
    """Bytes of a file gzipped, or as it is when that is not smaller (already compressed)."""
    data = path.read_bytes()
    return min(len(data), len(gzip.compress(data, 6)))


def measure_cold(browser: object, base: str, root: Path, engine: Engine, queries: list[str]) -> None:
    """Fresh context per query: bytes and time until the first results are on screen."""
    from urllib.parse import unquote, urlsplit

    for query in queries:
        context = browser.new_context()  # type: ignore[attr-defined]
        page = context.new_page()
        loaded: list[tuple[str, object]] = []
        page.on("requestfinished", lambda r, seen=loaded: seen.append((r.url, r)))
        started = time.perf_counter()
        page.goto(base + engine.url)
        page.wait_for_function(READY[engine.name], timeout=120_000, polling=10)
        engine.ready_ms.append((time.perf_counter() - started) * 1000)
        page.wait_for_load_state("networkidle")  # a reader looks at the page before typing
        engine.cold_ms.append(page.evaluate(TYPE_AND_WAIT, [query, RENDERED[engine.name]]))
        before = list(loaded)  # not what the page fetches once the results are on screen
        engine.counts[query] = len(page.locator("#search-results > li, #results > li").all())
        total = zipped = 0
        for url, request in before:
            size = request.sizes()["responseBodySize"]  # type: ignore[attr-defined]
            total += size
            if request.method == "HEAD":  # headers only: no body, whatever the file weighs
                continue
            path = root / unquote(urlsplit(url).path).lstrip("/")
            if path.is_dir():
                path = path / "index.html"
            zipped += gzip_size(path) if path.is_file() else size
        engine.cold_bytes.append(total)
        engine.cold_gzip.append(zipped)
        context.close()


def measure_keystrokes(browser: object, base: str, engine: Engine, queries: list[str]) -> None:
    """One page, every query typed letter by letter, each keystroke timed."""
    context = browser.new_context()  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(base + engine.url)
    page.wait_for_function(READY[engine.name], timeout=120_000)
    for query in queries:
        for end in range(1, len(query) + 1):
            engine.key_ms.append(page.evaluate(TYPE_AND_WAIT, [query[:end], RENDERED[engine.name]]))
    context.close()


# ---- reporting ------------------------------------------------------------------------------

def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def report(engines: list[Engine], papers: int, queries: int) -> str:
    """The results table."""
    head = (f"Search on {papers:,} papers, headless Chromium, {queries} queries "
            f"({SHOWN} results shown)\n")
    cols = ("engine", "bytes before 1st result", "  gzip", "ready", "1st keystroke→results",
            "each keystroke")
    lines = [head, f"{cols[0]:<12} {cols[1]:>26} {cols[2]:>20} {cols[3]:>9} {cols[4]:>24} {cols[5]:>18}",
             (f"{'':<12} {'median / max':>26} {'median / max':>20} {'median':>9} "
              f"{'p50 / p95 ms':>24} {'p50 / p95 ms':>18}")]
    for e in engines:
        lines.append(
            f"{e.name:<12} {fmt_bytes(statistics.median(e.cold_bytes)):>12} / {fmt_bytes(max(e.cold_bytes)):>11}"
            f" {fmt_bytes(statistics.median(e.cold_gzip)):>9} / {fmt_bytes(max(e.cold_gzip)):>8}"
            f" {statistics.median(e.ready_ms):>7.0f}ms"
            f" {percentile(e.cold_ms, 50):>11.1f} / {percentile(e.cold_ms, 95):>8.1f}"
            f" {percentile(e.key_ms, 50):>9.1f} / {percentile(e.key_ms, 95):>6.1f}")
    return "\n".join(lines)


def fmt_bytes(n: float) -> str:
    """Bytes as kB with one decimal."""
    return f"{n / 1000:,.1f} kB"


def main(argv: list[str] | None = None) -> int:
    """Prepare, measure every engine in one browser, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--work", type=Path, default=HERE / "out")
    parser.add_argument("--peers", default="pagefind,lunr")
    parser.add_argument("--baseline", type=Path, help="a site built from the same corpus by other code")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--fetch-cost", action="store_true",
                        help="only measure what fetching 1 to 10 fragment files at once costs")
    args = parser.parse_args(argv)
    peers = [p for p in args.peers.split(",") if p]
    args.work.mkdir(parents=True, exist_ok=True)
    site, catalog = build_corpus(args.work, args.papers, args.seed)
    modules = install_peers(args.work, peers) if peers else Path()
    docs = peer_documents(catalog)
    root = prepare_serve_root(args.work, site, docs, modules, peers)
    queries = make_queries(docs, args.queries, args.seed)
    if args.fetch_cost:
        print(measure_fetch_cost(root, args.work, site))
        return 0
    if args.baseline:
        link = root / "baseline"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(args.baseline.resolve())
    rounds = [[Engine("baseline", "baseline/search/")] if args.baseline else []
              for _ in range(args.rounds)]
    for engines in rounds:
        engines += [Engine("site-gen", "site/search/")] + [Engine(p, f"{p}.html") for p in peers]
    measure(root, args.work, [e for engines in rounds for e in engines], queries)
    engines = [pooled(runs) for runs in zip(*rounds, strict=True)]
    table = report(engines, args.papers, len(queries))
    print(table)
    results = {"papers": args.papers, "seed": args.seed, "queries": queries,
               "engines": [vars(e) for e in engines], "table": table}
    (args.work / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


def pooled(runs: tuple[Engine, ...]) -> Engine:
    """One engine's measurements over several rounds."""
    out = Engine(runs[0].name, runs[0].url)
    for run in runs:
        for name in ("cold_ms", "cold_bytes", "cold_gzip", "ready_ms", "key_ms"):
            getattr(out, name).extend(getattr(run, name))
        out.counts.update(run.counts)
    return out


@contextlib.contextmanager
def served_browser(root: Path, work: Path) -> Iterator[tuple[object, str]]:
    """Headless Chromium and the base URL of ``root``, served by node on 127.0.0.1."""
    from conftest import CHROMIUM_ARGS, CHROMIUM_PATH
    from playwright.sync_api import sync_playwright

    if not os.access(CHROMIUM_PATH, os.X_OK):
        sys.exit(f"{CHROMIUM_PATH} not found: run scripts/install-test-deps.sh")
    script = work / "node" / "serve.mjs"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(STATIC_SERVER, encoding="utf-8")
    server = subprocess.Popen(["node", str(script), str(root)], stdout=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{server.stdout.readline().strip()}/"  # type: ignore[union-attr]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, headless=True,
                                         chromium_sandbox=False, args=CHROMIUM_ARGS)
            yield browser, base
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


def measure(root: Path, work: Path, engines: list[Engine], queries: list[str]) -> None:
    """Run every engine in one headless Chromium."""
    with served_browser(root, work) as (browser, base):
        for engine in engines:
            started = time.perf_counter()
            measure_cold(browser, base, root, engine, queries)
            measure_keystrokes(browser, base, engine, queries)
            print(f"{engine.name}: measured in {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)


FETCH_FILES = """async (urls) => {
  const start = performance.now();
  await Promise.all(urls.map((url) => fetch(url).then((response) => response.json())));
  return performance.now() - start;
}"""


def measure_fetch_cost(root: Path, work: Path, site: Path, repeats: int = 12) -> str:
    """What a request costs a fresh search page here: n fragment files (random, not cached)
    fetched at once, n = 1 to 10, each n on its own fresh page, ``repeats`` times, taking
    turns; the median milliseconds from the first fetch to the last file parsed."""
    files = sorted((site / "search" / "index" / "d").glob("*.json"))
    counts = (1, 2, 4, 6, 8, 10)
    times: dict[int, list[float]] = {n: [] for n in counts}
    rng = random.Random(1)
    with served_browser(root, work) as (browser, base):
        for _ in range(repeats):
            for n in counts:
                context = browser.new_context()  # type: ignore[attr-defined]
                page = context.new_page()
                page.goto(base + "site/search/")
                page.wait_for_function(READY["site-gen"], timeout=120_000, polling=10)
                page.wait_for_load_state("networkidle")
                urls = [f"{base}site/search/index/d/{f.name}?v=cost" for f in rng.sample(files, n)]
                times[n].append(page.evaluate(FETCH_FILES, urls))
                context.close()
    return "\n".join(["files fetched at once   median ms"] +
                     [f"{n:>21}   {statistics.median(times[n]):9.1f}" for n in counts])


if __name__ == "__main__":
    sys.exit(main())
