"""Fixtures shared by the client's tests."""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from tests.servers import E2E_REQUIRED_ENV, LiveServer, engram_server_from_env, start_engram_server
from tests.support import Harness


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own ENGRAM_* settings must not leak into the tests."""
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    monkeypatch.delenv("ENGRAM_BASE_URL", raising=False)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["sync", "async"])
def harness(request: pytest.FixtureRequest) -> Harness:
    """A client factory on a scripted transport, once for Client and once for AsyncClient."""
    return Harness(request.param)


@pytest.fixture(scope="session")
def engram_server() -> Iterator[LiveServer]:
    """A real Engram server and a Full-access key for it, or the test is skipped.

    Taken from ENGRAM_E2E_BASE_URL / ENGRAM_E2E_API_KEY first, else started from the repository
    by tests.servers.start_engram_server. With ENGRAM_E2E_REQUIRED=1 a missing server fails the
    tests instead of skipping them.
    """
    given = engram_server_from_env()
    if given is not None:
        yield given
        return
    started = start_engram_server()
    if started is None:
        reason = "no Engram server: not in a checkout, and ENGRAM_E2E_BASE_URL / ENGRAM_E2E_API_KEY are not set"
        if os.environ.get(E2E_REQUIRED_ENV) == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    server, stop = started
    try:
        yield server
    finally:
        stop()
