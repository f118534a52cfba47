"""Engram over MCP from Python, with the official `mcp` SDK client over Streamable HTTP.

The basics a Python agent relies on: each developer key sees exactly its tools, a search answers
what REST answers, and refusals arrive as the contract says (401 with the RFC 6750 challenge,
403 with the error envelope, a container outside reach as a tool error).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import GRANTS, EngramServer


def expected_tools(level: str, profile: bool) -> list[str]:
    read = ["list_containers", "search_memories", *(["get_profile"] if profile else []), "list_documents", "memory_rules"]
    suggest = [*read, "add_memory", "add_document"]
    return {"read": read, "suggest": suggest, "manage": [*suggest, "delete_document", "forget_memory"]}[level]


class Recorder:
    """Keeps every HTTP answer the SDK got: status, headers and body."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, dict[str, str], Any]] = []

    async def __call__(self, response: Any) -> None:
        await response.aread()
        try:
            body = response.json()
        except ValueError:
            body = response.text
        self.answers.append((response.status_code, dict(response.headers), body))

    @property
    def last(self) -> tuple[int, dict[str, str], Any]:
        return self.answers[-1]


def run_session(server: EngramServer, token: str | None, work) -> tuple[Any, Recorder]:
    """Connects an SDK client with `token` as its bearer and returns what `work(client)` returns."""
    outcome, recorder = attempt(server, token, work)
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome, recorder


def attempt(server: EngramServer, token: str | None, work) -> tuple[Any, Recorder]:
    """Like run_session, but a failure is returned (as the exception) instead of raised."""
    recorder = Recorder()

    async def main() -> Any:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"} if token else None)
        http.event_hooks["response"].append(recorder)
        async with http:
            async with Client(streamable_http_client(server.mcp_url, http_client=http)) as client:
                return await work(client)

    try:
        return anyio.run(main), recorder
    except Exception as error:  # the SDK raises MCPError, often inside an exception group
        return error, recorder


@pytest.mark.parametrize(("level", "profile"), GRANTS, ids=[f"{lvl}-{'profile' if p else 'noprofile'}" for lvl, p in GRANTS])
def test_tools_list_is_exactly_the_grant(engram: EngramServer, level: str, profile: bool) -> None:
    async def work(client: Client) -> list[str]:
        return [tool.name for tool in (await client.list_tools()).tools]

    names, _ = run_session(engram, engram.keys[(level, profile)], work)
    assert names == expected_tools(level, profile)


def test_search_answers_what_rest_answers(engram: EngramServer) -> None:
    key = engram.keys[("read", False)]
    args = {"q": "oatmeal for breakfast", "container": "*"}

    async def work(client: Client) -> Any:
        return await client.call_tool("search_memories", args)

    result, _ = run_session(engram, key, work)
    assert not result.is_error
    status, by_rest = engram.rest("POST", "/v1/search", key, args)
    assert status == 200
    assert result.structured_content == by_rest
    assert json.loads(result.content[0].text) == by_rest
    assert "oatmeal" in by_rest["results"][0]["content"]
    assert by_rest["results"][0]["container_name"] == "Food"
    assert all(hit["container"] != engram.containers["Secret"] for hit in by_rest["results"])


def test_negotiates_a_handshake_version_after_probing_discover(engram: EngramServer) -> None:
    async def work(client: Client) -> str:
        return client.session.protocol_version

    version, recorder = run_session(engram, engram.keys[("read", False)], work)
    assert version == "2025-11-25"
    # mcp 2.x probes server/discover (2026-07-28) first; this server does not serve that revision
    # yet, answers 400 (unsupported MCP-Protocol-Version), and the SDK falls back to initialize.
    status, _, body = recorder.answers[0]
    assert status == 400
    assert "Unsupported protocol version: 2026-07-28" in body["error"]["message"]
    assert all("mcp-session-id" not in headers for _, headers, _ in recorder.answers)


def test_a_missing_or_unknown_key_is_refused_with_401(engram: EngramServer) -> None:
    async def work(client: Client) -> None:
        await client.list_tools()

    for token, description in [
        (None, "A bearer credential is required."),
        ("egm_AAAAAAAAAAAA_notarealsecretnotarealsecretnotarealsecret", "The credential is not known to this server."),
    ]:
        outcome, recorder = attempt(engram, token, work)
        assert isinstance(outcome, Exception)
        status, headers, body = recorder.last
        assert status == 401
        assert headers["www-authenticate"] == (
            f'Bearer error="invalid_token", resource_metadata="{engram.base_url}/.well-known/oauth-protected-resource/mcp-http"'
        )
        assert body == {"error": "invalid_token", "error_description": description}


def test_a_tool_outside_the_grant_is_refused_with_403_and_the_envelope(engram: EngramServer) -> None:
    async def work(client: Client) -> Any:
        return await client.call_tool("add_memory", {"content": "Likes jazz.", "container": engram.containers["Food"]})

    outcome, recorder = attempt(engram, engram.keys[("read", True)], work)
    # The SDK raises on the 403 (no tool result exists); the recorder holds the answer.
    assert isinstance(outcome, Exception)
    status, headers, body = recorder.last
    assert status == 403
    assert "www-authenticate" not in headers
    assert body["code"] == "unauthorized"
    assert body["details"] == {"tool": "add_memory"}
    assert body["message"] == "The tool add_memory is not in this credential's capability profile."
    assert body["retryable"] is False
    assert body["trace_id"].startswith("tr_")


def test_a_container_outside_reach_is_a_tool_error(engram: EngramServer) -> None:
    secret = engram.containers["Secret"]

    async def work(client: Client) -> Any:
        return await client.call_tool("search_memories", {"q": "oatmeal", "container": secret})

    result, _ = run_session(engram, engram.keys[("manage", True)], work)
    assert result.is_error
    envelope = result.structured_content
    assert envelope["code"] == "unauthorized"
    assert envelope["message"] == f"The container {secret} may not be used with this credential."
    assert json.loads(result.content[0].text) == envelope
