"""The clients against a real HTTP server on 127.0.0.1: real sockets, real waits, real timeouts."""

from __future__ import annotations

import time

import pytest

from engram import APIConnectionError, APITimeoutError, AsyncClient, Client, InternalServerError
from tests.servers import Answer, ScriptedServer, closed_port
from tests.support import API_KEY

UNAVAILABLE = Answer(503, {"code": "internal", "message": "Starting up.", "details": None,
                           "retryable": True, "trace_id": "tr_503"})
CONTAINERS = {"containers": [{"id": "ctr_1", "name": "Work", "description": "", "created_at": "t"}]}
# Two backoff waits (0.5 s and 1 s) less at most 25 % jitter each.
MIN_TWO_WAITS = (0.5 + 1.0) * 0.75


def test_sync_client_recovers_after_two_503s() -> None:
    with ScriptedServer(UNAVAILABLE, UNAVAILABLE, Answer(200, CONTAINERS)) as server:
        with Client(api_key=API_KEY, base_url=server.base_url) as client:
            started = time.monotonic()
            assert client.containers.list() == CONTAINERS
            elapsed = time.monotonic() - started
    assert len(server.received) == 3
    assert all(r.method == "GET" and r.path == "/v1/containers" for r in server.received)
    assert all(r.headers["Authorization"] == f"Bearer {API_KEY}" for r in server.received)
    assert elapsed >= MIN_TWO_WAITS


@pytest.mark.anyio
async def test_async_client_recovers_after_two_503s() -> None:
    with ScriptedServer(UNAVAILABLE, UNAVAILABLE, Answer(200, {"results": [], "containers": []})) as server:
        async with AsyncClient(api_key=API_KEY, base_url=server.base_url) as client:
            started = time.monotonic()
            assert await client.search("tea", limit=3) == {"results": [], "containers": []}
            elapsed = time.monotonic() - started
    assert [r.body for r in server.received] == [{"q": "tea", "limit": 3}] * 3
    assert elapsed >= MIN_TWO_WAITS


def test_503_to_the_end_raises_with_the_trace_id() -> None:
    with ScriptedServer(UNAVAILABLE) as server:
        client = Client(api_key=API_KEY, base_url=server.base_url, max_retries=1)
        client._sleep = lambda seconds: None
        with pytest.raises(InternalServerError) as caught:
            client.rules()
        client.close()
    assert caught.value.trace_id == "tr_503"
    assert len(server.received) == 2


def test_a_slow_server_gives_api_timeout_error() -> None:
    with ScriptedServer(Answer(200, {}, delay=5.0)) as server:
        with Client(api_key=API_KEY, base_url=server.base_url, timeout=0.2, max_retries=0) as client:
            with pytest.raises(APITimeoutError):
                client.rules()


def test_nothing_listening_gives_api_connection_error() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}"
    with Client(api_key=API_KEY, base_url=base_url, max_retries=1) as client:
        waits = []
        client._sleep = waits.append
        with pytest.raises(APIConnectionError) as caught:
            client.containers.list()
    assert not isinstance(caught.value, APITimeoutError)
    assert base_url in caught.value.message
    assert len(waits) == 1


@pytest.mark.anyio
async def test_async_nothing_listening_gives_api_connection_error() -> None:
    async with AsyncClient(api_key=API_KEY, base_url=f"http://127.0.0.1:{closed_port()}", max_retries=0) as client:
        with pytest.raises(APIConnectionError):
            await client.containers.list()
