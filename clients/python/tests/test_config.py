"""Configuration: key and origin from arguments or the environment, validation, and lifecycle."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import httpx
import pytest

from engram import AsyncClient, Client, EngramError
from tests.support import API_KEY, API_KEY_HINT

CLIENTS = [Client, AsyncClient]


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError("construction must not send anything")


@pytest.mark.parametrize("cls", CLIENTS)
def test_the_key_falls_back_to_engram_api_key(cls: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_API_KEY", API_KEY)
    client = cls()
    assert client.api_key_hint == API_KEY_HINT


@pytest.mark.parametrize("cls", CLIENTS)
def test_an_explicit_key_wins_over_the_environment(cls: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_API_KEY", "egm_fromEnvironment_000000000000000000")
    assert cls(api_key=API_KEY).api_key_hint == API_KEY_HINT


@pytest.mark.parametrize("cls", CLIENTS)
@pytest.mark.parametrize("given", [None, "", "   "])
def test_a_missing_key_raises_at_construction(cls: type, given: object) -> None:
    with pytest.raises(EngramError, match="ENGRAM_API_KEY"):
        cls(api_key=given)


def test_a_key_with_surrounding_whitespace_is_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_API_KEY", API_KEY + "\n")
    seen = []
    client = Client(http_client=httpx.Client(transport=httpx.MockTransport(
        lambda r: seen.append(r.headers["authorization"]) or httpx.Response(200, json={}))))
    client.rules()
    assert seen == [f"Bearer {API_KEY}"]


def test_a_key_a_header_cannot_carry_is_refused_without_showing_it() -> None:
    bad = API_KEY[:20] + "\x00" + API_KEY[20:]
    with pytest.raises(EngramError) as caught:
        Client(api_key=bad)
    assert bad not in str(caught.value) and API_KEY[:20] not in str(caught.value)


@pytest.mark.parametrize("cls", CLIENTS)
def test_the_origin_falls_back_to_engram_base_url_then_loopback(cls: type, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cls(api_key=API_KEY).base_url == "http://127.0.0.1:8787"
    monkeypatch.setenv("ENGRAM_BASE_URL", "https://memory.example.org/")
    assert cls(api_key=API_KEY).base_url == "https://memory.example.org"
    assert cls(api_key=API_KEY, base_url="http://10.0.0.1:9000").base_url == "http://10.0.0.1:9000"


def test_an_empty_engram_base_url_means_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_BASE_URL", "")
    assert Client(api_key=API_KEY).base_url == "http://127.0.0.1:8787"


@pytest.mark.parametrize("bad", ["127.0.0.1:8787", "ftp://host", "http://", "http://h/?q=1", "not a url"])
def test_a_bad_origin_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        Client(api_key=API_KEY, base_url=bad)


@pytest.mark.parametrize("timeout", [0, -1, "90", True])
def test_a_bad_timeout_is_refused(timeout: object) -> None:
    with pytest.raises(ValueError):
        Client(api_key=API_KEY, timeout=timeout)


@pytest.mark.parametrize("retries", [-1, 1.5, "2", True])
def test_a_bad_max_retries_is_refused(retries: object) -> None:
    with pytest.raises(ValueError):
        Client(api_key=API_KEY, max_retries=retries)


def test_defaults_follow_the_contract() -> None:
    client = Client(api_key=API_KEY)
    assert (client.timeout, client.max_retries) == (90.0, 2)


def test_an_httpx_timeout_is_accepted() -> None:
    client = Client(api_key=API_KEY, timeout=httpx.Timeout(30.0, connect=5.0))
    assert client.timeout.connect == 5.0


def test_http_clients_of_the_wrong_kind_are_refused() -> None:
    with pytest.raises(TypeError):
        Client(api_key=API_KEY, http_client=httpx.AsyncClient())
    with pytest.raises(TypeError):
        AsyncClient(api_key=API_KEY, http_client=httpx.Client())


def test_construction_sends_nothing() -> None:
    http = httpx.Client(transport=httpx.MockTransport(refuse))
    Client(api_key=API_KEY, http_client=http)
    AsyncClient(api_key=API_KEY, http_client=httpx.AsyncClient(transport=httpx.MockTransport(refuse)))


def test_the_context_manager_closes_its_own_pool() -> None:
    with Client(api_key=API_KEY) as client:
        assert not client._http.is_closed
    assert client._http.is_closed


def test_a_given_http_client_is_left_open() -> None:
    http = httpx.Client(transport=httpx.MockTransport(refuse))
    with Client(api_key=API_KEY, http_client=http):
        pass
    assert not http.is_closed
    http.close()


def test_close_twice_is_harmless() -> None:
    client = Client(api_key=API_KEY)
    client.close()
    client.close()


@pytest.mark.anyio
async def test_the_async_context_manager_closes_its_own_pool() -> None:
    async with AsyncClient(api_key=API_KEY) as client:
        assert not client._http.is_closed
    assert client._http.is_closed


@pytest.mark.anyio
async def test_a_given_async_http_client_is_left_open() -> None:
    http = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    async with AsyncClient(api_key=API_KEY, http_client=http):
        pass
    assert not http.is_closed
    await http.aclose()


def test_importing_and_constructing_have_no_side_effects() -> None:
    """In a fresh interpreter: no socket is opened, no env var is needed to import, nothing prints."""
    script = textwrap.dedent(
        """
        import os, socket
        def no_network(*args, **kwargs):
            raise AssertionError("network touched")
        socket.socket.connect = no_network
        socket.create_connection = no_network
        socket.getaddrinfo = no_network
        os.environ.pop("ENGRAM_API_KEY", None)
        import engram
        engram.Client(api_key="egm_abcdefgh_0123456789abcdefghijkl")
        engram.AsyncClient(api_key="egm_abcdefgh_0123456789abcdefghijkl")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
