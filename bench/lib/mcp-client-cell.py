"""One Python client cell of bench/mcp-clients.sh: connect with a Read & write key, list tools,
resources and prompts; the owner lowers the key to Read; call add_memory; print one JSON line of
what the caller saw. Each client runs in its own virtual environment (the script makes them).

Usage: python mcp-client-cell.py CLIENT DOOR   CLIENT: mcp mcp1 fastmcp agents langchain; DOOR: http stdio
Environment: ENGRAM_URL KEY OWNER BUN ROOT FOOD
"""

import asyncio
import json
import os
import sys
import urllib.request

CLIENT, DOOR = sys.argv[1], sys.argv[2]
URL, KEY, OWNER, BUN, ROOT, FOOD = (os.environ[k] for k in ("ENGRAM_URL", "KEY", "OWNER", "BUN", "ROOT", "FOOD"))
HEADERS = {"Authorization": f"Bearer {KEY}"}
BRIDGE = [f"{ROOT}/src/main.ts", "mcp", "--url", URL, "--key", KEY]
REFUSED = ("add_memory", {"content": "Likes jazz.", "container": FOOD})


def lower_key() -> None:
    """The owner lowers the key to Read, as on the key's page: its next call of add_memory is refused."""
    body = json.dumps({"level": "read"}).encode()
    headers = {"Authorization": f"Bearer {OWNER}", "Content-Type": "application/json"}
    request = urllib.request.Request(f"{URL}/v1/api-keys/{KEY.split('_')[1]}", data=body, method="PATCH", headers=headers)
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 200


def shown(error: BaseException) -> str:
    """What the caller holds: every exception inside the group, with the JSON-RPC error's data."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    data = getattr(getattr(error, "error", None), "data", None)
    return f"{type(error).__name__}: {error}" + (f" data={json.dumps(data)}" if data else "")


async def listed(call) -> object:
    try:
        return [item if isinstance(item, str) else getattr(item, "uri", None) or item.name for item in await call]
    except Exception as error:  # a server of an earlier release serves no resources or prompts
        return shown(error)[:100]


async def refusal_then_next(call_tool, next_call) -> dict[str, str]:
    lower_key()
    seen = {}
    try:
        result = await call_tool(*REFUSED)
        seen["refusal"] = f"NOT REFUSED: {str(result)[:200]}"
    except Exception as error:
        seen["refusal"] = shown(error)
    try:
        await next_call()
        seen["after"] = "session goes on"
    except BaseException as error:
        seen["after"] = f"session ended: {shown(error)[:150]}"
    return seen


async def mcp2() -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def cell(client) -> dict:
        seen = {"resources": await listed(_items(client.list_resources(), "resources")),
                "prompts": await listed(_items(client.list_prompts(), "prompts"))}
        return {**seen, **await refusal_then_next(client.call_tool, client.list_tools)}

    if DOOR == "stdio":
        async with Client(StdioServerParameters(command=BUN, args=BRIDGE, cwd="/")) as client:
            return await cell(client)
    async with create_mcp_http_client(headers=HEADERS) as http:
        async with Client(streamable_http_client(f"{URL}/mcp-http", http_client=http)) as client:
            return await cell(client)


async def mcp1() -> dict:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    seen: dict = {}

    async def cell(session) -> None:
        await session.initialize()
        seen["resources"] = await listed(_items(session.list_resources(), "resources"))
        seen["prompts"] = await listed(_items(session.list_prompts(), "prompts"))
        seen.update(await refusal_then_next(session.call_tool, session.list_tools))

    try:
        if DOOR == "stdio":
            async with stdio_client(StdioServerParameters(command=BUN, args=BRIDGE, cwd="/")) as (r, w), ClientSession(r, w) as s:
                await cell(s)
        else:
            async with create_mcp_http_client(headers=HEADERS) as http:
                async with streamable_http_client(f"{URL}/mcp-http", http_client=http) as (r, w, _), ClientSession(r, w) as s:
                    await cell(s)
    except BaseException as error:  # mcp 1.x ends the session from its task group on an HTTP error status
        seen.setdefault("refusal", shown(error))
        seen["after"] = f"session ended: {shown(error)[:150]}"
    return seen


async def fastmcp() -> dict:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

    http = StreamableHttpTransport(f"{URL}/mcp-http", headers=HEADERS)
    async with Client(StdioTransport(command=BUN, args=BRIDGE, cwd="/") if DOOR == "stdio" else http) as client:
        seen = {"resources": await listed(client.list_resources()), "prompts": await listed(client.list_prompts())}
        return {**seen, **await refusal_then_next(client.call_tool, client.list_tools)}


async def agents() -> dict:
    from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

    server = (MCPServerStdio(params={"command": BUN, "args": BRIDGE, "cwd": "/"}, name="engram") if DOOR == "stdio"
              else MCPServerStreamableHttp(params={"url": f"{URL}/mcp-http", "headers": HEADERS}, name="engram"))
    async with server:
        seen = {"prompts": await listed(_items(server.list_prompts(), "prompts"))}
        return {**seen, **await refusal_then_next(server.call_tool, server.list_tools)}


async def langchain() -> dict:
    from langchain_mcp_adapters.client import MultiServerMCPClient

    connection = ({"transport": "stdio", "command": BUN, "args": BRIDGE, "cwd": "/"} if DOOR == "stdio"
                  else {"transport": "streamable_http", "url": f"{URL}/mcp-http", "headers": HEADERS})
    client = MultiServerMCPClient({"engram": connection})
    tools = {tool.name: tool for tool in await client.get_tools()}
    seen = {"resources": await listed(_blobs(client.get_resources("engram")))}
    # Each tool call opens its own session: what the next call would meet is a new one.
    return {**seen, **await refusal_then_next(lambda name, args: tools[name].ainvoke(args), client.get_tools)}


async def _items(call, field: str) -> list:
    return getattr(await call, field)


async def _blobs(call) -> list:
    return [str(blob.metadata.get("uri")) for blob in await call]


CELLS = {"mcp": mcp2, "mcp1": mcp1, "fastmcp": fastmcp, "agents": agents, "langchain": langchain}
try:
    result = asyncio.run(CELLS[CLIENT]())
except BaseException as error:
    result = {"failed": shown(error)[:300]}
print(json.dumps({"cell": f"{CLIENT} {DOOR}", **result}, default=str))
