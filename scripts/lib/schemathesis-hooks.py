"""Custom schemathesis checks for scripts/schemathesis.sh, loaded through SCHEMATHESIS_HOOKS.

Registered here, they run only where that script names them in `--checks`:

- `error_envelope_trace_id` (every pass): an error answer (4xx or 5xx) is the envelope with a
  non-empty `code` and a non-empty `trace_id` equal to its `X-Trace-Id` header. The built-in
  response_schema_conformance already holds each documented error status to the ErrorEnvelope schema
  (all five fields required, `trace_id` among them, nothing else allowed); this adds what a schema
  cannot say: the two trace ids agree and are not empty, and it also covers answers to requests
  outside the document (an unspecified method, an unknown route), which that check skips.
- `refused_credential` (the revoked-key and malformed-bearer passes): every answer is a refusal
  with `code` `unauthorized`: 403 while the request carries a bearer, 401 when a generated case
  dropped it.

Bun answers 431 itself, before the application runs, for a request line and headers over 16 KiB:
no body, no envelope. The OpenAPI document lists it so; both checks leave it alone.
"""

from __future__ import annotations

import json

import schemathesis

# Answered by Bun, not by Engram: see the module docstring.
WITHOUT_ENVELOPE = frozenset({431})

# What a check returns: schemathesis records a check that returns a true value as skipped (not
# applicable to this answer) and one that returns None without raising as passed.
SKIPPED = True
PASSED = None


def _envelope(response) -> dict:
    """The answer's JSON object, or an AssertionError saying why it is not one."""
    try:
        body = json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        raise AssertionError(f"{response.status_code} answer is not JSON: {response.content[:200]!r}") from None
    if not isinstance(body, dict):
        raise AssertionError(f"{response.status_code} answer is not a JSON object: {response.content[:200]!r}")
    return body


@schemathesis.check
def error_envelope_trace_id(ctx, response, case):
    """An error answer is the envelope, and its trace_id is the X-Trace-Id header's."""
    if response.status_code < 400 or response.status_code in WITHOUT_ENVELOPE:
        return SKIPPED
    body = _envelope(response)
    code = body.get("code")
    trace_id = body.get("trace_id")
    if not isinstance(code, str) or not code:
        raise AssertionError(f"{response.status_code} envelope without a code: {body!r:.300}")
    if not isinstance(trace_id, str) or not trace_id:
        raise AssertionError(f"{response.status_code} envelope without a trace_id: {body!r:.300}")
    header = response.headers.get("x-trace-id", [])
    if header != [trace_id]:
        raise AssertionError(f"{response.status_code} envelope trace_id {trace_id!r} but X-Trace-Id {header!r}")
    return PASSED


@schemathesis.check
def refused_credential(ctx, response, case):
    """With a revoked or malformed credential nothing gets through: 403 unauthorized, or 401 without a bearer."""
    if response.status_code in WITHOUT_ENVELOPE:
        return SKIPPED
    sent = response.request.headers.get("Authorization") or ""
    scheme, _, credential = sent.strip().partition(" ")
    expected = 403 if scheme.lower() == "bearer" and credential.strip() else 401
    if response.status_code != expected:
        raise AssertionError(
            f"A refused credential got {response.status_code} for {case.method} {case.formatted_path}, expected {expected}"
        )
    code = _envelope(response).get("code")
    if code != "unauthorized":
        raise AssertionError(f"A refused credential got {response.status_code} with code {code!r}, expected 'unauthorized'")
    return PASSED
