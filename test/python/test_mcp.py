"""Engram over MCP from Python, with the official `mcp` SDK client, in both protocol eras.

The SDK's three modes each land where they should: `mode="2026-07-28"` and the default probing
(`auto`, which sends `server/discover` first) in the 2026-07-28 era, `mode="legacy"` in the
handshake era. In every mode, over /mcp-http and through `engram mcp` started from `/`, a key sees
exactly its tools, a search answers what REST answers, a tool outside the grant is refused with
the server's message and trace id (an MCPError, and the session goes on), a container outside reach
is a tool error, and an app's consent token gets its read-only set. Resources are listed and read
per credential (the profile only with its tick, never a container outside reach) and prompts offered
per credential, their arguments checked. Over HTTP the refusals are also checked on the wire: 401
with the RFC 6750 challenge, 403 with the refusal as a JSON-RPC error.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import BUN, GRANTS, ROOT, EngramServer, the_one_error

MODES = [("2026-07-28", "2026-07-28"), ("auto", "2026-07-28"), ("legacy", "2025-11-25")]
"""Each mode of the SDK, and the protocol version it lands on against Engram."""
DOORS = ["http", "stdio"]


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


def attempt(
    server: EngramServer, token: str | None, work, *, mode: str = "auto", door: str = "http", path: str = "/mcp-http"
) -> tuple[Any, Recorder]:
    """Connects an SDK client in `mode` with `token` as its bearer (over /mcp-http or `path`, or through
    the bridge started from `/`) and returns what `work(client)` returns, or the exception it raised."""
    recorder = Recorder()

    async def main() -> Any:
        if door == "stdio":
            bridge = StdioServerParameters(
                command=str(BUN),
                args=[str(ROOT / "src" / "main.ts"), "mcp", "--url", server.base_url, "--key", token or ""],
                cwd="/",
                env={"PATH": os.environ.get("PATH", "")},
            )
            async with Client(bridge, mode=mode) as client:
                return await work(client)
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"} if token else None)
        http.event_hooks["response"].append(recorder)
        async with http:
            async with Client(streamable_http_client(f"{server.base_url}{path}", http_client=http), mode=mode) as client:
                return await work(client)

    try:
        return anyio.run(main), recorder
    except Exception as error:  # the SDK raises MCPError, often inside an exception group
        return error, recorder


def run_session(server: EngramServer, token: str | None, work, **how: Any) -> tuple[Any, Recorder]:
    outcome, recorder = attempt(server, token, work, **how)
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome, recorder


async def tool_names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


@pytest.mark.parametrize(("level", "profile"), GRANTS, ids=[f"{lvl}-{'profile' if p else 'noprofile'}" for lvl, p in GRANTS])
@pytest.mark.parametrize(("mode", "version"), MODES, ids=[m for m, _ in MODES])
def test_tools_list_is_exactly_the_grant(engram: EngramServer, level: str, profile: bool, mode: str, version: str) -> None:
    names, _ = run_session(engram, engram.keys[(level, profile)], tool_names, mode=mode)
    assert names == expected_tools(level, profile)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(("mode", "version"), MODES, ids=[m for m, _ in MODES])
def test_lands_in_its_era_and_search_answers_what_rest_answers(engram: EngramServer, mode: str, version: str, door: str) -> None:
    key = engram.keys[("read", True)]
    args = {"q": "oatmeal for breakfast", "container": "*"}

    async def work(client: Client) -> tuple[str, list[str], Any]:
        return client.protocol_version, await tool_names(client), await client.call_tool("search_memories", args)

    (negotiated, names, result), recorder = run_session(engram, key, work, mode=mode, door=door)
    assert negotiated == version
    assert names == expected_tools("read", True)
    assert not result.is_error
    status, by_rest = engram.rest("POST", "/v1/search", key, args)
    assert status == 200
    assert result.structured_content == by_rest
    assert json.loads(result.content[0].text) == by_rest
    assert "oatmeal" in by_rest["results"][0]["content"]
    assert all(hit["container"] != engram.containers["Secret"] for hit in by_rest["results"])
    if door == "http":
        assert all("mcp-session-id" not in headers for _, headers, _ in recorder.answers)
        first_status, _, first_body = recorder.answers[0]
        if mode == "auto":
            # The probe: server/discover at 2026-07-28, answered, so no fallback to initialize.
            assert first_status == 200
            assert first_body["result"]["supportedVersions"] == ["2026-07-28"]


@pytest.mark.parametrize("path", ["/mcp", "/mcp-http/"])
@pytest.mark.parametrize(("mode", "version"), MODES, ids=[m for m, _ in MODES])
def test_the_other_spellings_of_the_address_answer_as_mcp_http(engram: EngramServer, path: str, mode: str, version: str) -> None:
    async def work(client: Client) -> tuple[str, list[str], Any]:
        found = await client.call_tool("search_memories", {"q": "oatmeal for breakfast", "container": "*"})
        return client.protocol_version, await tool_names(client), found

    (negotiated, names, found), _ = run_session(engram, engram.keys[("read", False)], work, mode=mode, path=path)
    assert negotiated == version
    assert names == expected_tools("read", False)
    assert "oatmeal" in found.structured_content["results"][0]["content"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_missing_or_unknown_key_is_refused_with_401(engram: EngramServer, mode: str) -> None:
    for token, description in [
        (None, "A bearer credential is required."),
        ("egm_AAAAAAAAAAAA_notarealsecretnotarealsecretnotarealsecret", "The credential is not known to this server."),
    ]:
        outcome, recorder = attempt(engram, token, tool_names, mode=mode)
        assert isinstance(outcome, Exception)
        status, headers, body = recorder.last
        assert status == 401
        assert headers["www-authenticate"] == (
            f'Bearer error="invalid_token", resource_metadata="{engram.base_url}/.well-known/oauth-protected-resource/mcp-http"'
        )
        assert body == {"error": "invalid_token", "error_description": description}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(("mode", "version"), MODES, ids=[m for m, _ in MODES])
def test_a_tool_outside_the_grant_is_refused_with_the_servers_message_and_trace_id(
    engram: EngramServer, mode: str, version: str, door: str
) -> None:
    async def work(client: Client) -> tuple[BaseException, Any]:
        try:
            await client.call_tool("add_memory", {"content": "Likes jazz.", "container": engram.containers["Food"]})
        except MCPError as error:
            refused = error
        else:
            raise AssertionError("add_memory was not refused")
        # The session goes on after the refusal.
        return refused, await client.call_tool("list_containers", {})

    (refused, after), recorder = run_session(engram, engram.keys[("read", True)], work, mode=mode, door=door)
    message = "The tool add_memory is not in this credential's capability profile."
    assert refused.error.code == -32000
    assert refused.error.message == message
    data = refused.error.data
    assert data == {"code": "unauthorized", "details": {"tool": "add_memory"}, "retryable": False, "trace_id": data["trace_id"]}
    assert data["trace_id"].startswith("tr_")
    assert not after.is_error
    if door == "stdio":
        return
    status, headers, body = next(answer for answer in recorder.answers if answer[0] >= 400)
    assert status == 403
    assert "www-authenticate" not in headers
    assert headers["x-trace-id"] == data["trace_id"]
    assert body == {"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32000, "message": message, "data": data}}
    assert isinstance(body["id"], int | str)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_a_container_outside_reach_is_a_tool_error(engram: EngramServer, mode: str, door: str) -> None:
    secret = engram.containers["Secret"]

    async def work(client: Client) -> Any:
        return await client.call_tool("search_memories", {"q": "oatmeal", "container": secret})

    result, _ = run_session(engram, engram.keys[("manage", True)], work, mode=mode, door=door)
    assert result.is_error
    envelope = result.structured_content
    assert envelope["code"] == "unauthorized"
    assert envelope["message"] == f"The container {secret} may not be used with this credential."
    assert json.loads(result.content[0].text) == envelope


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_a_consent_token_gets_the_read_only_set(engram: EngramServer, mode: str, door: str) -> None:
    async def work(client: Client) -> tuple[list[str], Any]:
        return await tool_names(client), await client.call_tool("list_containers", {})

    (names, listed), _ = run_session(engram, engram.consent_token, work, mode=mode, door=door)
    assert names == ["list_containers", "search_memories", "get_profile"]
    assert [c["id"] for c in listed.structured_content["containers"]] == [engram.containers["Food"]]

    async def write(client: Client) -> Any:
        return await client.call_tool("add_document", {"container": engram.containers["Food"], "content": "x"})

    outcome, _ = attempt(engram, engram.consent_token, write, mode=mode, door=door)
    outcome = the_one_error(outcome)
    assert isinstance(outcome, MCPError)
    assert outcome.error.message.startswith("The tool add_document is not in the agent's capability profile")
    assert outcome.error.data["trace_id"].startswith("tr_")


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(("mode", "version"), MODES, ids=[m for m, _ in MODES])
def test_resources_are_listed_and_read_per_credential(engram: EngramServer, mode: str, version: str, door: str) -> None:
    food, work, secret = (engram.containers[name] for name in ("Food", "Work", "Secret"))

    async def work_with(client: Client) -> dict[str, Any]:
        listed = await client.list_resources()
        templates = (await client.list_resource_templates()).resource_templates
        seen: dict[str, Any] = {"uris": [r.uri for r in listed.resources], "templates": [t.uri_template for t in templates], "read": {}}
        for uri in seen["uris"]:
            contents = (await client.read_resource(uri)).contents
            assert len(contents) == 1 and contents[0].mime_type == "application/json"
            seen["read"][uri] = json.loads(contents[0].text)
        seen["refused"] = {}
        for uri in ["engram://profile", f"engram://containers/{secret}", "engram://containers/ctr_doesNotExist00"]:
            if uri in seen["uris"]:
                continue
            try:
                await client.read_resource(uri)
            except MCPError as error:
                seen["refused"][uri] = error.error
            else:
                raise AssertionError(f"{uri} was read")
        return seen

    with_tick, _ = run_session(engram, engram.keys[("read", True)], work_with, mode=mode, door=door)
    assert with_tick["uris"] == ["engram://profile", f"engram://containers/{food}", f"engram://containers/{work}"]
    assert with_tick["templates"] == ["engram://documents/{document_id}"]
    status, by_rest = engram.rest("GET", "/v1/profile", engram.keys[("read", True)])
    assert status == 200 and with_tick["read"]["engram://profile"] == by_rest
    overview = with_tick["read"][f"engram://containers/{food}"]
    status, documents = engram.rest("GET", f"/v1/documents?container={food}", engram.keys[("read", True)])
    assert status == 200 and [d["id"] for d in overview["documents"]] == [d["id"] for d in documents["documents"]]
    assert overview["container"]["id"] == food and len(overview["documents"]) == 1

    without_tick, _ = run_session(engram, engram.keys[("read", False)], work_with, mode=mode, door=door)
    assert without_tick["uris"] == [f"engram://containers/{food}", f"engram://containers/{work}"]
    refused = without_tick["refused"]
    assert refused["engram://profile"].code == -32602
    assert refused["engram://profile"].message == "The resource engram://profile may not be read with this credential."
    assert refused["engram://profile"].data["trace_id"].startswith("tr_")
    for container in [secret, "ctr_doesNotExist00"]:
        error = refused[f"engram://containers/{container}"]
        assert (error.code, error.message) == (-32602, f"The container {container} may not be used with this credential.")
        assert error.data["uri"] == f"engram://containers/{container}"


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(("mode", "version"), MODES, ids=[m for m, _ in MODES])
def test_prompts_are_offered_per_credential_and_their_arguments_checked(engram: EngramServer, mode: str, version: str, door: str) -> None:
    async def work_with(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {"names": [p.name for p in (await client.list_prompts()).prompts]}
        recalled = await client.get_prompt("recall", {"subject": "oatmeal for breakfast"})
        seen["recall"] = recalled.messages[0].content.text
        try:
            await client.get_prompt("recall", {})
        except MCPError as error:
            seen["missing"] = error.error
        if "save_decisions" in seen["names"]:
            seen["save"] = (await client.get_prompt("save_decisions", {"container": engram.containers["Food"]})).messages[0].content.text
        return seen

    reader, _ = run_session(engram, engram.keys[("read", False)], work_with, mode=mode, door=door)
    assert reader["names"] == ["recall"]
    assert "[Food] She eats oatmeal with blueberries" in reader["recall"]
    assert "secret" not in reader["recall"]
    assert reader["missing"].code == -32602
    assert reader["missing"].data["details"]["fields"] == ["subject"]
    writer, _ = run_session(engram, engram.keys[("suggest", False)], work_with, mode=mode, door=door)
    assert writer["names"] == ["recall", "save_decisions"]
    assert f'add_memory tool, content set to that sentence, with container "{engram.containers["Food"]}" (Food)' in writer["save"]
