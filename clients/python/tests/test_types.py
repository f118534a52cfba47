"""The typed shapes: confirmation requests and per-container search errors cannot be missed."""

from __future__ import annotations

import typing

import pytest

from engram import is_confirmation_request, types
from tests.support import Harness, reply

CONFIRM = {"status": "confirmation_required", "verb": "delete_document",
           "how": "Ask the person to confirm, then call again with confirm=true."}


def test_an_unconfirmed_delete_answers_a_confirmation_request(harness: Harness) -> None:
    client = harness.client(reply(200, CONFIRM))
    result = harness.run(client, lambda c: c.documents.delete("doc_1"))
    assert is_confirmation_request(result)
    assert result["verb"] == "delete_document"


def test_a_confirmed_delete_answers_deleted(harness: Harness) -> None:
    client = harness.client(reply(200, {"status": "deleted", "id": "doc_1"}))
    result = harness.run(client, lambda c: c.documents.delete("doc_1", confirm=True))
    assert not is_confirmation_request(result)
    assert result == {"status": "deleted", "id": "doc_1"}


def test_an_unconfirmed_forget_answers_a_confirmation_request(harness: Harness) -> None:
    client = harness.client(reply(200, {**CONFIRM, "verb": "forget_memory"}),
                            reply(200, {"status": "forgotten", "id": "mem_1"}))
    first = harness.run(client, lambda c: c.memories.forget("mem_1"))
    second = harness.run(client, lambda c: c.memories.forget("mem_1", confirm=True))
    assert is_confirmation_request(first) and not is_confirmation_request(second)


def test_is_confirmation_request_rejects_other_values() -> None:
    assert not is_confirmation_request(None)
    assert not is_confirmation_request([])
    assert not is_confirmation_request({"status": "queued"})


def _members(union: object) -> set:
    return set(typing.get_args(union))


def test_delete_and_forget_results_are_unions_with_the_confirmation_request() -> None:
    assert _members(types.DeleteDocumentResult) == {types.DeletedDocument, types.ConfirmationRequest}
    assert _members(types.ForgetMemoryResult) == {types.ForgottenMemory, types.ConfirmationRequest}
    hints = typing.get_type_hints(types.ConfirmationRequest)
    assert typing.get_args(hints["status"]) == ("confirmation_required",)


@pytest.mark.parametrize(
    "shape, required, optional",
    [
        (types.Container, {"id", "name", "description", "created_at", "learns_into_profile"}, set()),
        (types.SearchHit, {"container", "container_name", "content", "score", "document_id", "memory_id",
                           "custom_id", "title", "position"}, {"source"}),
        (types.FactSource, {"document_id", "custom_id", "passage"}, set()),
        (types.SearchedContainer, {"id", "name"}, {"error"}),
        (types.SearchResponse, {"results", "containers"}, set()),
        (types.Fact, {"id", "content", "title", "static", "container", "created_at", "updated_at"}, set()),
        (types.Profile, {"static", "dynamic"}, {"results"}),
        (types.Document, {"id", "container", "title", "url", "custom_id", "metadata", "status", "learned",
                          "error", "created_at", "updated_at"}, {"content"}),
        (types.DocumentList, {"documents", "next_cursor"}, set()),
        (types.Rule, {"id", "text", "scope", "created_at"}, set()),
        (types.ConfirmationRequest, {"status", "verb", "how"}, set()),
        (types.AddDocumentResponse, {"id", "status", "container", "custom_id"}, set()),
        (types.ErrorEnvelope, {"code", "message", "details", "retryable", "trace_id"}, set()),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_shapes_match_the_api_document(shape: type, required: set, optional: set) -> None:
    assert set(shape.__required_keys__) == required
    assert set(shape.__optional_keys__) == optional
    typing.get_type_hints(shape)  # every annotation resolves on this Python


def test_a_search_error_in_one_container_is_kept(harness: Harness) -> None:
    answer = {"results": [], "containers": [
        {"id": "ctr_1", "name": "Work"},
        {"id": "ctr_2", "name": "Home", "error": {"code": "internal", "message": "index unavailable"}},
    ]}
    client = harness.client(reply(200, answer))
    result = harness.run(client, lambda c: c.search("tea", container="*"))
    failed = [c for c in result["containers"] if "error" in c]
    assert [c["id"] for c in failed] == ["ctr_2"]
