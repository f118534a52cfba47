"""The client's exception classes and the one place an HTTP status becomes a class.

Nothing here sends requests or decides about retries; see ``_retry.py`` for that.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type, Union

import httpx

__all__ = [
    "EngramError",
    "APIError",
    "APIConnectionError",
    "APITimeoutError",
    "APIStatusError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "UnprocessableEntityError",
    "RateLimitError",
    "InternalServerError",
    "error_from_response",
    "key_hint",
]

# Statuses the client library retries (the contract's "Client configuration" paragraph).
RETRYABLE_STATUSES = frozenset({408, 409, 429})


def is_retryable_status(status_code: int) -> bool:
    """True for the statuses the contract tells clients to retry: 408, 409, 429 and 5xx."""
    return status_code in RETRYABLE_STATUSES or 500 <= status_code <= 599


def key_hint(key: str) -> str:
    """The only form of a credential that may be shown: its first 8 and last 4 characters.

    A key too short for that to hide most of it (not a real ``egm_`` key) is shown as ``…`` alone.
    """
    if len(key) < 24:
        return "…"
    return f"{key[:8]}…{key[-4:]}"


def scrub(value: Any, secret: Optional[str]) -> Any:
    """Replace every occurrence of ``secret`` in ``value`` (strings, lists, dicts) with its hint."""
    if not secret:
        return value
    if isinstance(value, str):
        return value.replace(secret, key_hint(secret)) if secret in value else value
    if isinstance(value, list):
        return [scrub(item, secret) for item in value]
    if isinstance(value, dict):
        return {scrub(k, secret): scrub(v, secret) for k, v in value.items()}
    return value


class EngramError(Exception):
    """Base of every exception this package raises on purpose (including a missing key)."""


class APIError(EngramError):
    """A request that did not succeed. Carries the fields of the service's error envelope.

    ``status_code`` is None when no answer arrived (see :class:`APIConnectionError`).
    """

    status_code: Optional[int]
    code: Optional[str]
    message: str
    details: Any
    retryable: bool
    trace_id: Optional[str]

    def __init__(
        self,
        message: str,
        *,
        status_code: Optional[int] = None,
        code: Optional[str] = None,
        details: Any = None,
        retryable: bool = False,
        trace_id: Optional[str] = None,
    ) -> None:
        self.message = message
        self.status_code = status_code
        self.code = code
        self.details = details
        self.retryable = retryable
        self.trace_id = trace_id
        super().__init__(self._describe())

    def _describe(self) -> str:
        head = " ".join(str(part) for part in (self.status_code, self.code) if part is not None)
        text = f"{head}: {self.message}" if head else self.message
        if self.trace_id:
            text += f" (trace_id {self.trace_id})"
        return text

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status_code={self.status_code!r}, code={self.code!r}, "
            f"message={self.message!r}, retryable={self.retryable!r}, trace_id={self.trace_id!r})"
        )

    def __reduce__(self) -> Any:
        # Keyword-only constructor arguments would otherwise be lost when pickling.
        return (_rebuild, (type(self), self.__dict__.copy()))


def _rebuild(cls: Type[APIError], state: Dict[str, Any]) -> APIError:
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, error._describe())
    return error


class APIConnectionError(APIError):
    """No answer came: the server could not be reached or the connection broke."""

    def __init__(self, message: str = "Could not reach the Engram server.") -> None:
        # Nothing was answered, so trying again may help: retryable is True.
        super().__init__(message, retryable=True)


class APITimeoutError(APIConnectionError):
    """No answer came within the client's timeout."""

    def __init__(self, message: str = "The request timed out.") -> None:
        super().__init__(message)


class APIStatusError(APIError):
    """The server answered with a status that is not a success.

    Used as is for statuses without a class of their own; ``response`` is the raw httpx response.
    """

    status_code: int

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        code: Optional[str] = None,
        details: Any = None,
        retryable: bool = False,
        trace_id: Optional[str] = None,
        response: Optional[httpx.Response] = None,
        body: Any = None,
    ) -> None:
        self.response = response
        self.body = body
        super().__init__(
            message,
            status_code=status_code,
            code=code,
            details=details,
            retryable=retryable,
            trace_id=trace_id,
        )

    def __reduce__(self) -> Any:
        # An httpx.Response does not pickle; everything the envelope said does.
        state = self.__dict__.copy()
        state["response"] = None
        return (_rebuild, (type(self), state))


class BadRequestError(APIStatusError):
    """400: the request broke a rule (code ``validation``), e.g. an empty ``q``."""


class AuthenticationError(APIStatusError):
    """401: no credential was sent."""


class PermissionDeniedError(APIStatusError):
    """403 ``unauthorized``: a bad, expired or revoked key, a container outside reach, or a verb
    above the key's level. The message says which."""


class NotFoundError(APIStatusError):
    """404 ``not_found``: unknown document or memory id."""


class ConflictError(APIStatusError):
    """409 ``conflict``: a conflicting write. Raised only after the retries are used up."""


class UnprocessableEntityError(APIStatusError):
    """422: a malformed body (``validation``) or no model to run a turn (``capability_unavailable``)."""


class RateLimitError(APIStatusError):
    """429 ``rate_limited``. ``details["limit_per_min"]`` carries the per-credential limit when it applies."""


class InternalServerError(APIStatusError):
    """5xx: the server failed. Raised only after the retries are used up."""


_CLASS_BY_STATUS: Mapping[int, Type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def _status_class(status_code: int) -> Type[APIStatusError]:
    if 500 <= status_code <= 599:
        return InternalServerError
    return _CLASS_BY_STATUS.get(status_code, APIStatusError)


def error_from_response(
    status_code: int,
    body: Union[Mapping[str, Any], str, bytes, None, Any],
    headers: Union[Mapping[str, str], httpx.Headers, None] = None,
    *,
    response: Optional[httpx.Response] = None,
    secret: Optional[str] = None,
) -> APIStatusError:
    """Build the exception for a non-success answer. The only place a status becomes a class.

    ``body`` is the decoded JSON body when there was one, else its text. Fields come from the
    error envelope ``{code, message, details, retryable, trace_id}``; ``trace_id`` falls back to
    the ``X-Trace-Id`` header and ``retryable`` to whether the client retries that status. A
    401 may carry an RFC 6750 body ``{error, error_description}`` instead, which is read too.
    ``secret`` (the caller's key) is replaced by its hint wherever the answer echoed it.
    """
    header_map = httpx.Headers(headers or {})
    envelope: Mapping[str, Any] = body if isinstance(body, Mapping) else {}

    code = envelope.get("code")
    if code is None:
        code = envelope.get("error") if isinstance(envelope.get("error"), str) else None
    message = envelope.get("message")
    if message is None:
        message = envelope.get("error_description")
    if message is None:
        message = _fallback_message(status_code, body, response)
    retryable = envelope.get("retryable")
    if not isinstance(retryable, bool):
        retryable = is_retryable_status(status_code)
    trace_id = envelope.get("trace_id") or header_map.get("x-trace-id")

    cls = _status_class(status_code)
    return cls(
        scrub(str(message), secret),
        status_code=status_code,
        code=None if code is None else str(code),
        details=scrub(envelope.get("details"), secret),
        retryable=retryable,
        trace_id=None if trace_id is None else str(trace_id),
        response=response,
        body=scrub(body, secret),
    )


def _fallback_message(status_code: int, body: Any, response: Optional[httpx.Response]) -> str:
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str) and body.strip():
        text = body.strip()
        return text if len(text) <= 500 else text[:500] + "…"
    reason = response.reason_phrase if response is not None else ""
    return f"HTTP {status_code} {reason}".strip()
