"""Retry decisions shared by the sync and async clients: whether to send again and how long to wait.

Pure functions only; the clients do the sending and the sleeping, so tests can inject both.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Optional, Union

import httpx

from ._exceptions import is_retryable_status

__all__ = ["should_retry", "retry_wait", "retry_after_seconds", "backoff_seconds"]

INITIAL_BACKOFF = 0.5  # seconds, before the first retry
MAX_BACKOFF = 8.0  # the doubling stops here
MAX_RETRY_AFTER = 60.0  # a longer Retry-After is cut to this
JITTER = 0.25  # up to this share of the backoff is taken off


def should_retry(status_code: Optional[int], retries_done: int, max_retries: int) -> bool:
    """True when a retry is left and the outcome is worth another try.

    ``status_code`` None means no answer came (a connection error or a timeout), which is
    always worth another try; otherwise 408, 409, 429 and 5xx are.
    """
    if retries_done >= max_retries:
        return False
    return status_code is None or is_retryable_status(status_code)


def retry_after_seconds(headers: Union[Mapping[str, str], httpx.Headers, None]) -> Optional[float]:
    """The numeric ``Retry-After`` of an answer in seconds, capped at 60; None when absent.

    The HTTP-date form is not honoured (the contract names only the numeric one): it gives None,
    so the usual backoff applies.
    """
    if not headers:
        return None
    raw = httpx.Headers(headers).get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw.strip())
    except ValueError:
        return None
    if math.isnan(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_RETRY_AFTER)


def backoff_seconds(retries_done: int, random: Callable[[], float]) -> float:
    """0.5 s doubling per retry already made, at most 8 s, less up to 25 % jitter.

    ``random`` returns a float in [0, 1), like :func:`random.random`.
    """
    # The exponent is bounded so a large retry count cannot overflow a float.
    base = min(INITIAL_BACKOFF * 2.0 ** min(retries_done, 16), MAX_BACKOFF)
    return base * (1 - JITTER * random())


def retry_wait(
    retries_done: int,
    headers: Union[Mapping[str, str], httpx.Headers, None],
    random: Callable[[], float],
) -> float:
    """How long to wait before the next try: ``Retry-After`` when the answer gave one, else backoff."""
    after = retry_after_seconds(headers)
    if after is not None:
        return after
    return backoff_seconds(retries_done, random)
