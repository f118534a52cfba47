"""Each status becomes its class with the envelope's fields; the key never shows in an error or a log."""

from __future__ import annotations

import logging
import pickle

import httpx
import pytest

import engram
from engram import (
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
from tests.support import API_KEY, API_KEY_HINT, Harness, envelope, reply

STATUS_CLASSES = [
    (400, "validation", BadRequestError),
    (401, "unauthenticated", AuthenticationError),
    (403, "unauthorized", PermissionDeniedError),
    (404, "not_found", NotFoundError),
    (409, "conflict", ConflictError),
    (422, "capability_unavailable", UnprocessableEntityError),
    (429, "rate_limited", RateLimitError),
    (500, "internal", InternalServerError),
    (502, "internal", InternalServerError),
    (503, "internal", InternalServerError),
    (599, "internal", InternalServerError),
    (418, "teapot", APIStatusError),
    (302, "moved", APIStatusError),
]


@pytest.mark.parametrize("status, code, cls", STATUS_CLASSES)
def test_each_status_raises_its_class_with_the_envelope_fields(harness: Harness, status: int, code: str, cls: type) -> None:
    answer = envelope(status, code, "The container may not be used.", details={"limit_per_min": 600},
                      retryable=status >= 500, trace_id="tr_abc")
    client = harness.client(answer, max_retries=0)
    with pytest.raises(cls) as caught:
        harness.run(client, lambda c: c.documents.get("doc_1"))
    error = caught.value
    assert type(error) is cls
    assert isinstance(error, APIStatusError) and isinstance(error, APIError) and isinstance(error, EngramError)
    assert error.status_code == status
    assert error.code == code
    assert error.message == "The container may not be used."
    assert error.details == {"limit_per_min": 600}
    assert error.retryable is (status >= 500)
    assert error.trace_id == "tr_abc"
    assert isinstance(error.response, httpx.Response)
    assert str(error) == f"{status} {code}: The container may not be used. (trace_id tr_abc)"


def test_error_from_response_is_the_one_mapping() -> None:
    error = error_from_response(404, {"code": "not_found", "message": "No such document."}, {"X-Trace-Id": "tr_h"})
    assert isinstance(error, NotFoundError)
    assert (error.code, error.message, error.trace_id, error.retryable) == ("not_found", "No such document.", "tr_h", False)


def test_trace_id_falls_back_to_the_header(harness: Harness) -> None:
    body = {"code": "not_found", "message": "No such document.", "details": None, "retryable": False}
    client = harness.client(httpx.Response(404, json=body, headers={"X-Trace-Id": "tr_header"}))
    with pytest.raises(NotFoundError) as caught:
        harness.run(client, lambda c: c.documents.get("doc_x"))
    assert caught.value.trace_id == "tr_header"


def test_the_envelope_trace_id_wins_over_the_header() -> None:
    error = error_from_response(500, {"code": "internal", "message": "m", "trace_id": "tr_body"}, {"X-Trace-Id": "tr_h"})
    assert error.trace_id == "tr_body"


def test_a_body_that_is_not_json_still_gives_the_class(harness: Harness) -> None:
    client = harness.client(httpx.Response(502, text="<html>Bad gateway</html>", headers={"X-Trace-Id": "tr_p"}),
                            max_retries=0)
    with pytest.raises(InternalServerError) as caught:
        harness.run(client, lambda c: c.rules())
    error = caught.value
    assert error.code is None
    assert error.message == "<html>Bad gateway</html>"
    assert error.retryable is True  # the client would retry a 5xx
    assert error.trace_id == "tr_p"


def test_an_empty_error_body_gives_the_reason_phrase(harness: Harness) -> None:
    client = harness.client(httpx.Response(401), max_retries=0)
    with pytest.raises(AuthenticationError) as caught:
        harness.run(client, lambda c: c.rules())
    assert caught.value.message == "HTTP 401 Unauthorized"
    assert caught.value.code is None


def test_an_rfc_6750_body_is_read_too() -> None:
    error = error_from_response(401, {"error": "invalid_token", "error_description": "The token is not valid."}, {})
    assert isinstance(error, AuthenticationError)
    assert (error.code, error.message) == ("invalid_token", "The token is not valid.")


def test_a_success_that_is_not_json_raises(harness: Harness) -> None:
    client = harness.client(httpx.Response(200, text="<html>proxy login</html>"))
    with pytest.raises(APIStatusError, match="not JSON"):
        harness.run(client, lambda c: c.rules())


def test_connection_errors_share_the_fields() -> None:
    error = APITimeoutError()
    assert isinstance(error, APIConnectionError) and isinstance(error, APIError)
    assert (error.status_code, error.code, error.details, error.trace_id) == (None, None, None, None)
    assert error.retryable is True


def test_errors_survive_pickling() -> None:
    error = error_from_response(429, {"code": "rate_limited", "message": "slow down", "details": {"limit_per_min": 5},
                                      "retryable": True, "trace_id": "tr_9"}, {})
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is RateLimitError
    assert (copy.status_code, copy.code, copy.message, copy.details, copy.trace_id) == (
        429, "rate_limited", "slow down", {"limit_per_min": 5}, "tr_9")
    assert str(copy) == str(error)


def test_every_error_class_is_exported() -> None:
    for name in ["EngramError", "APIError", "APIConnectionError", "APITimeoutError", "APIStatusError",
                 "BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError",
                 "ConflictError", "UnprocessableEntityError", "RateLimitError", "InternalServerError"]:
        assert issubclass(getattr(engram, name), EngramError)


# The key: only its hint may ever be shown.

def _echo_the_key(request: httpx.Request) -> httpx.Response:
    """A careless server that repeats the credential back in its error."""
    key = request.headers["authorization"].removeprefix("Bearer ")
    return httpx.Response(403, json={"code": "unauthorized", "message": f"The key {key} is revoked.",
                                     "details": {"key": key, "seen": [key]}, "retryable": False,
                                     "trace_id": "tr_k"})


def test_the_key_is_never_in_an_error_message_repr_or_log(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="engram")
    client = harness.client(reply(503), _echo_the_key)
    with pytest.raises(PermissionDeniedError) as caught:
        harness.run(client, lambda c: c.documents.get("doc_1"))
    error = caught.value
    shown = [str(error), repr(error), error.message, repr(error.details), repr(error.body), repr(error.args),
             repr(client), caplog.text]
    for text in shown:
        assert API_KEY not in text
    assert API_KEY_HINT in error.message
    assert error.details == {"key": API_KEY_HINT, "seen": [API_KEY_HINT]}
    assert "Retrying GET /v1/documents/doc_1" in caplog.text


def test_the_key_is_not_in_a_connection_error(harness: Harness) -> None:
    client = harness.client(httpx.ConnectError(f"failed with {API_KEY}"), max_retries=0)
    with pytest.raises(APIConnectionError) as caught:
        harness.run(client, lambda c: c.rules())
    assert API_KEY not in str(caught.value)
    assert API_KEY_HINT in str(caught.value)


def test_the_client_repr_shows_only_the_hint(harness: Harness) -> None:
    client = harness.client()
    assert API_KEY not in repr(client)
    assert API_KEY_HINT in repr(client)
    assert client.api_key_hint == API_KEY_HINT
