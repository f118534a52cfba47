"""Test helpers: a scripted httpx transport and a harness that drives the sync or async client.

The harness lets one test body cover both clients: ``harness.run(lambda c: c.search("x"))``
calls the sync client directly and runs the async one's coroutine to completion.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Union

import httpx

from engram import AsyncClient, Client

# Shaped like a real developer key (egm_<key_id>_<secret>) so its hint is the standard one.
API_KEY = "egm_k7QaZ81mXw_Qw3rTy8uIo0pAs9dFg7hJk6lZx5cVb4nM2q1w9fZx"
API_KEY_HINT = "egm_k7Qa…9fZx"
BASE_URL = "http://engram.test"

Outcome = Union[httpx.Response, BaseException, Callable[[httpx.Request], httpx.Response]]


@dataclass
class Seen:
    """One request as the transport saw it."""

    method: str
    path: str  # raw, still percent-encoded
    query: Dict[str, str]
    body: Any
    headers: httpx.Headers
    timeout: Any = None

    @classmethod
    def of(cls, request: httpx.Request) -> "Seen":
        content = request.read()
        return cls(
            method=request.method,
            path=request.url.raw_path.decode("ascii").split("?", 1)[0],
            query=dict(request.url.params),
            body=json.loads(content) if content else None,
            headers=request.headers,
            timeout=request.extensions.get("timeout"),
        )


class Script:
    """An httpx.MockTransport handler answering with the given outcomes, in order.

    An outcome is a response, an exception to raise (e.g. ``httpx.ConnectError``), or a
    function of the request. A request past the end of the script fails the test.
    """

    def __init__(self, *outcomes: Outcome) -> None:
        self.outcomes: List[Outcome] = list(outcomes)
        self.seen: List[Seen] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(Seen.of(request))
        if not self.outcomes:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        if callable(outcome) and not isinstance(outcome, httpx.Response):
            return outcome(request)
        return outcome


def reply(status: int = 200, body: Any = None, headers: Optional[Dict[str, str]] = None) -> httpx.Response:
    """A JSON answer (``body`` None gives an empty body)."""
    if body is None:
        return httpx.Response(status, headers=headers)
    return httpx.Response(status, json=body, headers=headers)


def envelope(status: int, code: str, message: str = "refused", **extra: Any) -> httpx.Response:
    """An error answer with the service's envelope."""
    body = {"code": code, "message": message, "details": extra.pop("details", None),
            "retryable": extra.pop("retryable", False), "trace_id": extra.pop("trace_id", "tr_1")}
    return httpx.Response(status, json=body, headers=extra.pop("headers", None))


@dataclass
class Harness:
    """Builds a client of one kind (``sync`` or ``async``) on a scripted transport."""

    mode: str
    waits: List[float] = field(default_factory=list)
    script: Script = field(default_factory=Script)

    @property
    def is_async(self) -> bool:
        return self.mode == "async"

    def client(
        self,
        *outcomes: Outcome,
        random: Callable[[], float] = lambda: 0.0,
        **options: Any,
    ) -> Union[Client, AsyncClient]:
        self.script = Script(*outcomes)
        transport = httpx.MockTransport(self.script)
        options.setdefault("api_key", API_KEY)
        options.setdefault("base_url", BASE_URL)
        client: Union[Client, AsyncClient]
        if self.is_async:
            client = AsyncClient(http_client=httpx.AsyncClient(transport=transport), **options)

            async def sleep(seconds: float) -> None:
                self.waits.append(seconds)

            client._sleep = sleep
        else:
            client = Client(http_client=httpx.Client(transport=transport), **options)
            client._sleep = self.waits.append
        client._random = random
        return client

    @property
    def seen(self) -> List[Seen]:
        return self.script.seen

    def run(self, client: Union[Client, AsyncClient], call: Callable[[Any], Any]) -> Any:
        """Call ``call(client)``; for the async client, run the coroutine it returns."""
        result = call(client)
        if inspect.isawaitable(result):
            return asyncio.run(_awaited(result))
        return result


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
