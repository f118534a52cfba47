"""A refusal seen from the maintenance line of the official Python SDK, `mcp` 1.x (1.30.0), which
langchain-mcp-adapters 0.3 requires. It speaks only the handshake era.

Through `engram mcp` (stdio) a refused call is an McpError with the server's message and trace id,
and the session goes on. Over /mcp-http the SDK ends the whole session on any HTTP error status
other than 404, whatever the body says (`response.raise_for_status()` inside the task group that
carries the session): what reaches the caller is an httpx.HTTPStatusError for the 403 whose
response carries the X-Trace-Id header; the message does not. docs/mcp.md says so, and that mcp
2.0.0 reads the JSON-RPC error in the body instead (test/python/test_mcp.py).
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import httpx
from mcp import ClientSession, McpError
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import BUN, ROOT, EngramServer, the_one_error

REFUSAL = "The tool add_memory is not in this credential's capability profile."


async def refused_then_listed(session: ClientSession, engram: EngramServer) -> tuple[McpError, Any]:
    """Calls a tool outside a Read key's grant, then one inside it, in the same session."""
    await session.initialize()
    try:
        await session.call_tool("add_memory", {"content": "Likes jazz.", "container": engram.containers["Food"]})
    except McpError as error:
        refused = error
    else:
        raise AssertionError("add_memory was not refused")
    return refused, await session.call_tool("list_containers", {})


def test_through_the_bridge_a_refusal_carries_the_servers_message_and_trace_id_and_the_session_goes_on(engram: EngramServer) -> None:
    bridge = StdioServerParameters(
        command=str(BUN),
        args=[str(ROOT / "src" / "main.ts"), "mcp", "--url", engram.base_url, "--key", engram.keys[("read", True)]],
        cwd="/",
        env={"PATH": os.environ.get("PATH", "")},
    )

    async def main() -> tuple[McpError, Any]:
        async with stdio_client(bridge) as (read, write), ClientSession(read, write) as session:
            return await refused_then_listed(session, engram)

    refused, listed = anyio.run(main)
    assert refused.error.code == -32000
    assert refused.error.message == REFUSAL
    assert refused.error.data["code"] == "unauthorized"
    assert refused.error.data["details"] == {"tool": "add_memory"}
    assert refused.error.data["trace_id"].startswith("tr_")
    assert not listed.isError


def test_over_http_a_refusal_ends_the_session_with_the_403_and_its_trace_id_header(engram: EngramServer) -> None:
    headers = {"Authorization": f"Bearer {engram.keys[('read', True)]}"}
    reached_after = []

    async def main() -> None:
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(engram.mcp_url, http_client=http) as (read, write, _):
                async with ClientSession(read, write) as session:
                    await refused_then_listed(session, engram)
                    reached_after.append(True)

    try:
        anyio.run(main)
    except BaseException as error:  # noqa: BLE001 - what the SDK raises is what this test is about
        ended = the_one_error(error)
    else:
        raise AssertionError("the session was not ended")
    assert reached_after == []
    assert isinstance(ended, httpx.HTTPStatusError)
    assert ended.response.status_code == 403
    assert ended.response.headers["x-trace-id"].startswith("tr_")
    assert REFUSAL not in str(ended)
