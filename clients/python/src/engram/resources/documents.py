"""``client.documents``: list, read and delete documents. Adding one is ``client.add``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

from .. import _operations as ops
from ..types import DeleteDocumentResult, Document, DocumentList

if TYPE_CHECKING:
    from .._client import AsyncClient, Client


class Documents:
    def __init__(self, client: "Client") -> None:
        self._client = client

    def list(
        self, container: Optional[str] = None, *, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> DocumentList:
        """Documents in reach, newest first (GET /v1/documents). Page with ``cursor=next_cursor``."""
        spec = ops.list_documents(container, limit=limit, cursor=cursor)
        return cast(DocumentList, self._client._request(spec))

    def get(self, document_id: str) -> Document:
        """One document with its ``content`` and ``learned`` (GET /v1/documents/{id}).

        Raises ValueError for an empty id, NotFoundError for an unknown one.
        """
        return cast(Document, self._client._request(ops.get_document(document_id)))

    def delete(
        self, document_id: str, *, confirm: bool = False, idempotency_key: Optional[str] = None
    ) -> DeleteDocumentResult:
        """Delete a document everywhere (DELETE /v1/documents/{id}).

        Without ``confirm=True`` nothing is deleted: the answer is a ``ConfirmationRequest``
        (``status == "confirmation_required"``) whose ``how`` is to be relayed to the person.
        """
        spec = ops.delete_document(document_id, confirm=confirm, idempotency_key=idempotency_key)
        return cast(DeleteDocumentResult, self._client._request(spec))


class AsyncDocuments:
    def __init__(self, client: "AsyncClient") -> None:
        self._client = client

    async def list(
        self, container: Optional[str] = None, *, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> DocumentList:
        """Documents in reach, newest first (GET /v1/documents); see :meth:`Documents.list`."""
        spec = ops.list_documents(container, limit=limit, cursor=cursor)
        return cast(DocumentList, await self._client._request(spec))

    async def get(self, document_id: str) -> Document:
        """One document (GET /v1/documents/{id}); see :meth:`Documents.get`."""
        return cast(Document, await self._client._request(ops.get_document(document_id)))

    async def delete(
        self, document_id: str, *, confirm: bool = False, idempotency_key: Optional[str] = None
    ) -> DeleteDocumentResult:
        """Delete a document (DELETE /v1/documents/{id}); see :meth:`Documents.delete`."""
        spec = ops.delete_document(document_id, confirm=confirm, idempotency_key=idempotency_key)
        return cast(DeleteDocumentResult, await self._client._request(spec))
