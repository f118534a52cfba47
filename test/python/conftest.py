"""Starts the real Engram server for the Python MCP tests.

The account, containers and keys are made with the `engram` CLI subcommands on a fresh data
directory, then `engram serve` runs on a free 127.0.0.1 port until the session ends; an app's
consent token is made over OAuth as an app makes one. Documents are added over REST with the
owner's session token and the fixture waits until they are learned.
At the end the data directory and the server's log are swept for secrets
(test/helpers/secret-sweep.ts) before they are removed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUN = ROOT / "node_modules" / ".bin" / "bun"
EMAIL = "owner@example.org"
PASSWORD = "correct horse battery staple"

GRANTS = [
    ("read", False),
    ("read", True),
    ("suggest", False),
    ("suggest", True),
    ("manage", False),
    ("manage", True),
]


@dataclass
class EngramServer:
    base_url: str
    owner_token: str
    containers: dict[str, str]
    keys: dict[tuple[str, bool], str] = field(default_factory=dict)
    consent_token: str = ""

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp-http"

    def rest(self, method: str, path: str, token: str | None, body: object | None = None) -> tuple[int, object]:
        """One REST call; returns the status and the parsed JSON body."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base_url}{path}", data=data, method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


def the_one_error(error: BaseException) -> BaseException:
    """The one exception inside nested exception groups (the SDKs raise from their task groups)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _engram(data_dir: str, *args: str, stdin: str | None = None) -> str:
    """Runs one CLI subcommand against the data directory and returns its standard output."""
    return _bun("src/main.ts", *args, "--data", data_dir, stdin=stdin)


def _bun(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
    """Runs a script of the repository with Bun and returns its standard output."""
    done = subprocess.run(
        [str(BUN), *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ENGRAM_LOG_LEVEL": "warn", **(env or {})},
    )
    if done.returncode != 0:
        raise RuntimeError(f"bun {' '.join(args[:2])} exited {done.returncode}: {done.stderr}")
    return done.stdout.strip()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(base_url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"engram serve exited {process.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"engram serve did not answer /healthz within 30 s:\n{log_path.read_text()}")


@pytest.fixture(scope="session")
def engram() -> EngramServer:
    if not BUN.exists():
        pytest.fail(f"{BUN} is missing: run npm install in {ROOT}")
    work = Path(tempfile.mkdtemp(prefix="engram-pytest-"))
    data_dir = str(work / "data")
    log_path = work / "serve.log"
    process = None
    try:
        _engram(data_dir, "owner", "create", "--email", EMAIL, stdin=f"{PASSWORD}\n")
        containers = {name: _engram(data_dir, "containers", "create", name) for name in ("Food", "Work", "Secret")}
        reach = f"{containers['Food']},{containers['Work']}"
        keys = {}
        for level, profile in GRANTS:
            args = ["keys", "create", "--name", f"pytest {level} {profile}", "--level", level, "--containers", reach]
            keys[(level, profile)] = _engram(data_dir, *args, *(["--profile"] if profile else []))
        owner_token = _engram(data_dir, "owner", "token")

        port = _free_port()
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                [str(BUN), "src/main.ts", "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data_dir],
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                # The fast embedding tier alone: these tests are about the MCP surface, not ranking, and the
                # default tier would load the strong model and refine every passage in the background.
                env={**os.environ, "ENGRAM_LOG_LEVEL": "warn", "ENGRAM_EMBEDDER": "fast"},
            )
        base_url = f"http://127.0.0.1:{port}"
        _wait_healthy(base_url, process, log_path)

        # An app's consent token, made as an app and its owner make one: OAuth over HTTP (scripts/lib/consent-token.ts).
        consent_token = _bun(
            "scripts/lib/consent-token.ts", "--url", base_url, "--email", EMAIL, "--containers", containers["Food"], "--profile",
            env={"ENGRAM_PASSWORD": PASSWORD},
        )
        server = EngramServer(base_url=base_url, owner_token=owner_token, containers=containers, keys=keys, consent_token=consent_token)
        documents = [
            (containers["Food"], "She eats oatmeal with blueberries for breakfast every morning."),
            (containers["Work"], "The quarterly report for the board is due on Friday."),
            (containers["Secret"], "The oatmeal in the secret container must never reach a key."),
        ]
        ids = []
        for container, content in documents:
            status, body = server.rest("POST", "/v1/documents", owner_token, {"container": container, "content": content})
            assert status == 202, body
            ids.append(body["id"])
        _wait_learned(server, ids)
        yield server
    finally:
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        _sweep(work / "data", log_path)
        shutil.rmtree(work, ignore_errors=True)


def _sweep(data_dir: Path, log_path: Path) -> None:
    """Fails on anything shaped like a credential in the store or the log, leaving them for inspection."""
    args = [str(BUN), "test/helpers/secret-sweep.ts", "--harness", "py:test/python", "--quiet"]
    args += ["--store", str(data_dir)] if data_dir.exists() else []
    args += ["--log", str(log_path)] if log_path.exists() else []
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:  # not `assert`: it must fail under python -O too
        raise AssertionError(f"secret sweep failed (files kept in {data_dir.parent}):\n{done.stdout}{done.stderr}")


def _wait_learned(server: EngramServer, ids: list[str]) -> None:
    deadline = time.monotonic() + 60
    pending = set(ids)
    while pending and time.monotonic() < deadline:
        for doc_id in list(pending):
            status, body = server.rest("GET", f"/v1/documents/{doc_id}", server.owner_token)
            assert status == 200, body
            if body["learned"]:
                pending.discard(doc_id)
            elif body.get("status") == "failed":
                raise RuntimeError(f"learning failed for {doc_id}: {body.get('error')}")
        if pending:
            time.sleep(0.1)
    if pending:
        raise RuntimeError(f"documents not learned within 60 s: {sorted(pending)}")
