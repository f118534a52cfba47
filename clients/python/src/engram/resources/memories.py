"""``client.memories``: save a fact and forget one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

from .. import _operations as ops
from ..types import Fact, ForgetMemoryResult

if TYPE_CHECKING:
    from .._client import AsyncClient, Client


class Memories:
    def __init__(self, client: "Client") -> None:
        self._client = client

    def add(
        self,
        content: str,
        *,
        container: Optional[str] = None,
        static: Optional[bool] = None,
        title: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Fact:
        """Save one fact (POST /v1/memories). ``static=True`` saves it to the profile.

        ``container`` may be left out only when exactly one container is in reach. Every retry
        sends the same ``Idempotency-Key`` (``idempotency_key``, else a new UUID): saved once.
        """
        spec = ops.add_memory(content, container=container, static=static, title=title, idempotency_key=idempotency_key)
        return cast(Fact, self._client._request(spec))

    def forget(
        self,
        memory_id: str,
        *,
        container: Optional[str] = None,
        confirm: bool = False,
        idempotency_key: Optional[str] = None,
    ) -> ForgetMemoryResult:
        """Forget a fact (DELETE /v1/memories/{id}).

        Without ``confirm=True`` nothing is forgotten: the answer is a ``ConfirmationRequest``.
        """
        spec = ops.forget_memory(memory_id, container=container, confirm=confirm, idempotency_key=idempotency_key)
        return cast(ForgetMemoryResult, self._client._request(spec))


class AsyncMemories:
    def __init__(self, client: "AsyncClient") -> None:
        self._client = client

    async def add(
        self,
        content: str,
        *,
        container: Optional[str] = None,
        static: Optional[bool] = None,
        title: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Fact:
        """Save one fact (POST /v1/memories); see :meth:`Memories.add`."""
        spec = ops.add_memory(content, container=container, static=static, title=title, idempotency_key=idempotency_key)
        return cast(Fact, await self._client._request(spec))

    async def forget(
        self,
        memory_id: str,
        *,
        container: Optional[str] = None,
        confirm: bool = False,
        idempotency_key: Optional[str] = None,
    ) -> ForgetMemoryResult:
        """Forget a fact (DELETE /v1/memories/{id}); see :meth:`Memories.forget`."""
        spec = ops.forget_memory(memory_id, container=container, confirm=confirm, idempotency_key=idempotency_key)
        return cast(ForgetMemoryResult, await self._client._request(spec))
