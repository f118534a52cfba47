"""Idempotency keys: each write method sends one ``Idempotency-Key`` per call, the same on every
retry of that call; a caller may pass their own with ``idempotency_key=``; reads send none."""

from __future__ import annotations

import uuid
from typing import Any, Callable

import httpx
import pytest

from tests.support import Harness, envelope, reply

# Each write method, and the body of its success (a response is made afresh for each client).
WRITES = {
    "add": (lambda c: c.add("x", container="ctr_1"), {"id": "doc_1", "status": "queued"}),
    "memories.add": (lambda c: c.memories.add("x", container="ctr_1"), {"id": "mem_1"}),
    "documents.delete": (lambda c: c.documents.delete("doc_1", confirm=True), {"status": "deleted", "id": "doc_1"}),
    "memories.forget": (lambda c: c.memories.forget("mem_1", confirm=True), {"status": "forgotten", "id": "mem_1"}),
}


def timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


def key_of(harness: Harness, attempt: int) -> Any:
    return harness.seen[attempt].headers.get("idempotency-key")


def is_uuid4(value: Any) -> bool:
    try:
        return uuid.UUID(value).version == 4
    except (TypeError, ValueError):
        return False


@pytest.mark.parametrize("method", list(WRITES))
def test_a_timeout_then_a_success_carry_the_same_key(harness: Harness, method: str) -> None:
    call, ok = WRITES[method]
    client = harness.client(timeout, reply(200, ok))
    harness.run(client, call)
    assert len(harness.seen) == 2
    assert is_uuid4(key_of(harness, 0))
    assert key_of(harness, 1) == key_of(harness, 0)


def test_a_5xx_and_a_lost_connection_are_retried_under_the_same_key(harness: Harness) -> None:
    client = harness.client(envelope(503, "internal", retryable=True), httpx.ConnectError("refused"), reply(201, {"id": "mem_1"}))
    harness.run(client, lambda c: c.memories.add("x", container="ctr_1"))
    keys = {key_of(harness, i) for i in range(3)}
    assert len(keys) == 1 and is_uuid4(keys.pop())


def test_two_logical_calls_send_two_keys_and_reads_send_none(harness: Harness) -> None:
    saved = reply(201, {"id": "mem_1"})
    client = harness.client(saved, saved, reply(200, {"containers": []}))
    add: Callable[[Any], Any] = lambda c: c.memories.add("x", container="ctr_1")  # noqa: E731
    harness.run(client, add)
    harness.run(client, add)
    assert is_uuid4(key_of(harness, 0)) and is_uuid4(key_of(harness, 1))
    assert key_of(harness, 0) != key_of(harness, 1)
    harness.run(client, lambda c: c.containers.list())
    assert key_of(harness, 2) is None


def test_the_callers_own_key_is_sent_on_every_attempt(harness: Harness) -> None:
    client = harness.client(envelope(502, "internal", retryable=True), reply(202, {"id": "doc_1", "status": "queued"}))
    harness.run(client, lambda c: c.add("x", container="ctr_1", idempotency_key="order-42"))
    assert [key_of(harness, 0), key_of(harness, 1)] == ["order-42", "order-42"]


@pytest.mark.parametrize("bad", ["", "k" * 256, "café", "line\nbreak"])
def test_a_key_the_server_would_refuse_raises_before_sending(harness: Harness, bad: str) -> None:
    client = harness.client()
    with pytest.raises(ValueError):
        harness.run(client, lambda c: c.memories.add("x", idempotency_key=bad))
    assert harness.seen == []


def test_255_printable_characters_are_a_key(harness: Harness) -> None:
    client = harness.client(reply(201, {"id": "mem_1"}))
    harness.run(client, lambda c: c.memories.add("x", idempotency_key="k" * 255))
    assert key_of(harness, 0) == "k" * 255
