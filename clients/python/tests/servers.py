"""Real HTTP servers for tests: a scripted one on loopback, and the real Engram server.

Both kinds are described by :class:`LiveServer` (an origin and a key), so a test written against
one can be pointed at the other. :func:`start_engram_server` starts the real server from the
repository this package sits in, the same way clients/typescript/scripts/e2e.sh does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple


@dataclass(frozen=True)
class LiveServer:
    """A server listening somewhere and a key it accepts.

    For the real Engram server, ``api_key`` is a Full-access key with the profile tick reaching
    ``containers`` (two or more). The other fields are there when the server was started by the
    tests (or named by the matching ENGRAM_E2E_* variables); a test needing one skips without it.
    """

    base_url: str
    api_key: str
    containers: Tuple[str, ...] = ()
    # A Read key reaching only containers[0].
    read_key: Optional[str] = None
    # The owner's session token (egs_...), for the owner's routes the client does not cover.
    owner_token: Optional[str] = None
    # A second server whose per-credential limit is `rate_limit` requests a minute, with a key for it.
    limited: Optional["LiveServer"] = None
    rate_limit: Optional[int] = None


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


# End-to-end tests against the real Engram server.
#
# A running server can be given from outside with ENGRAM_E2E_BASE_URL and ENGRAM_E2E_API_KEY (and
# optionally the other ENGRAM_E2E_* variables below, the same ones the TypeScript client's e2e.sh
# sets). Otherwise start_engram_server starts one from the repository's CLI; the `engram_server`
# fixture in conftest.py skips the tests when neither is possible, or fails them when
# ENGRAM_E2E_REQUIRED=1 (scripts/test.sh sets it, so CI cannot skip them silently).

E2E_BASE_URL_ENV = "ENGRAM_E2E_BASE_URL"
E2E_API_KEY_ENV = "ENGRAM_E2E_API_KEY"
E2E_REQUIRED_ENV = "ENGRAM_E2E_REQUIRED"

# The repository root, when this package sits in an Engram checkout (clients/python/tests/ here).
REPO_ROOT = Path(__file__).resolve().parents[3]
BUN = REPO_ROOT / "node_modules" / ".bin" / "bun"
OWNER_EMAIL = "owner@example.org"
OWNER_PASSWORD = "correct horse battery staple"
RATE_LIMIT = 3


def engram_server_from_env() -> Optional[LiveServer]:
    """The server named by ENGRAM_E2E_BASE_URL and ENGRAM_E2E_API_KEY, when both are set."""
    env = os.environ
    base_url = env.get(E2E_BASE_URL_ENV)
    api_key = env.get(E2E_API_KEY_ENV)
    if not (base_url and api_key):
        return None
    limited = None
    if env.get("ENGRAM_E2E_LIMITED_BASE_URL") and env.get("ENGRAM_E2E_LIMITED_API_KEY"):
        limited = LiveServer(base_url=env["ENGRAM_E2E_LIMITED_BASE_URL"], api_key=env["ENGRAM_E2E_LIMITED_API_KEY"])
    return LiveServer(
        base_url=base_url,
        api_key=api_key,
        containers=tuple(c for c in env.get("ENGRAM_E2E_CONTAINERS", "").split(",") if c),
        read_key=env.get("ENGRAM_E2E_READ_KEY") or None,
        owner_token=env.get("ENGRAM_E2E_OWNER_TOKEN") or None,
        limited=limited,
        rate_limit=int(env["ENGRAM_E2E_RATE_LIMIT"]) if limited and env.get("ENGRAM_E2E_RATE_LIMIT") else None,
    )


def start_engram_server() -> Optional[Tuple[LiveServer, Callable[[], None]]]:
    """Start real Engram servers for the e2e tests: ``(LiveServer, stop)``, or None outside a checkout.

    The owner, two containers and the keys are made with the ``engram`` CLI on a temporary data
    directory, then ``engram serve`` runs on 127.0.0.1 with a port the kernel picks. A second
    server with a per-credential limit of RATE_LIMIT requests a minute is ``limited``. ``stop``
    ends both, sweeps their data and logs for secrets (see :func:`sweep_for_secrets`), and removes
    them. Raises when the checkout is there but a server will not start.
    """
    if not (REPO_ROOT / "src" / "main.ts").is_file():
        return None  # the package's tests run outside the repository (from an sdist): no server
    if not BUN.exists():
        raise RuntimeError(f"{BUN} is missing: run npm ci in {REPO_ROOT}")
    work = Path(tempfile.mkdtemp(prefix="engram-py-e2e-"))
    processes: List[subprocess.Popen] = []

    def stop() -> None:
        for process in processes:
            _terminate(process)
        stores = [d for d in (work / "main", work / "limited") if d.exists()]
        sweep_for_secrets("py:clients/python", stores=stores, logs=sorted(work.glob("*.log")))
        shutil.rmtree(work, ignore_errors=True)

    try:
        main = work / "main"
        _account(main)
        work_ctr = _engram(main, "containers", "create", "Work", "--description", "Projects and deadlines")
        home_ctr = _engram(main, "containers", "create", "Home")
        reach = f"{work_ctr},{home_ctr}"
        full_key = _engram(main, "keys", "create", "--name", "e2e full access", "--level", "manage", "--containers", reach, "--profile")
        read_key = _engram(main, "keys", "create", "--name", "e2e read, Work only", "--level", "read", "--containers", work_ctr)
        owner_token = _engram(main, "owner", "token")
        main_url = _serve(main, work / "main.log", processes, {})

        limited_dir = work / "limited"
        _account(limited_dir)
        only = _engram(limited_dir, "containers", "create", "Only")
        limited_key = _engram(limited_dir, "keys", "create", "--name", "e2e limited", "--level", "read", "--containers", only)
        limited_url = _serve(limited_dir, work / "limited.log", processes, {"ENGRAM_RATE_LIMIT_PER_MIN": str(RATE_LIMIT)})
    except BaseException:
        stop()
        raise
    server = LiveServer(
        base_url=main_url,
        api_key=full_key,
        containers=(work_ctr, home_ctr),
        read_key=read_key,
        owner_token=owner_token,
        limited=LiveServer(base_url=limited_url, api_key=limited_key),
        rate_limit=RATE_LIMIT,
    )
    return server, stop


def sweep_for_secrets(harness: str, stores: List[Path], logs: List[Path]) -> None:
    """Search the servers' data directories and logs for anything shaped like a credential.

    Runs the repository's sweep (test/helpers/secret-sweep.ts), which also writes a line to
    ENGRAM_HYGIENE_LEDGER when set. Fails with AssertionError on a finding, before anything is
    removed, so the files stay for inspection; the message names file, offset and a hint only.
    """
    args = [str(BUN), "test/helpers/secret-sweep.ts", "--harness", harness, "--quiet"]
    for store in stores:
        args += ["--store", str(store)]
    for log in logs:
        args += ["--log", str(log)]
    done = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:  # not `assert`: it must fail under python -O too
        raise AssertionError(f"secret sweep failed (files kept):\n{done.stdout}{done.stderr}")


def _engram(data_dir: Path, *args: str, stdin: Optional[str] = None) -> str:
    """One CLI command on ``data_dir``; its standard output, stripped."""
    done = subprocess.run(
        [str(BUN), "src/main.ts", *args, "--data", str(data_dir)],
        cwd=REPO_ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ENGRAM_LOG_LEVEL": "warn"},
    )
    if done.returncode != 0:
        raise RuntimeError(f"engram {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout.strip()


def _account(data_dir: Path) -> None:
    _engram(data_dir, "owner", "create", "--email", OWNER_EMAIL, stdin=f"{OWNER_PASSWORD}\n")


_LISTENING = re.compile(r'"msg":"engram listening","url":"([^"]+)"')


def _serve(data_dir: Path, log_path: Path, processes: List[subprocess.Popen], env: Dict[str, str]) -> str:
    """Start ``engram serve`` on port 0; its origin, read from its log, once /healthz answers."""
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [str(BUN), "src/main.ts", "serve", "--host", "127.0.0.1", "--port", "0", "--data", str(data_dir)],
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            # The fast embedding tier alone: these tests are about the client, not ranking, and the
            # default tier would load the strong model and refine every passage in the background.
            env={**os.environ, "ENGRAM_LOG_LEVEL": "info", "ENGRAM_EMBEDDER": "fast", **env},
        )
    processes.append(process)
    deadline = time.monotonic() + 30
    base_url = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"engram serve exited {process.returncode}:\n{log_path.read_text()}")
        if base_url is None:
            match = _LISTENING.search(log_path.read_text())
            base_url = match.group(1) if match else None
        if base_url is not None:
            try:
                with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as response:
                    if response.status == 200:
                        return base_url
            except OSError:
                pass
        time.sleep(0.1)
    raise RuntimeError(f"engram serve did not answer /healthz within 30 s:\n{log_path.read_text()}")


def _terminate(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
