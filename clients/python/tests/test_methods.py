"""Every client method sends the request the contract's method map names, for both clients."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import pytest

from tests.support import API_KEY, BASE_URL, Harness, reply

DOC = {"id": "doc_1", "container": "ctr_1", "title": None, "content": "hi", "url": None,
       "custom_id": None, "metadata": None, "status": "queued", "learned": False, "error": None,
       "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-01T00:00:00Z"}

# (name, call, method, path, query, body)
CASES = [
    ("add with content", lambda c: c.add("hello", container="ctr_1"),
     "POST", "/v1/documents", {}, {"container": "ctr_1", "content": "hello"}),
    ("add with every field", lambda c: c.add(container="ctr_1", url="https://example.org/a",
                                             custom_id="c-1", metadata={"k": 1}, title="A"),
     "POST", "/v1/documents", {},
     {"container": "ctr_1", "url": "https://example.org/a", "custom_id": "c-1", "metadata": {"k": 1}, "title": "A"}),
    ("search", lambda c: c.search("what do I like?"),
     "POST", "/v1/search", {}, {"q": "what do I like?"}),
    ("search with container and limit", lambda c: c.search("tea", container="*", limit=5),
     "POST", "/v1/search", {}, {"q": "tea", "container": "*", "limit": 5}),
    ("profile", lambda c: c.profile(), "GET", "/v1/profile", {}, None),
    ("profile with q", lambda c: c.profile("food"), "GET", "/v1/profile", {"q": "food"}, None),
    ("ask", lambda c: c.ask("Summarise my week"), "POST", "/v1/ask", {}, {"message": "Summarise my week"}),
    ("ask with model", lambda c: c.ask("hi", model="small"), "POST", "/v1/ask", {}, {"message": "hi", "model": "small"}),
    ("rules", lambda c: c.rules(), "GET", "/v1/rules", {}, None),
    ("containers.list", lambda c: c.containers.list(), "GET", "/v1/containers", {}, None),
    ("documents.list", lambda c: c.documents.list(), "GET", "/v1/documents", {}, None),
    ("documents.list paged", lambda c: c.documents.list("ctr_1", limit=20, cursor="cur_9"),
     "GET", "/v1/documents", {"container": "ctr_1", "limit": "20", "cursor": "cur_9"}, None),
    ("documents.get", lambda c: c.documents.get("doc_1"), "GET", "/v1/documents/doc_1", {}, None),
    ("documents.delete unconfirmed", lambda c: c.documents.delete("doc_1"),
     "DELETE", "/v1/documents/doc_1", {}, None),
    ("documents.delete confirmed", lambda c: c.documents.delete("doc_1", confirm=True),
     "DELETE", "/v1/documents/doc_1", {"confirm": "true"}, None),
    ("memories.add", lambda c: c.memories.add("I like green tea"),
     "POST", "/v1/memories", {}, {"content": "I like green tea"}),
    ("memories.add static", lambda c: c.memories.add("Name: Ada", container="ctr_1", static=True, title="name"),
     "POST", "/v1/memories", {}, {"content": "Name: Ada", "container": "ctr_1", "static": True, "title": "name"}),
    ("memories.add static false is sent", lambda c: c.memories.add("x", static=False),
     "POST", "/v1/memories", {}, {"content": "x", "static": False}),
    ("memories.forget unconfirmed", lambda c: c.memories.forget("mem_1"),
     "DELETE", "/v1/memories/mem_1", {}, None),
    ("memories.forget confirmed in a container", lambda c: c.memories.forget("mem_1", container="ctr_1", confirm=True),
     "DELETE", "/v1/memories/mem_1", {"container": "ctr_1", "confirm": "true"}, None),
]


@pytest.mark.parametrize("name, call, method, path, query, body", CASES, ids=[case[0] for case in CASES])
def test_sends_the_mapped_request(
    harness: Harness,
    name: str,
    call: Callable[[Any], Any],
    method: str,
    path: str,
    query: Dict[str, str],
    body: Optional[Dict[str, Any]],
) -> None:
    answer = {"echo": name}
    client = harness.client(reply(200, answer))
    assert harness.run(client, call) == answer
    [seen] = harness.seen
    assert (seen.method, seen.path, seen.query, seen.body) == (method, path, query, body)
    assert seen.headers["authorization"] == f"Bearer {API_KEY}"
    assert seen.headers["accept"] == "application/json"
    assert seen.headers["user-agent"].startswith("engram-python/")
    if body is not None:
        assert seen.headers["content-type"] == "application/json"


def test_returns_the_decoded_document(harness: Harness) -> None:
    client = harness.client(reply(200, DOC))
    assert harness.run(client, lambda c: c.documents.get("doc_1")) == DOC


def test_add_returns_queued_with_202(harness: Harness) -> None:
    answer = {"id": "doc_2", "status": "queued", "container": "ctr_1", "custom_id": "c-2"}
    client = harness.client(reply(202, answer))
    assert harness.run(client, lambda c: c.add("text", container="ctr_1", custom_id="c-2")) == answer


def test_memories_add_returns_the_fact_with_201(harness: Harness) -> None:
    fact = {"id": "mem_1", "content": "x", "title": None, "static": True, "container": None,
            "created_at": "t", "updated_at": "t"}
    client = harness.client(reply(201, fact))
    assert harness.run(client, lambda c: c.memories.add("x", static=True)) == fact


def test_an_empty_answer_gives_none(harness: Harness) -> None:
    client = harness.client(reply(204))
    assert harness.run(client, lambda c: c.rules()) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.documents.get(""),
        lambda c: c.documents.get("   "),
        lambda c: c.documents.delete("", confirm=True),
        lambda c: c.memories.forget(""),
    ],
    ids=["get", "get blank", "delete", "forget"],
)
def test_an_empty_path_parameter_raises_before_sending(harness: Harness, call: Callable[[Any], Any]) -> None:
    client = harness.client()
    with pytest.raises(ValueError, match="must not be empty"):
        harness.run(client, call)
    assert harness.seen == []


def test_a_path_parameter_that_is_not_a_string_raises_type_error(harness: Harness) -> None:
    client = harness.client()
    with pytest.raises(TypeError):
        harness.run(client, lambda c: c.documents.get(None))
    assert harness.seen == []


@pytest.mark.parametrize(
    "raw, encoded",
    [("a/b c", "a%2Fb%20c"), ("doc?x=1#f", "doc%3Fx%3D1%23f"), ("..", "%2E%2E"), ("ünï", "%C3%BCn%C3%AF")],
)
def test_path_parameters_are_url_encoded(harness: Harness, raw: str, encoded: str) -> None:
    client = harness.client(reply(200, {}), reply(200, {}))
    harness.run(client, lambda c: c.documents.get(raw))
    harness.run(client, lambda c: c.memories.forget(raw))
    assert [s.path for s in harness.seen] == [f"/v1/documents/{encoded}", f"/v1/memories/{encoded}"]
    assert all(s.query == {} for s in harness.seen)


def test_arguments_after_the_first_are_keyword_only(harness: Harness) -> None:
    client = harness.client()
    with pytest.raises(TypeError):
        harness.run(client, lambda c: c.search("q", "ctr_1"))
    with pytest.raises(TypeError):
        harness.run(client, lambda c: c.documents.delete("doc_1", True))
    with pytest.raises(TypeError):
        harness.run(client, lambda c: c.memories.add("x", "ctr_1"))
    assert harness.seen == []


def test_a_base_url_with_a_path_prefix_is_kept(harness: Harness) -> None:
    client = harness.client(reply(200, {"containers": []}), base_url="https://proxy.test/engram/")
    harness.run(client, lambda c: c.containers.list())
    [seen] = harness.seen
    assert seen.path == "/engram/v1/containers"


def test_the_request_carries_the_configured_timeout(harness: Harness) -> None:
    client = harness.client(reply(200, {}), timeout=12.5)
    harness.run(client, lambda c: c.rules())
    [seen] = harness.seen
    assert seen.timeout == {"connect": 12.5, "read": 12.5, "write": 12.5, "pool": 12.5}


def test_base_url_default_origin() -> None:
    from engram import Client

    client = Client(api_key=API_KEY)
    assert client.base_url == "http://127.0.0.1:8787"
    client.close()
    assert BASE_URL != client.base_url
