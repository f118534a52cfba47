"""The sync :class:`Client` and async :class:`AsyncClient`, built on one shared core.

The core (:class:`_BaseClient`) reads the configuration, builds requests, decides about retries
and maps answers to results or exceptions; the two clients differ only in how they send and
sleep. What each method sends lives in ``_operations.py``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from typing import Any, Awaitable, Callable, Dict, Optional, Union, cast

import httpx

from . import _operations as ops
from ._exceptions import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    EngramError,
    error_from_response,
    key_hint,
    scrub,
)
from ._retry import retry_wait, should_retry
from ._version import __version__
from .resources import (
    AsyncContainers,
    AsyncDocuments,
    AsyncMemories,
    Containers,
    Documents,
    Memories,
)
from .types import AddDocumentResponse, AskResponse, Profile, RuleList, SearchResponse

__all__ = ["Client", "AsyncClient", "DEFAULT_BASE_URL", "DEFAULT_TIMEOUT", "DEFAULT_MAX_RETRIES"]

DEFAULT_BASE_URL = "http://127.0.0.1:8787"
DEFAULT_TIMEOUT = 90.0  # seconds; the first search after a quiet spell can take a minute
DEFAULT_MAX_RETRIES = 2
API_KEY_ENV = "ENGRAM_API_KEY"
BASE_URL_ENV = "ENGRAM_BASE_URL"

log = logging.getLogger("engram")


class _BaseClient:
    """Configuration, request building, retry decisions and error mapping for both clients."""

    _sleep: Callable[[float], Any]
    _random: Callable[[], float]

    def __init__(
        self,
        *,
        api_key: Optional[str],
        base_url: Optional[str],
        timeout: Union[float, httpx.Timeout],
        max_retries: int,
    ) -> None:
        self._api_key = _resolve_api_key(api_key)
        self.base_url = _resolve_base_url(base_url)
        self.timeout = timeout
        self._timeout = _resolve_timeout(timeout)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError("max_retries must be a whole number, 0 or more.")
        self.max_retries = max_retries
        # Seams for tests, replaced on the instance: the jitter source here, and `_sleep`
        # (set by each client) so waits are recorded instead of slept.
        self._random = random.random

    @property
    def api_key_hint(self) -> str:
        """The key as it may be shown: first 8 and last 4 characters."""
        return key_hint(self._api_key)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, api_key={self.api_key_hint!r}, "
            f"max_retries={self.max_retries!r})"
        )

    def _headers(self) -> Dict[str, str]:
        return {
            "Authorization": f"Bearer {self._api_key}",
            "Accept": "application/json",
            "User-Agent": f"engram-python/{__version__}",
        }

    def _build_request(
        self, http: Union[httpx.Client, httpx.AsyncClient], spec: ops.RequestSpec
    ) -> httpx.Request:
        return http.build_request(
            spec.method,
            self.base_url + spec.path,
            params=spec.params or None,
            json=spec.json,
            headers={**self._headers(), **spec.headers},
            timeout=self._timeout,
        )

    def _next_wait(
        self,
        spec: ops.RequestSpec,
        retries_done: int,
        response: Optional[httpx.Response],
        error: Optional[Exception],
    ) -> Optional[float]:
        """Seconds to wait before sending again, or None when this outcome is final."""
        status = None if response is None else response.status_code
        if not should_retry(status, retries_done, self.max_retries):
            return None
        wait = retry_wait(retries_done, None if response is None else response.headers, self._random)
        reason = f"status {status}" if response is not None else type(error).__name__
        log.info(
            "Retrying %s %s in %.2f s after %s (retry %d of %d)",
            spec.method,
            spec.path,
            wait,
            reason,
            retries_done + 1,
            self.max_retries,
        )
        return wait

    def _process_response(self, spec: ops.RequestSpec, response: httpx.Response) -> Any:
        """The decoded body of a success, or the exception for anything else."""
        log.debug("%s %s -> %d", spec.method, spec.path, response.status_code)
        if 200 <= response.status_code < 300:
            if not response.content:
                return None
            try:
                return response.json()
            except ValueError:
                raise APIStatusError(
                    f"The server answered {response.status_code} with a body that is not JSON.",
                    status_code=response.status_code,
                    trace_id=response.headers.get("x-trace-id"),
                    response=response,
                ) from None
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text
        raise error_from_response(
            response.status_code, body, response.headers, response=response, secret=self._api_key
        )

    def _connection_error(self, spec: ops.RequestSpec, exc: Exception) -> APIConnectionError:
        if isinstance(exc, httpx.TimeoutException):
            return APITimeoutError(
                f"No answer to {spec.method} {spec.path} from {self.base_url} in time ({type(exc).__name__})."
            )
        detail = scrub(str(exc), self._api_key) or type(exc).__name__
        return APIConnectionError(f"Could not reach the Engram server at {self.base_url}: {detail}")


class Client(_BaseClient):
    """Synchronous client for the Engram REST API.

    ``api_key`` falls back to ``ENGRAM_API_KEY``; a missing key raises :class:`EngramError`.
    ``base_url`` falls back to ``ENGRAM_BASE_URL``, then ``http://127.0.0.1:8787``.
    ``timeout`` is in seconds per request; ``max_retries`` counts the retries after the first try.
    ``http_client`` is an ``httpx.Client`` to send with (it is not closed by :meth:`close`).
    Construction does not touch the network.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Union[float, httpx.Timeout] = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        super().__init__(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)
        if http_client is not None and not isinstance(http_client, httpx.Client):
            raise TypeError("http_client must be an httpx.Client (use AsyncClient for httpx.AsyncClient).")
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client()
        self._sleep: Callable[[float], Any] = time.sleep
        self.containers = Containers(self)
        self.documents = Documents(self)
        self.memories = Memories(self)

    def _request(self, spec: ops.RequestSpec) -> Any:
        """Send ``spec``, retrying as the contract says; the decoded body or an exception."""
        request = self._build_request(self._http, spec)
        retries_done = 0
        while True:
            try:
                response = self._http.send(request)
            except httpx.RequestError as exc:
                wait = self._next_wait(spec, retries_done, None, exc)
                if wait is None:
                    raise self._connection_error(spec, exc) from exc
            else:
                wait = self._next_wait(spec, retries_done, response, None)
                if wait is None:
                    return self._process_response(spec, response)
                response.close()
            self._sleep(wait)
            retries_done += 1

    def add(
        self,
        content: Optional[str] = None,
        *,
        container: Optional[str] = None,
        url: Optional[str] = None,
        custom_id: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
        title: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> AddDocumentResponse:
        """Add a document (POST /v1/documents): give exactly one of ``content`` and ``url``.

        It lands at once with status ``queued`` and is searchable once learned; the same
        ``custom_id`` again answers ``exists`` and starts nothing. Every retry of the call sends
        the same ``Idempotency-Key`` (``idempotency_key``, else a new UUID), so it adds once.
        """
        spec = ops.add_document(
            content, container=container, url=url, custom_id=custom_id, metadata=metadata, title=title,
            idempotency_key=idempotency_key,
        )
        return cast(AddDocumentResponse, self._request(spec))

    def search(self, q: str, *, container: Optional[str] = None, limit: Optional[int] = None) -> SearchResponse:
        """Search passages (POST /v1/search): retrieval, not an answer. Read ``containers[].error``."""
        return cast(SearchResponse, self._request(ops.search_memories(q, container=container, limit=limit)))

    def profile(self, q: Optional[str] = None) -> Profile:
        """Read the profile (GET /v1/profile): ``static`` and ``dynamic`` facts, ``results`` with ``q``."""
        return cast(Profile, self._request(ops.get_profile(q)))

    def ask(self, message: str, *, model: Optional[str] = None) -> AskResponse:
        """Ask the exposed agent (POST /v1/ask); needs a credential that exposes an agent."""
        return cast(AskResponse, self._request(ops.ask_agent(message, model=model)))

    def rules(self) -> RuleList:
        """The person's standing rules for this credential (GET /v1/rules)."""
        return cast(RuleList, self._request(ops.memory_rules()))

    def close(self) -> None:
        """Close the connection pool, unless it came from the caller as ``http_client``."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class AsyncClient(_BaseClient):
    """Asynchronous client for the Engram REST API; the same surface as :class:`Client`, awaited.

    ``http_client`` is an ``httpx.AsyncClient``. Waits between retries use ``asyncio.sleep``.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: Union[float, httpx.Timeout] = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        super().__init__(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)
        if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
            raise TypeError("http_client must be an httpx.AsyncClient (use Client for httpx.Client).")
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        self._sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        self.containers = AsyncContainers(self)
        self.documents = AsyncDocuments(self)
        self.memories = AsyncMemories(self)

    async def _request(self, spec: ops.RequestSpec) -> Any:
        """Send ``spec``, retrying as the contract says; the decoded body or an exception."""
        request = self._build_request(self._http, spec)
        retries_done = 0
        while True:
            try:
                response = await self._http.send(request)
            except httpx.RequestError as exc:
                wait = self._next_wait(spec, retries_done, None, exc)
                if wait is None:
                    raise self._connection_error(spec, exc) from exc
            else:
                wait = self._next_wait(spec, retries_done, response, None)
                if wait is None:
                    return self._process_response(spec, response)
                await response.aclose()
            await self._sleep(wait)
            retries_done += 1

    async def add(
        self,
        content: Optional[str] = None,
        *,
        container: Optional[str] = None,
        url: Optional[str] = None,
        custom_id: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
        title: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> AddDocumentResponse:
        """Add a document (POST /v1/documents); see :meth:`Client.add`."""
        spec = ops.add_document(
            content, container=container, url=url, custom_id=custom_id, metadata=metadata, title=title,
            idempotency_key=idempotency_key,
        )
        return cast(AddDocumentResponse, await self._request(spec))

    async def search(
        self, q: str, *, container: Optional[str] = None, limit: Optional[int] = None
    ) -> SearchResponse:
        """Search passages (POST /v1/search); see :meth:`Client.search`."""
        return cast(SearchResponse, await self._request(ops.search_memories(q, container=container, limit=limit)))

    async def profile(self, q: Optional[str] = None) -> Profile:
        """Read the profile (GET /v1/profile); see :meth:`Client.profile`."""
        return cast(Profile, await self._request(ops.get_profile(q)))

    async def ask(self, message: str, *, model: Optional[str] = None) -> AskResponse:
        """Ask the exposed agent (POST /v1/ask); see :meth:`Client.ask`."""
        return cast(AskResponse, await self._request(ops.ask_agent(message, model=model)))

    async def rules(self) -> RuleList:
        """The person's standing rules for this credential (GET /v1/rules)."""
        return cast(RuleList, await self._request(ops.memory_rules()))

    async def close(self) -> None:
        """Close the connection pool, unless it came from the caller as ``http_client``."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()


def _resolve_api_key(api_key: Optional[str]) -> str:
    key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
    key = (key or "").strip()
    if not key:
        raise EngramError(f"No API key: pass api_key=... or set the {API_KEY_ENV} environment variable.")
    # A key that cannot go into a header would fail later inside httpx, with the key in the message.
    if any(not ("!" <= ch <= "~") for ch in key):
        raise EngramError(f"The API key {key_hint(key)} has characters an HTTP header cannot carry.")
    return key


def _resolve_base_url(base_url: Optional[str]) -> str:
    raw = base_url if base_url is not None else (os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)
    raw = raw.strip().rstrip("/")
    try:
        url = httpx.URL(raw)
    except (httpx.InvalidURL, TypeError) as exc:
        raise ValueError(f"base_url {raw!r} is not a URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"base_url must be an http:// or https:// origin, not {raw!r}.")
    if url.query or url.fragment:
        raise ValueError(f"base_url must not carry a query or a fragment: {raw!r}.")
    return raw


def _resolve_timeout(timeout: Union[float, httpx.Timeout]) -> httpx.Timeout:
    if isinstance(timeout, httpx.Timeout):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError("timeout must be a number of seconds greater than 0.")
    return httpx.Timeout(float(timeout))

