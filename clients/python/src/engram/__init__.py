"""Engram's Python client: ``Client`` and ``AsyncClient`` for the REST API, and their errors.

Importing this package has no side effects; see ``types`` for the response shapes.
"""

from . import types
from ._client import DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, AsyncClient, Client
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    EngramError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
    error_from_response,
)
from ._version import __version__
from .types import is_confirmation_request

__all__ = [
    "__version__",
    "Client",
    "AsyncClient",
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT",
    "DEFAULT_MAX_RETRIES",
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
    "is_confirmation_request",
    "types",
]
