"""What each client method sends: one function per operation, named after its tool.

Shared by the sync and async clients so the two cannot drift. Nothing here does I/O: each
function checks its path parameters and returns a :class:`RequestSpec`.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Optional
from urllib.parse import quote

__all__ = ["RequestSpec"]


@dataclass(frozen=True)
class RequestSpec:
    """One REST call before it is sent: ``path`` is already encoded; None values are left out."""

    method: str
    path: str
    params: Dict[str, str] = field(default_factory=dict)
    json: Optional[Dict[str, Any]] = None
    headers: Dict[str, str] = field(default_factory=dict)


# What the server accepts as an idempotency key: 1 to 255 printable ASCII characters.
_IDEMPOTENCY_KEY = re.compile(r"[\x20-\x7e]{1,255}")


def _write_headers(idempotency_key: Optional[str]) -> Dict[str, str]:
    """The ``Idempotency-Key`` of one write call: the caller's own, or a new random UUID.

    The spec is built once per call and every retry sends it again, so all attempts of a call
    carry the same key and the server carries the write out once. A key the server would refuse
    raises ValueError before anything is sent.
    """
    if idempotency_key is None:
        return {"Idempotency-Key": str(uuid.uuid4())}
    if not isinstance(idempotency_key, str) or not _IDEMPOTENCY_KEY.fullmatch(idempotency_key):
        raise ValueError("idempotency_key must be 1 to 255 printable ASCII characters.")
    return {"Idempotency-Key": idempotency_key}


def _path_segment(name: str, value: Any) -> str:
    """Encode one path parameter; an empty one raises before anything is sent."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}.")
    if not value.strip():
        raise ValueError(f"{name} must not be empty.")
    segment = quote(value, safe="")
    # "." and ".." would be folded away by URL normalization and hit another route.
    if segment in (".", ".."):
        segment = segment.replace(".", "%2E")
    return segment


def _body(**fields: Any) -> Dict[str, Any]:
    """A JSON body with the None fields left out."""
    return {key: value for key, value in fields.items() if value is not None}


def _query(**fields: Any) -> Dict[str, str]:
    """Query parameters with the None fields left out; booleans as ``true``/``false``."""
    params: Dict[str, str] = {}
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, bool):
            params[key] = "true" if value else "false"
        else:
            params[key] = str(value)
    return params


def add_document(
    content: Optional[str],
    *,
    container: Optional[str],
    url: Optional[str],
    custom_id: Optional[str],
    metadata: Optional[Dict[str, Any]],
    title: Optional[str],
    idempotency_key: Optional[str],
) -> RequestSpec:
    body = _body(
        container=container,
        content=content,
        url=url,
        custom_id=custom_id,
        metadata=metadata,
        title=title,
    )
    return RequestSpec("POST", "/v1/documents", json=body, headers=_write_headers(idempotency_key))


def search_memories(q: str, *, container: Optional[str], limit: Optional[int]) -> RequestSpec:
    return RequestSpec("POST", "/v1/search", json=_body(q=q, container=container, limit=limit))


def get_profile(q: Optional[str]) -> RequestSpec:
    return RequestSpec("GET", "/v1/profile", params=_query(q=q))


def ask_agent(message: str, *, model: Optional[str]) -> RequestSpec:
    return RequestSpec("POST", "/v1/ask", json=_body(message=message, model=model))


def memory_rules() -> RequestSpec:
    return RequestSpec("GET", "/v1/rules")


def list_containers() -> RequestSpec:
    return RequestSpec("GET", "/v1/containers")


def list_documents(
    container: Optional[str], *, limit: Optional[int], cursor: Optional[str]
) -> RequestSpec:
    return RequestSpec(
        "GET", "/v1/documents", params=_query(container=container, limit=limit, cursor=cursor)
    )


def get_document(document_id: str) -> RequestSpec:
    return RequestSpec("GET", f"/v1/documents/{_path_segment('document_id', document_id)}")


def delete_document(document_id: str, *, confirm: bool, idempotency_key: Optional[str]) -> RequestSpec:
    path = f"/v1/documents/{_path_segment('document_id', document_id)}"
    # confirm=false is what leaving it out means, so it is sent only when True.
    params = _query(confirm=True if confirm else None)
    return RequestSpec("DELETE", path, params=params, headers=_write_headers(idempotency_key))


def add_memory(
    content: str,
    *,
    container: Optional[str],
    static: Optional[bool],
    title: Optional[str],
    idempotency_key: Optional[str],
) -> RequestSpec:
    body = _body(content=content, container=container, static=static, title=title)
    return RequestSpec("POST", "/v1/memories", json=body, headers=_write_headers(idempotency_key))


def forget_memory(
    memory_id: str, *, container: Optional[str], confirm: bool, idempotency_key: Optional[str]
) -> RequestSpec:
    path = f"/v1/memories/{_path_segment('memory_id', memory_id)}"
    params = _query(container=container, confirm=True if confirm else None)
    return RequestSpec("DELETE", path, params=params, headers=_write_headers(idempotency_key))
