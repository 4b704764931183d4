"""The preview server: a real server on 127.0.0.1 (port 0) with a real watchdog observer.

Edit a dump and the new paper is served within 2 s; break it and the last good site is still
served, with the overlay; fix it and the site recovers. Plus the base path, 404s, path
traversal, injection only at response time, and the live-reload event stream.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO, abstract, listing_dump, read_tree
from test_watch import save, wait_for

from site_gen.incremental.builder import Builder
from site_gen.live.serve import (
    LiveState,
    PreviewServer,
    SiteState,
    host_allowed,
    inject,
    overlay,
    safe_name,
)
from site_gen.live.session import WatchSession
from site_gen.util.diagnostics import error

SITE_YAML = "title: Preview\nsite_url: https://ann.github.io/pubs/\n"


def dump_with(*titles: str) -> str:
    return listing_dump("Ann Lee", [(2024, t, abstract(t.lower()), ["cs.LG"]) for t in titles])


class Preview:
    """A project being watched and served, as ``site-gen serve`` runs it."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.lines: list[str] = []
        builder = Builder(project, keep_spare=True)
        self.live = LiveState("/pubs/")
        self.server = PreviewServer(("127.0.0.1", 0), builder.output, self.live)
        self.session = WatchSession(builder, self.live, say=self.lines.append,
                                    warn=self.lines.append)
        self.session.start()
        self.threads = [threading.Thread(target=self.server.serve_forever, daemon=True),
                        threading.Thread(target=self.session.run, daemon=True)]
        for thread in self.threads:
            thread.start()

    def get(self, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(*self.server.server_address[:2], timeout=5)
        try:
            conn.request(method, path)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.session.close()
        for thread in self.threads:
            thread.join(timeout=5)


@pytest.fixture
def preview(make_project):
    project = make_project({"content/site.yaml": SITE_YAML,
                            "content/dumps/a.txt": dump_with("First Paper About Rollouts")})
    running = Preview(project)
    yield running
    running.close()


def test_site_is_served_at_the_base_path_of_site_url(preview: Preview) -> None:
    status, headers, _ = preview.get("/")
    assert status == 302 and headers["Location"] == "/pubs/"
    assert preview.get("/pubs")[0] == 302
    status, headers, body = preview.get("/pubs/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"First Paper About Rollouts" in body
    status, headers, body = preview.get("/pubs/papers/first-paper-about-rollouts/")
    assert status == 200 and b"<h1>" in body
    status, headers, body = preview.get("/pubs/assets/site.css?v=123")
    assert status == 200 and headers["Content-Type"].startswith("text/css")
    assert body == (preview.session.builder.output / "assets/site.css").read_bytes()
    status, headers, body = preview.get("/pubs/search.json", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


def test_missing_pages_get_404_html_with_status_404(preview: Preview) -> None:
    for path in ("/pubs/papers/no-such-paper/", "/pubs/nope.html", "/elsewhere/x"):
        status, _, body = preview.get(path)
        assert status == 404, path
        assert b"Page not found" in body and b"__site-gen/live.js" in body
    assert b'src="/pubs/__site-gen/live.js"' in preview.get("/elsewhere/x")[2]


@pytest.mark.parametrize("path", [
    "/pubs/../../../../etc/passwd",
    "/pubs/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/pubs/%2E%2E%2F%2E%2E%2Fetc/passwd",
    "/pubs/papers/..%2f..%2f..%2fcontent/site.yaml",
    "/pubs/./index.html",
    "/pubs/%00",
    "/pubs/%ff%fe",
])
def test_path_traversal_is_refused(preview: Preview, path: str) -> None:
    status, _, body = preview.get(path)
    assert status in (403, 404)
    assert b"root:" not in body and b"site_url" not in body


def test_symlinks_out_of_the_output_are_not_followed(preview: Preview, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    output = preview.session.builder.output
    os.symlink(secret, output / "leak.txt")
    os.symlink(tmp_path, output / "leakdir")
    assert preview.get("/pubs/leak.txt")[0] == 404
    assert preview.get("/pubs/leakdir/secret.txt")[0] == 404


def test_injection_happens_only_in_responses(preview: Preview) -> None:
    served = preview.get("/pubs/")[2]
    on_disk = (preview.session.builder.output / "index.html").read_bytes()
    assert b"__site-gen" in served and b"__site-gen" not in on_disk
    assert served.index(b"__site-gen/live.js") < served.rindex(b"</body>")
    page = preview.get("/pubs/papers/first-paper-about-rollouts/")[2]
    assert b'src="../../__site-gen/live.js" data-page="papers/first-paper-about-rollouts/index.html"' in page
    assert all(b"__site-gen" not in data for data in read_tree(preview.session.builder.output).values())
    status, headers, script = preview.get("/pubs/__site-gen/live.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert b"EventSource" in script


def test_edit_break_fix_cycle(preview: Preview) -> None:
    dumps = preview.project / "content/dumps"
    # 1. edit: the new paper is served within 2 s
    started = time.monotonic()
    save(dumps / "a.txt", dump_with("First Paper About Rollouts", "Second Paper On Caching"))
    new = "/pubs/papers/second-paper-on-caching/"
    assert wait_for(lambda: preview.get(new)[0] == 200, seconds=20)
    assert time.monotonic() - started < 2
    good_home = preview.get("/pubs/")[2]
    assert b"Second Paper On Caching" in good_home and b"site-gen-overlay" not in good_home
    # 2. break it: the last good site is still served, with the overlay naming the problem
    save(dumps / "a.txt", dump_with("First Paper About Rollouts") + "\nStray <text> here.\n")
    assert wait_for(lambda: b"site-gen-overlay" in preview.get("/pubs/")[2], seconds=20)
    for path in ("/pubs/", new, "/pubs/no-such-page/"):
        body = preview.get(path)[2]
        assert b"site-gen-overlay" in body
        assert b"content/dumps/a.txt:" in body
    assert preview.get(new)[0] == 200  # the paper the broken dump lost is still there
    assert b"&lt;text&gt;" in preview.get("/pubs/")[2] or b"Stray" not in preview.get("/pubs/")[2]
    assert any(line.startswith("build failed in ") for line in preview.lines)
    assert any(line.startswith("content/dumps/a.txt:") for line in preview.lines)
    # 3. fix it: the overlay goes and the site follows the fixed dump
    save(dumps / "a.txt", dump_with("First Paper About Rollouts", "Third Paper On Fixing"))
    assert wait_for(lambda: preview.get("/pubs/papers/third-paper-on-fixing/")[0] == 200, seconds=20)
    # the site is swapped in a moment before the session clears the problems: wait for both
    assert wait_for(lambda: b"site-gen-overlay" not in preview.get("/pubs/")[2], seconds=20)
    assert b"Third Paper On Fixing" in preview.get("/pubs/")[2]
    assert preview.get(new)[0] == 404


def read_events(server: PreviewServer, since: int, count: int, seconds: float = 5) -> list[dict]:
    """The first ``count`` events of the stream (pings skipped)."""
    sock = socket.create_connection(server.server_address[:2], timeout=seconds)
    sock.sendall(f"GET /pubs/__site-gen/events?since={since} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data, events = b"", []
    deadline = time.monotonic() + seconds
    while len(events) < count and time.monotonic() < deadline:
        data += sock.recv(65536)
        events = [json.loads(line[6:]) for line in data.decode().splitlines()
                  if line.startswith("data: ")]
    sock.close()
    return events


def test_event_stream_names_changed_files_and_problems(preview: Preview) -> None:
    dump = preview.project / "content/dumps/b.txt"  # another author, another subject
    save(dump, listing_dump("Bo Wu", [(2023, "Another One Bites", abstract("bites"), ["cs.DC"])]))
    assert wait_for(lambda: preview.get("/pubs/papers/another-one-bites/")[0] == 200)
    first = preview.live.current.generation
    result: list[list[dict]] = []
    # generous limits: each wait ends as soon as its build does, but a loaded CI machine is slow
    reader = threading.Thread(target=lambda: result.append(
        read_events(preview.server, first, 2, seconds=30)))
    reader.start()
    time.sleep(0.2)
    save(dump, listing_dump("Bo Wu", [(2023, "Another One Bites", abstract("chews"), ["cs.DC"])]))
    assert wait_for(lambda: preview.live.current.generation == first + 1, seconds=20)
    save(dump, "not a dump at all\n")
    reader.join(timeout=35)
    built, failed = result[0]
    assert built["generation"] == first + 1 and built["problems"] == ""
    assert "papers/another-one-bites/index.html" in built["changed"]
    assert "papers/first-paper-about-rollouts/index.html" not in built["changed"]
    assert failed["generation"] == first + 2 and failed["problems"] and failed["changed"] == []


def test_a_late_page_catches_up_on_missed_builds() -> None:
    live = LiveState("/")
    live.publish(["a.html"], [])
    live.publish(["b.html"], [])
    assert live.since(1)[1] == ("b.html",)
    assert live.since(0)[1] == ("a.html", "b.html")
    for _ in range(100):
        live.publish(["c.html"], [])
    assert live.since(0)[1] is None  # too old to know: the page must reload


@pytest.mark.parametrize("rest, name", [
    ("", ""), ("papers/x/", "papers/x"), ("a%20b.html", "a b.html"),
    ("..", None), ("a/../b", None), ("%2e%2e/x", None), ("a/%2E%2E/b", None), (".", None),
    ("a%00b", None), ("a%5c..%5cb", None), ("%ff", None),
])
def test_safe_name(rest: str, name: str | None) -> None:
    assert safe_name(rest) == name


def test_overlay_escapes_diagnostics() -> None:
    html = overlay([error("content/dumps/<b>.txt", 3, "bad <script>alert(1)</script> & more")])
    assert "<script>" not in html and "&lt;script&gt;" in html and "&amp; more" in html
    assert "content/dumps/&lt;b&gt;.txt:3: bad" in html


def test_inject_without_a_body_tag_appends() -> None:
    state = SiteState(3, (), (), "/")
    assert inject(b"<p>hi</p>", state, "x.html", "").startswith(b"<p>hi</p><script ")
    both = inject(b"<body>a</BODY>", SiteState(3, (), (error("x", 1, "m"),), "/"), "x.html", "")
    assert both.index(b"site-gen-overlay") < both.index(b"</BODY>")


@pytest.mark.parametrize("launch", [[], ["sh", "-c", 'trap "" INT; exec "$@"', "sh"]],
                         ids=["foreground", "inherited-ignored"])
def test_cli_serve_runs_until_interrupted(make_project, launch: list[str]) -> None:
    """SIGINT stops ``serve`` cleanly, also when the process inherits SIGINT ignored, as a
    job started with ``&`` in a shell script does (here: a shell that ignores it, then execs)."""
    project = make_project({"content/site.yaml": SITE_YAML,
                            "content/dumps/a.txt": dump_with("Served By The Command")})
    process = subprocess.Popen(
        [*launch, sys.executable, "-m", "site_gen", "serve", "--port", "0",
         "--project", str(project)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        line = wait_for(process.stderr.readline, seconds=10)
        if line.startswith("content/urls.lock: created; commit it"):  # a first build says so
            line = wait_for(process.stderr.readline, seconds=10)
        assert line.startswith("site-gen: serving http://127.0.0.1:") and "/pubs/" in line
        port = int(line.split(":")[3].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/pubs/")
        assert b"Served By The Command" in conn.getresponse().read()
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=10)
    assert process.returncode == 0
    assert out.startswith("built in ") and "Traceback" not in err
    assert not (project / "._site.staging").exists()


def test_cli_serve_reports_a_busy_port(make_project) -> None:
    project = make_project({"content/dumps/a.txt": dump_with("Some Paper Title Here")})
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "site_gen", "serve", "--port", str(port),
                              "--project", str(project)], check=False, capture_output=True, text=True,
                             timeout=30, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("host, allowed", [
    ("127.0.0.1:8000", True), ("localhost:8000", True), ("localhost", True), ("[::1]:8000", True),
    ("app.localhost:8000", True), ("evil.example:8000", False), ("evil.example", False),
    ("127.0.0.1.evil.example", False), (None, False), ("", False),
])
def test_host_header_is_checked_against_dns_rebinding(host: str | None, allowed: bool) -> None:
    assert host_allowed(host, "127.0.0.1") is allowed
    assert host_allowed(host, "0.0.0.0") is True  # bound beyond loopback on purpose


def test_rebinding_request_is_refused_by_the_server(preview: Preview) -> None:
    conn = http.client.HTTPConnection(*preview.server.server_address[:2], timeout=5)
    try:
        conn.request("GET", "/pubs/", headers={"Host": "evil.example"})
        response = conn.getresponse()
        assert response.status == 403 and b"Preview" not in response.read()
    finally:
        conn.close()
    status, _, _ = preview.get("/pubs/")
    assert status == 200


def test_200_concurrent_connections_and_a_client_that_hangs_up(preview: Preview) -> None:
    import socket
    from concurrent.futures import ThreadPoolExecutor
    address = preview.server.server_address[:2]
    for _ in range(5):  # clients that hang up mid-request and mid-response
        rude = socket.create_connection(address, timeout=5)
        rude.sendall(b"GET /pubs/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        rude.recv(10)
        rude.close()
        half = socket.create_connection(address, timeout=5)
        half.sendall(b"GET /pubs/ HT")
        half.close()
    with ThreadPoolExecutor(max_workers=200) as pool:
        statuses = list(pool.map(lambda _: preview.get("/pubs/")[0], range(200)))
    assert statuses == [200] * 200
    assert preview.get("/pubs/")[0] == 200


def test_a_dropped_request_prints_no_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A browser reloading while a file is sent drops the connection: nothing is printed;
    another error is still reported (socketserver's handle_error)."""
    server = PreviewServer(("127.0.0.1", 0), tmp_path, LiveState("/"))
    try:
        for error in (BrokenPipeError(), ConnectionResetError(), TimeoutError(), ValueError("bug")):
            try:
                raise error
            except Exception:  # noqa: BLE001 - handed to the server as socketserver does
                server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    err = capsys.readouterr().err
    assert err.count("Traceback") == 1 and "ValueError: bug" in err
