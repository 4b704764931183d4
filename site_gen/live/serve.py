"""Local preview server: the output folder over HTTP on 127.0.0.1, as GitHub Pages serves it.

Not a pipeline stage; it only reads the output folder. The site is mounted at the path part of
``site_url`` ("/<repo>/"), ``/`` redirects there, a missing file gets ``404.html`` with status
404, and no request reaches a file outside the output (``..`` and ``%2e%2e`` are refused,
symlinks are resolved and checked). Every HTML response gets, at response time only, a small
live-reload script and, while the last build has failed, an overlay listing its diagnostics.
The script follows ``<base>__site-gen/events`` (server-sent events), which announces each
build with the output files it changed; a page reloads when its own file changed, or when
the build's problems appear, change or clear.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
import posixpath
import re
import secrets
import socket
import sys
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

from site_gen.plan.urls import refresh_target
from site_gen.util.diagnostics import Diagnostic

HOOK = "__site-gen/"
EVENTS, SCRIPT = HOOK + "events", HOOK + "live.js"
HISTORY = 64
"""Builds remembered for pages that reconnect late (older pages simply reload)."""
PING_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class SiteState:
    """One build as the preview announces it."""

    generation: int
    changed: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    base_path: str

    @property
    def problems(self) -> str:
        """A short key for the build's problems; "" when it succeeded."""
        if not self.diagnostics:
            return ""
        text = "\n".join(map(str, self.diagnostics)).encode("utf-8")
        return hashlib.sha256(text).hexdigest()[:12]


class LiveState:
    """The latest build, shared by the build loop (which publishes) and the request threads."""

    def __init__(self, base_path: str = "/") -> None:
        self.session = secrets.token_hex(4)
        """Distinguishes this server's builds from a previous run's (whose pages must reload)."""
        self._cond = threading.Condition()
        self._history: deque[SiteState] = deque([SiteState(0, (), (), base_path)], maxlen=HISTORY)
        self._closed = False

    @property
    def current(self) -> SiteState:
        with self._cond:
            return self._history[-1]

    def publish(self, changed: Sequence[str], diagnostics: Sequence[Diagnostic],
                base_path: str | None = None) -> SiteState:
        """Announce a build: the files it changed, or the errors that stopped it."""
        with self._cond:
            last = self._history[-1]
            state = SiteState(last.generation + 1, tuple(changed), tuple(diagnostics),
                              base_path or last.base_path)
            self._history.append(state)
            self._cond.notify_all()
            return state

    def since(self, generation: int) -> tuple[SiteState, tuple[str, ...] | None]:
        """The current build and every file changed after ``generation`` (None: unknown)."""
        with self._cond:
            current = self._history[-1]
            newer = [s for s in self._history if s.generation > generation]
            if newer and newer[0].generation != generation + 1:
                return current, None
            return current, tuple(sorted({name for s in newer for name in s.changed}))

    def wait(self, generation: int, timeout: float) -> bool:
        """Block until a build newer than ``generation`` (True) or the timeout/close (False)."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed or self._history[-1].generation > generation,
                                timeout)
            return not self._closed and self._history[-1].generation > generation

    def close(self) -> None:
        """End every event stream."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed


class PreviewServer(ThreadingHTTPServer):
    """Serves ``output`` at the base path of the latest build; see the module docstring."""

    daemon_threads = True
    request_queue_size = 128
    """listen() backlog: a browser opening a page asks for many files at once (default 5)."""

    def __init__(self, address: tuple[str, int], output: Path, live: LiveState) -> None:
        self.output = output
        self.live = live
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, PreviewHandler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A browser that drops a request (a page reloading while a file is sent) is not an
        error to show in the terminal; anything else is reported as socketserver does."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]

    @property
    def url(self) -> str:
        """Where the site is, for the terminal."""
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}{self.live.current.base_path}"

    def server_close(self) -> None:
        self.live.close()
        super().server_close()


class PreviewHandler(BaseHTTPRequestHandler):
    """GET and HEAD only; every answer is computed from the output folder at request time."""

    server: PreviewServer
    protocol_version = "HTTP/1.1"
    server_version = "site-gen-preview"

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal shows one line per rebuild, not one per request."""

    def _answer(self, send_body: bool) -> None:
        if not host_allowed(self.headers.get("Host"), str(self.server.server_address[0])):
            data = b"This preview server answers only to localhost names.\n"
            return self._send(HTTPStatus.FORBIDDEN, "text/plain; charset=utf-8", data, send_body)
        state = self.server.live.current  # read before the file: a page never looks newer than it is
        path = urlsplit(self.path).path
        base = state.base_path
        if not path.startswith(base):
            if path in ("/", base.rstrip("/")):
                return self._redirect(base)
            return self._not_found(state, "", base, send_body)
        rest = path[len(base):]
        if rest == EVENTS:
            return self._events(send_body)
        if rest == SCRIPT:
            return self._send(HTTPStatus.OK, "text/javascript; charset=utf-8", LIVE_SCRIPT, send_body)
        self._serve_file(state, path, rest, send_body)

    def _serve_file(self, state: SiteState, path: str, rest: str, send_body: bool) -> None:
        name = safe_name(rest)
        if name is None:
            return self._send(HTTPStatus.FORBIDDEN, "text/plain; charset=utf-8", b"forbidden\n",
                              send_body)
        target = self.server.output / name if name else self.server.output
        if is_folder(target) and not path.endswith("/"):
            return self._redirect(path + "/")
        if path.endswith("/"):
            target, name = target / "index.html", posixpath.join(name, "index.html")
        up = "../" * rest.count("/")
        data = read_inside(self.server.output, target)
        if data is None:
            return self._not_found(state, name, up, send_body)
        kind = content_type(target.name)
        if kind.startswith("text/html") and (moved := redirect_of(data)):
            return self._redirect(urljoin(path, moved))  # as a host's redirect rule would
        if kind.startswith("text/html"):
            data = inject(data, state, name, up, self.server.live.session)
        self._send(HTTPStatus.OK, kind, data, send_body)

    def _not_found(self, state: SiteState, name: str, up: str, send_body: bool) -> None:
        """404.html with status 404; the page reloads when a build creates ``name``."""
        data = read_inside(self.server.output, self.server.output / "404.html") or PLACEHOLDER
        self._send(HTTPStatus.NOT_FOUND, "text/html; charset=utf-8",
                   inject(data, state, name, up, self.server.live.session), send_body)

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: HTTPStatus, kind: str, data: bytes, send_body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if send_body:
            self.wfile.write(data)

    def _events(self, send_body: bool) -> None:
        """Server-sent events: one per build after the page's own generation, pings between."""
        query = parse_qs(urlsplit(self.path).query)
        try:
            seen = int(query.get("since", ["0"])[0])
        except ValueError:
            seen = 0
        self.close_connection = True
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        if not send_body:
            return
        live = self.server.live
        while not live.closed:  # until the page goes away (PreviewServer.handle_error)
            state, changed = live.since(seen)
            if state.generation > seen:
                self.wfile.write(event_bytes(state, changed, live.session))
                seen = state.generation
            elif not live.wait(seen, PING_SECONDS):
                self.wfile.write(b": ping\n\n")
            self.wfile.flush()


_LOOPBACK_NAMES = frozenset({"localhost", "::1"})
_INSTANT_REFRESH = re.compile(r"""<meta http-equiv="refresh" content="(0;[^"]*)">""")


def _is_loopback(name: str) -> bool:
    name = name.lower().strip("[]")
    return (name in _LOOPBACK_NAMES or name.endswith(".localhost")
            or re.fullmatch(r"127(?:\.\d{1,3}){3}", name) is not None)


def host_allowed(header: str | None, bound: str) -> bool:
    """Refuse DNS rebinding: on a loopback address, only loopback names may be asked for.

    A page on ``evil.example`` whose name is re-pointed at 127.0.0.1 would send
    ``Host: evil.example``; browsers always send the name they resolved. A server the user
    bound to another address (``--host 0.0.0.0``) is meant to be reached by other names.
    """
    if not _is_loopback(bound):
        return True
    if not header:
        return False
    name = header.rsplit(":", 1)[0] if header.count(":") == 1 or header.startswith("[") else header
    if header.startswith("[") and "]" in header:
        name = header[: header.index("]") + 1]
    return _is_loopback(name)


def event_bytes(state: SiteState, changed: tuple[str, ...] | None, session: str) -> bytes:
    """One SSE message: the build's generation, changed files (null: all) and problems key."""
    data = {"generation": state.generation, "changed": changed, "problems": state.problems,
            "session": session}
    return f"data: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def safe_name(rest: str) -> str | None:
    """The output-relative file name for a URL path below the base; None if it tries to climb."""
    try:
        decoded = unquote(rest, errors="strict")
    except UnicodeDecodeError:
        return None
    parts = decoded.split("/")
    if "\x00" in decoded or "\\" in decoded or any(p in (".", "..") for p in parts):
        return None
    return "/".join(p for p in parts if p)


def is_folder(target: Path) -> bool:
    """A folder of the output; False for any path the file system refuses to look up (a
    name longer than 255 bytes, say: a request answers 404, not an empty reply)."""
    try:
        return target.is_dir()
    except OSError:
        return False


def read_inside(root: Path, target: Path) -> bytes | None:
    """A regular file's bytes, only if it really lies inside ``root`` (symlinks resolved)."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(target)
    if os.path.commonpath([real_root, real]) != real_root or not os.path.isfile(real):
        return None
    try:
        with open(real, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def redirect_of(html: bytes) -> str | None:
    """Where a redirect page (site-gen's ``redirect.html``: an instant ``<meta http-equiv=
    "refresh">`` in its first bytes) sends the browser; None for any other page."""
    head = html[:1024].decode("utf-8", "replace")
    found = _INSTANT_REFRESH.search(head)
    return refresh_target(found.group(1)) or None if found else None


def content_type(name: str) -> str:
    """A MIME type from the file name; text types in UTF-8."""
    kind = _TYPES.get(posixpath.splitext(name)[1].lower()) or mimetypes.guess_type(name)[0]
    kind = kind or "application/octet-stream"
    text = kind.startswith("text/") or kind in ("application/json", "application/javascript",
                                                "image/svg+xml", "application/xml")
    return f"{kind}; charset=utf-8" if text else kind


_TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript",
          ".json": "application/json", ".svg": "image/svg+xml", ".xml": "application/xml",
          ".atom": "application/atom+xml", ".txt": "text/plain", ".bib": "text/plain",
          ".webmanifest": "application/manifest+json"}


def inject(html: bytes, state: SiteState, page: str, up: str, session: str = "") -> bytes:
    """The page with the live-reload script (and the error overlay) before ``</body>``.

    ``up`` leads from the page's folder to the base path ("../../", or the base itself).
    """
    script = (f'<script src="{escape(up)}{SCRIPT}" data-page="{escape(page)}" '
              f'data-generation="{state.generation}" data-problems="{state.problems}" '
              f'data-session="{escape(session)}" data-events="{escape(up)}{EVENTS}" defer></script>')
    parts = [script]
    if state.diagnostics:
        parts.insert(0, overlay(state.diagnostics))
    snippet = "\n".join(parts).encode("utf-8")
    at = html.lower().rfind(b"</body>")
    return html + snippet if at < 0 else html[:at] + snippet + b"\n" + html[at:]


def overlay(diagnostics: Sequence[Diagnostic]) -> str:
    """A fixed box listing the problems that stopped the last build, every byte escaped."""
    lines = "\n".join(escape(str(d)) for d in diagnostics)
    count = len(diagnostics)
    return (
        '<div id="site-gen-overlay" role="alert" style="position:fixed;z-index:2147483647;'
        "left:1rem;right:1rem;bottom:1rem;max-height:50vh;overflow:auto;padding:1rem;"
        "background:#2b0b0e;color:#ffe4e6;border:2px solid #f43f5e;border-radius:8px;"
        'font:14px/1.5 ui-monospace,monospace;box-shadow:0 4px 24px rgba(0,0,0,.4)">'
        f"<strong>site-gen: the last build failed ({count} problem{'s' if count != 1 else ''}); "
        "this is the last good site.</strong>"
        f'<pre style="white-space:pre-wrap;margin:.5rem 0 0">{lines}</pre>'
        '<button type="button" style="position:absolute;top:.5rem;right:.5rem" '
        "onclick=\"this.parentNode.remove()\">Dismiss</button></div>"
    )


PLACEHOLDER = (b"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               b"<title>site-gen preview</title></head><body><h1>No page here yet</h1>"
               b"<p>Nothing has been built at this address.</p></body></html>\n")

LIVE_SCRIPT = b"""// site-gen preview: reload this page when a rebuild changed it, or its problems changed.
(() => {
  const me = document.currentScript.dataset;
  let generation = Number(me.generation);
  const source = new EventSource(me.events + "?since=" + generation);
  source.onmessage = (message) => {
    const build = JSON.parse(message.data);
    if (build.session !== me.session) return location.reload();
    if (build.generation <= generation) return;
    generation = build.generation;
    const mine = build.changed === null || build.changed.includes(me.page);
    if (mine || build.problems !== me.problems) location.reload();
  };
})();
"""
