"""Typed shapes of what the Engram REST API sends and accepts, as ``docs/api.md`` gives them.

Plain ``TypedDict``s (no extra dependency): responses are the decoded JSON dicts, so wire names
keep the wire's spelling (``container_name``, ``custom_id``, ``trace_id``). A key that may be
absent sits in a ``total=False`` part, because ``NotRequired`` needs Python 3.11.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, TypeGuard, Union

__all__ = [
    "Container",
    "ContainerList",
    "SearchHit",
    "FactSource",
    "SearchError",
    "SearchedContainer",
    "SearchResponse",
    "Fact",
    "Profile",
    "DocumentStatus",
    "Document",
    "DocumentList",
    "Rule",
    "RuleList",
    "AskResponse",
    "ConfirmationRequest",
    "AddDocumentResponse",
    "DeletedDocument",
    "ForgottenCounts",
    "KeptCounts",
    "DeleteDocumentResult",
    "ForgottenMemory",
    "ForgetMemoryResult",
    "ErrorEnvelope",
    "is_confirmation_request",
]


class Container(TypedDict):
    """One of the person's topics (a Memory). ``id`` is what ``container`` parameters take."""

    id: str
    name: str
    description: Optional[str]
    created_at: str
    learns_into_profile: bool
    """Whether learning may promote facts drawn from its documents to the profile; when false they stay in the container."""


class ContainerList(TypedDict):
    """GET /v1/containers: the containers inside the credential's reach."""

    containers: List[Container]


class FactSource(TypedDict):
    """The document and passage a learned fact was extracted from. ``custom_id`` is the
    document's own, when its writer gave one; ``passage`` is the passage's position there."""

    document_id: str
    custom_id: Optional[str]
    passage: int


class _SearchHitRequired(TypedDict):
    container: str
    container_name: str
    content: str
    score: float
    document_id: Optional[str]
    memory_id: Optional[str]
    custom_id: Optional[str]
    title: Optional[str]
    position: Optional[int]


class SearchHit(_SearchHitRequired, total=False):
    """One passage from a search, most relevant first. ``source`` is present when the hit is a
    fact learned from a document: where it was learned from, to cite."""

    source: FactSource


class SearchError(TypedDict):
    """Why the search failed in one container."""

    code: str
    message: str


class _SearchedContainerRequired(TypedDict):
    id: str
    name: str


class SearchedContainer(_SearchedContainerRequired, total=False):
    """A container the search looked in. ``error`` is present when the search failed there:
    read it, because a failure there is not an empty memory."""

    error: SearchError


class SearchResponse(TypedDict):
    """POST /v1/search."""

    results: List[SearchHit]
    containers: List[SearchedContainer]


class Fact(TypedDict):
    """A learned fact (a memory). ``static`` facts live in the profile and have no container."""

    id: str
    content: str
    title: Optional[str]
    static: bool
    container: Optional[str]
    created_at: str
    updated_at: str


class _ProfileRequired(TypedDict):
    static: List[Fact]
    dynamic: List[Fact]


class Profile(_ProfileRequired, total=False):
    """GET /v1/profile. ``results`` is present when ``q`` was given."""

    results: List[SearchHit]


DocumentStatus = Literal["queued", "learned", "failed"]


class _DocumentRequired(TypedDict):
    id: str
    container: str
    title: Optional[str]
    url: Optional[str]
    custom_id: Optional[str]
    metadata: Optional[Dict[str, Any]]
    status: DocumentStatus
    learned: bool
    # docs/api.md names the field but not its shape; it is set when learning failed.
    error: Any
    created_at: str
    updated_at: str


class Document(_DocumentRequired, total=False):
    """A document. ``content`` is present on get (GET /v1/documents/{id}), not in lists."""

    content: Optional[str]


class DocumentList(TypedDict):
    """GET /v1/documents: newest first; pass ``next_cursor`` back as ``cursor`` for the next page."""

    documents: List[Document]
    next_cursor: Optional[str]


class Rule(TypedDict):
    """A standing rule of the person for how their memory is used."""

    id: str
    text: str
    scope: Literal["account", "credential"]
    created_at: str


class RuleList(TypedDict):
    """GET /v1/rules."""

    rules: List[Rule]


# The shape of the agent's reply is not fixed by the contract nor by docs/api.md yet.
AskResponse = Dict[str, Any]


class ConfirmationRequest(TypedDict):
    """Answered with 200 when a destructive call lacks ``confirm=True``: relay ``how`` to the person."""

    status: Literal["confirmation_required"]
    verb: str
    how: str


class AddDocumentResponse(TypedDict):
    """POST /v1/documents: ``queued`` (202) for a new document, ``exists`` (200) for a known ``custom_id``."""

    id: str
    status: Literal["queued", "exists"]
    container: str
    custom_id: Optional[str]


class ForgottenCounts(TypedDict):
    """What a confirmed delete took with the document: its passages (with their vectors) and the facts learned from it."""

    documents: int
    passages: int
    facts: int


class KeptCounts(TypedDict):
    """Learned facts the person confirmed or edited: kept, without their source."""

    facts: int


class DeletedDocument(TypedDict):
    status: Literal["deleted"]
    id: str
    forgotten: ForgottenCounts
    kept: KeptCounts


class ForgottenMemory(TypedDict):
    status: Literal["forgotten"]
    id: str


# Either the removal happened or the server asks for confirmation; check ``status`` to tell.
DeleteDocumentResult = Union[DeletedDocument, ConfirmationRequest]
ForgetMemoryResult = Union[ForgottenMemory, ConfirmationRequest]


class ErrorEnvelope(TypedDict):
    """The body of every REST error answer; the client raises it as an ``APIError``."""

    code: str
    message: str
    details: Any
    retryable: bool
    trace_id: str


def is_confirmation_request(value: Any) -> TypeGuard[ConfirmationRequest]:
    """True when a delete or forget answered with a confirmation request instead of doing it."""
    return isinstance(value, dict) and value.get("status") == "confirmation_required"
