"""Real HTTP servers for tests: a scripted one on loopback, and the seam for the real Engram server.

Both kinds are described by :class:`LiveServer` (an origin and a key), so a test written against
one can be pointed at the other.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class LiveServer:
    """A server listening somewhere and a key it accepts."""

    base_url: str
    api_key: str


@dataclass
class Answer:
    """One scripted answer: status, JSON body, headers, and a delay before answering (seconds)."""

    status: int = 200
    body: Any = None
    headers: Dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: Dict[str, str]
    body: Any


class ScriptedServer:
    """An http.server on 127.0.0.1 with an ephemeral port, answering from a script, in a thread.

    The last answer repeats once the script runs out. Use as a context manager.
    """

    def __init__(self, *answers: Answer) -> None:
        if not answers:
            raise ValueError("give at least one answer")
        self._answers = list(answers)
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.received: List[Received] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-server", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def _next(self) -> Answer:
        with self._lock:
            return self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]

    def _handler_class(self) -> type:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                with server._lock:
                    server.received.append(
                        Received(self.command, self.path, dict(self.headers), json.loads(raw) if raw else None)
                    )
                answer = server._next()
                if answer.delay and server._closing.wait(answer.delay):
                    return
                payload = b"" if answer.body is None else json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = _handle

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

        return Handler

    def __enter__(self) -> "ScriptedServer":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def closed_port() -> int:
    """A loopback port with nothing listening on it (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The seam for end-to-end tests against the real Engram server.
#
# Today a running server is given from outside: ENGRAM_E2E_BASE_URL and ENGRAM_E2E_API_KEY.
# To have the tests start one themselves, implement start_engram_server below (e.g. run
# `bun src/main.ts serve --host 127.0.0.1 --port <free port> --data <tmp dir>` from the
# repository root, make the owner, a container and a manage-level key with the CLI, and wait
# for the port) and return the LiveServer plus a function that stops it; the fixture
# `engram_server` in conftest.py already calls it and skips the tests when it returns None.

E2E_BASE_URL_ENV = "ENGRAM_E2E_BASE_URL"
E2E_API_KEY_ENV = "ENGRAM_E2E_API_KEY"


def engram_server_from_env() -> Optional[LiveServer]:
    """The server named by ENGRAM_E2E_BASE_URL and ENGRAM_E2E_API_KEY, when both are set."""
    base_url = os.environ.get(E2E_BASE_URL_ENV)
    api_key = os.environ.get(E2E_API_KEY_ENV)
    if base_url and api_key:
        return LiveServer(base_url=base_url, api_key=api_key)
    return None


def start_engram_server() -> Optional[tuple]:
    """Start a real Engram server for the e2e tests: ``(LiveServer, stop)``, or None when not possible.

    Not implemented yet: the server is being written alongside this client.
    """
    return None
