#!/usr/bin/env python3
"""Search quality on the demo site: nDCG@10 and recall@10 of site-gen, Lunr and Pagefind.

    python3 benchmarks/search_quality.py [--work DIR] [--show]

1. builds the demo site (content/) with site-gen;
2. installs the peers from npm into WORK/node (pinned versions of search_bench.py; nothing
   in the repository, and the test suite never needs them);
3. asks each engine every query of benchmarks/search_judgments.json and keeps its first ten
   result URLs:
   * site-gen: the real search page and search.js in headless Chromium (query typed into
     the box, result links read once the page marks the query as rendered);
   * Lunr: ``lunr`` in node, default pipeline (stemmer, stop words), one document per paper
     (fields title^10, authors^5, subjects^2, abstract) and per author (the name as title),
     the query as typed;
   * Pagefind: ``pagefind`` indexes the built site (every page, as a site owner would run it)
     and its own ``pagefind.js`` searches it in the same Chromium.
4. prints nDCG@10 (gain = grade, log2 discount, ideal from the judgments) and recall@10
   (judged pages among the first ten, over the judged pages or ten when more) per engine,
   side by side, and writes WORK/quality.json. ``--show`` also prints each engine's first
   five results per query.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "browser"))

from search_bench import STATIC_SERVER, install_peers, run

SHOWN = 10

LUNR_RUNNER = """
const lunr = require("lunr");
const fs = require("fs");
const [docs, queries] = [process.argv[2], process.argv[3]].map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const index = lunr(function () {
  this.ref("url");
  this.field("title", {boost: 10}); this.field("authors", {boost: 5});
  this.field("subjects", {boost: 2}); this.field("abstract");
  for (const d of docs) this.add(d);
});
const clean = (q) => q.replace(/[:^~*+\\-]/g, " ");
console.log(JSON.stringify(queries.map((q) => {
  try { return index.search(clean(q)).slice(0, SHOWN).map((r) => r.ref); } catch (e) { return []; }
})));
""".replace("SHOWN", str(SHOWN))

PAGEFIND_SITE_INDEXER = """
import * as pagefind from "pagefind";
const { index } = await pagefind.createIndex({});
const added = await index.addDirectory({ path: process.argv[2] });
if (added.errors.length) { console.error(added.errors); process.exit(1); }
const written = await index.writeFiles({ outputPath: process.argv[3] });
if (written.errors.length) { console.error(written.errors); process.exit(1); }
await pagefind.close();
"""

PAGEFIND_SEARCH = """async (query) => {
  if (!window.__pagefind) { window.__pagefind = await import("/pagefind/pagefind.js"); await window.__pagefind.init(); }
  const search = await window.__pagefind.search(query);
  const data = await Promise.all(search.results.slice(0, SHOWN).map((r) => r.data()));
  return data.map((d) => d.url);
}""".replace("SHOWN", str(SHOWN))


def build_demo(work: Path) -> tuple[Path, object]:
    """The demo site, built into WORK/site; returns it and its catalog."""
    from site_gen.incremental.builder import Builder

    result = Builder(REPO, output=work / "site").build()
    if not result.ok:
        sys.exit("\n".join(map(str, result.diagnostics[:20])))
    return work / "site", result.catalog


def lunr_documents(site: Path) -> list[dict[str, object]]:
    """Papers and authors as Lunr documents, from the built site's search.json (abstracts from
    papers.json, which alone holds them)."""
    listing = json.loads((site / "search.json").read_text(encoding="utf-8"))
    exported = json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]
    abstracts = {f"papers/{p['id']}/": p["abstract_text"] for p in exported}
    names = listing["subjects"]
    docs = [{"url": p["url"], "title": p["title"], "authors": " ".join(p["authors"]),
             "subjects": " ".join(f"{c} {names.get(c, '')}" for c in p["subjects"]),
             "abstract": abstracts[p["url"]]} for p in listing["papers"]]
    docs += [{"url": a["url"], "title": a["name"], "authors": "", "subjects": "", "abstract": ""}
             for a in listing["authors"]]
    return docs


def lunr_results(work: Path, site: Path, queries: list[str]) -> list[list[str]]:
    """Lunr's first ten URLs per query, run in node."""
    (work / "docs.json").write_text(json.dumps(lunr_documents(site)), encoding="utf-8")
    (work / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    script = work / "node" / "lunr-quality.cjs"
    script.write_text(LUNR_RUNNER, encoding="utf-8")
    done = subprocess.run(["node", str(script), str(work / "docs.json"), str(work / "queries.json")],
                          capture_output=True, text=True, check=True, cwd=work / "node")
    return json.loads(done.stdout)


def browser_results(work: Path, site: Path, queries: list[str]) -> dict[str, list[list[str]]]:
    """site-gen's and Pagefind's first ten site-relative URLs per query, in Chromium."""
    from conftest import CHROMIUM_ARGS, CHROMIUM_PATH
    from playwright.sync_api import sync_playwright

    root = work / "serve"
    root.mkdir(exist_ok=True)
    link = root / "site"
    if not link.exists():
        link.symlink_to(site.resolve())
    script = work / "node" / "index-site.mjs"
    script.write_text(PAGEFIND_SITE_INDEXER, encoding="utf-8")
    run(["node", str(script), str(site), str(root / "pagefind")], cwd=work / "node")
    (root / "pagefind.html").write_text("<!DOCTYPE html><title>Pagefind</title>", encoding="utf-8")
    server_js = work / "node" / "serve.mjs"
    server_js.write_text(STATIC_SERVER, encoding="utf-8")
    server = subprocess.Popen(["node", str(server_js), str(root)], stdout=subprocess.PIPE, text=True)
    out: dict[str, list[list[str]]] = {"site-gen": [], "pagefind": []}
    try:
        base = f"http://127.0.0.1:{server.stdout.readline().strip()}/"  # type: ignore[union-attr]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, headless=True,
                                         chromium_sandbox=False, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(base + "site/search/")
            page.wait_for_function("document.querySelector('.search-form').dataset.state === 'done'")
            for query in queries:
                page.fill("#q", query)
                page.wait_for_function(
                    "q => document.querySelector('.search-form').dataset.renderedQuery === q", arg=query)
                hrefs = page.eval_on_selector_all(
                    "#search-results .result-title", "links => links.map((a) => a.href)")
                out["site-gen"].append([h.split("/site/", 1)[1] for h in hrefs[:SHOWN]])
            page.goto(base + "pagefind.html")
            for query in queries:
                urls = page.evaluate(PAGEFIND_SEARCH, query)
                out["pagefind"].append([u.split("/", 1)[1] if u.startswith("/") else u for u in urls])
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    return out


def ndcg(found: list[str], relevant: dict[str, int]) -> float:
    """nDCG@10: graded gains, log2 discount, normalised by the ideal ordering."""
    dcg = sum(relevant.get(url, 0) / math.log2(i + 2) for i, url in enumerate(found[:SHOWN]))
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(relevant.values(), reverse=True)[:SHOWN]))
    return dcg / ideal if ideal else 0.0


def recall(found: list[str], relevant: dict[str, int]) -> float:
    """Judged pages among the first ten, over the judged pages (or ten, when there are more)."""
    return len(set(found[:SHOWN]) & set(relevant)) / min(len(relevant), SHOWN)


def main(argv: list[str] | None = None) -> int:
    """Build, ask every engine, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a new temporary one)")
    parser.add_argument("--show", action="store_true", help="print each engine's first results")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="search-quality-"))
    work.mkdir(parents=True, exist_ok=True)
    judged = json.loads((HERE / "search_judgments.json").read_text(encoding="utf-8"))["queries"]
    queries = [q["query"] for q in judged]
    site, _ = build_demo(work)
    install_peers(work, ["lunr", "pagefind"])
    results = {"lunr": lunr_results(work, site, queries), **browser_results(work, site, queries)}
    engines = ["site-gen", "lunr", "pagefind"]
    scores = {e: [(ndcg(r, q["relevant"]), recall(r, q["relevant"]))
                  for r, q in zip(results[e], judged)] for e in engines}
    if args.show:
        for i, q in enumerate(judged):
            print(f"\n{q['query']!r}: judged {sorted(q['relevant'], key=q['relevant'].get, reverse=True)[:3]}")
            for e in engines:
                print(f"  {e:<9} {scores[e][i][0]:.2f} {results[e][i][:5]}")
    print(f"\nSearch quality on the demo site, {len(judged)} judged queries (first {SHOWN} results)")
    print(f"{'engine':<10} {'nDCG@10':>8} {'recall@10':>10}")
    for e in engines:
        n = sum(s[0] for s in scores[e]) / len(judged)
        r = sum(s[1] for s in scores[e]) / len(judged)
        print(f"{e:<10} {n:>8.3f} {r:>10.3f}")
    (work / "quality.json").write_text(json.dumps({"results": results, "scores": scores}, indent=1),
                                       encoding="utf-8")
    print(f"(details: {work / 'quality.json'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
