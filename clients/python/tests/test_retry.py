"""The request loop: what is retried, how long it waits, and what is raised when retries run out."""

from __future__ import annotations

import httpx
import pytest

from engram import (
    APIConnectionError,
    APITimeoutError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    RateLimitError,
)
from engram._retry import backoff_seconds, retry_after_seconds, retry_wait, should_retry
from tests.support import Harness, envelope, reply

OK = {"containers": []}


def list_containers(client):  # noqa: ANN001, ANN201 - works for both clients
    return client.containers.list()


def test_retries_429_then_succeeds_after_one_backoff(harness: Harness) -> None:
    client = harness.client(envelope(429, "rate_limited", details={"limit_per_min": 600}), reply(200, OK))
    assert harness.run(client, list_containers) == OK
    assert len(harness.seen) == 2
    assert harness.waits == [0.5]


def test_backoff_doubles_per_attempt_and_stops_at_8_seconds(harness: Harness) -> None:
    client = harness.client(*[reply(503) for _ in range(7)], reply(200, OK), max_retries=7)
    harness.run(client, list_containers)
    assert harness.waits == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_jitter_takes_off_at_most_a_quarter(harness: Harness) -> None:
    client = harness.client(reply(500), reply(500), reply(200, OK), random=lambda: 0.999999)
    harness.run(client, list_containers)
    assert harness.waits == [pytest.approx(0.375, abs=1e-5), pytest.approx(0.75, abs=1e-5)]


def test_retry_after_is_honoured(harness: Harness) -> None:
    client = harness.client(reply(429, headers={"Retry-After": "3"}), reply(200, OK))
    harness.run(client, list_containers)
    assert harness.waits == [3.0]


def test_retry_after_is_capped_at_60_seconds(harness: Harness) -> None:
    client = harness.client(reply(503, headers={"Retry-After": "3600"}), reply(200, OK))
    harness.run(client, list_containers)
    assert harness.waits == [60.0]


def test_a_date_retry_after_falls_back_to_backoff(harness: Harness) -> None:
    client = harness.client(reply(503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), reply(200, OK))
    harness.run(client, list_containers)
    assert harness.waits == [0.5]


def test_5xx_until_retries_run_out_raises_internal_server_error(harness: Harness) -> None:
    client = harness.client(*[envelope(503, "internal", retryable=True) for _ in range(3)])
    with pytest.raises(InternalServerError) as caught:
        harness.run(client, list_containers)
    assert caught.value.status_code == 503
    assert len(harness.seen) == 3  # max_retries (2) + 1
    assert harness.waits == [0.5, 1.0]


def test_retries_follow_max_retries(harness: Harness) -> None:
    client = harness.client(*[reply(500) for _ in range(5)], max_retries=4)
    with pytest.raises(InternalServerError):
        harness.run(client, list_containers)
    assert len(harness.seen) == 5


def test_max_retries_zero_sends_once(harness: Harness) -> None:
    client = harness.client(envelope(429, "rate_limited"), max_retries=0)
    with pytest.raises(RateLimitError):
        harness.run(client, list_containers)
    assert len(harness.seen) == 1
    assert harness.waits == []


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(harness: Harness, status: int) -> None:
    client = harness.client(envelope(status, "validation"))
    with pytest.raises(Exception):
        harness.run(client, list_containers)
    assert len(harness.seen) == 1
    assert harness.waits == []


def test_400_is_raised_at_once(harness: Harness) -> None:
    client = harness.client(envelope(400, "validation", "q must not be empty."))
    with pytest.raises(BadRequestError):
        harness.run(client, lambda c: c.search(""))
    assert len(harness.seen) == 1


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504])
def test_retryable_statuses_are_retried(harness: Harness, status: int) -> None:
    client = harness.client(reply(status), reply(200, OK))
    assert harness.run(client, list_containers) == OK
    assert len(harness.seen) == 2


def test_409_until_retries_run_out_raises_conflict(harness: Harness) -> None:
    client = harness.client(*[envelope(409, "conflict") for _ in range(3)])
    with pytest.raises(ConflictError):
        harness.run(client, list_containers)
    assert len(harness.seen) == 3


def test_a_connection_error_is_retried(harness: Harness) -> None:
    client = harness.client(httpx.ConnectError("refused"), reply(200, OK))
    assert harness.run(client, list_containers) == OK
    assert harness.waits == [0.5]


def test_a_connection_error_to_the_end_raises_api_connection_error(harness: Harness) -> None:
    client = harness.client(*[httpx.ConnectError("[Errno 111] Connection refused") for _ in range(3)])
    with pytest.raises(APIConnectionError) as caught:
        harness.run(client, list_containers)
    assert not isinstance(caught.value, APITimeoutError)
    assert caught.value.status_code is None
    assert caught.value.retryable is True
    assert "Connection refused" in caught.value.message
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert len(harness.seen) == 3


def test_a_timeout_to_the_end_raises_api_timeout_error(harness: Harness) -> None:
    client = harness.client(*[httpx.ReadTimeout("timed out") for _ in range(3)])
    with pytest.raises(APITimeoutError) as caught:
        harness.run(client, list_containers)
    assert isinstance(caught.value, APIConnectionError)
    assert caught.value.status_code is None
    assert len(harness.seen) == 3
    assert harness.waits == [0.5, 1.0]


def test_a_timeout_then_an_answer_succeeds(harness: Harness) -> None:
    client = harness.client(httpx.ConnectTimeout("slow"), reply(200, OK))
    assert harness.run(client, list_containers) == OK


def test_the_same_body_is_sent_again(harness: Harness) -> None:
    client = harness.client(reply(502), reply(200, {"results": [], "containers": []}))
    harness.run(client, lambda c: c.search("tea", container="ctr_1"))
    assert [s.body for s in harness.seen] == [{"q": "tea", "container": "ctr_1"}] * 2


# The pure decisions, without a client.

def test_should_retry_table() -> None:
    assert should_retry(None, 0, 2)
    assert should_retry(429, 1, 2)
    assert not should_retry(429, 2, 2)
    assert not should_retry(400, 0, 2)
    assert not should_retry(200, 0, 2)
    assert should_retry(599, 0, 1)
    assert not should_retry(600, 0, 1)


@pytest.mark.parametrize(
    "value, seconds",
    [("0", 0.0), ("2", 2.0), ("1.5", 1.5), (" 7 ", 7.0), ("61", 60.0), ("-1", None), ("soon", None), ("nan", None)],
)
def test_retry_after_parsing(value: str, seconds: float) -> None:
    assert retry_after_seconds({"Retry-After": value}) == seconds


def test_retry_after_absent() -> None:
    assert retry_after_seconds({}) is None
    assert retry_after_seconds(None) is None


def test_backoff_does_not_overflow_on_many_retries() -> None:
    assert backoff_seconds(5000, lambda: 0.0) == 8.0


def test_retry_wait_prefers_retry_after_and_adds_no_jitter_to_it() -> None:
    assert retry_wait(3, {"retry-after": "2"}, lambda: 0.9) == 2.0
    assert retry_wait(3, {}, lambda: 0.0) == 4.0
