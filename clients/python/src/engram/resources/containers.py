"""``client.containers``: the person's containers (Memories) inside the credential's reach."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from .. import _operations as ops
from ..types import ContainerList

if TYPE_CHECKING:
    from .._client import AsyncClient, Client


class Containers:
    def __init__(self, client: "Client") -> None:
        self._client = client

    def list(self) -> ContainerList:
        """List the containers in reach (GET /v1/containers): ``{"containers": [...]}``."""
        return cast(ContainerList, self._client._request(ops.list_containers()))


class AsyncContainers:
    def __init__(self, client: "AsyncClient") -> None:
        self._client = client

    async def list(self) -> ContainerList:
        """List the containers in reach (GET /v1/containers): ``{"containers": [...]}``."""
        return cast(ContainerList, await self._client._request(ops.list_containers()))
