"""Every method of the client, and every error class a real server can produce, against the real
Engram server: each test runs once with :class:`Client` and once with :class:`AsyncClient`.

The ``engram_server`` fixture starts the server from the repository (tests/servers.py) or takes
the one named by ENGRAM_E2E_*; a test needing what only a started server has (a Read key, the
owner's token, the rate-limited second server) skips without it.
"""

from __future__ import annotations

import inspect
import time
import uuid
from typing import Any, AsyncIterator, Callable, Dict, List, Optional, Type, Union

import anyio
import httpx
import pytest

from engram import (
    APIConnectionError,
    APIStatusError,
    AsyncClient,
    AuthenticationError,
    BadRequestError,
    Client,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
    error_from_response,
    is_confirmation_request,
)
from tests.servers import LiveServer, closed_port

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

AnyClient = Union[Client, AsyncClient]


class Api:
    """One client of the kind under test: ``await api(lambda c: c.search("x"))`` for both kinds."""

    def __init__(self, client: AnyClient) -> None:
        self.client = client

    async def __call__(self, call: Callable[[Any], Any]) -> Any:
        result = call(self.client)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def refused(self, call: Callable[[Any], Any], cls: Type[APIStatusError], status: int, code: str,
                      retryable: bool = False) -> APIStatusError:
        """Asserts the call raises ``cls`` carrying the server's envelope; returns the error."""
        with pytest.raises(cls) as caught:
            await self(call)
        assert_envelope(caught.value, status, code, retryable)
        return caught.value


def assert_envelope(error: APIStatusError, status: int, code: str, retryable: bool = False) -> None:
    assert (error.status_code, error.code, error.retryable) == (status, code, retryable)
    assert error.message
    assert isinstance(error.details, dict)
    assert error.trace_id and error.trace_id.startswith("tr_")
    if error.response is not None:
        assert error.response.headers["x-trace-id"] == error.trace_id


class Connect:
    """Makes clients of one kind (sync or async) for the server, and closes them afterwards."""

    def __init__(self, server: LiveServer, is_async: bool) -> None:
        self.server = server
        self.is_async = is_async
        self._made: List[Union[AnyClient, httpx.Client, httpx.AsyncClient]] = []

    def __call__(self, **options: Any) -> Api:
        """A client for the server; ``connect(api_key=..., max_retries=...)`` overrides."""
        options.setdefault("api_key", self.server.api_key)
        options.setdefault("base_url", self.server.base_url)
        options.setdefault("timeout", 30.0)
        client: AnyClient = AsyncClient(**options) if self.is_async else Client(**options)
        self._made.append(client)
        return Api(client)

    def hooked(self, on_request: Callable[[httpx.Request], None], **options: Any) -> Api:
        """A client whose httpx client calls ``on_request`` on each request just before sending it."""
        http: Union[httpx.Client, httpx.AsyncClient]
        if self.is_async:
            async def hook(request: httpx.Request) -> None:
                on_request(request)

            http = httpx.AsyncClient(event_hooks={"request": [hook]})
        else:
            http = httpx.Client(event_hooks={"request": [on_request]})
        self._made.append(http)
        return self(http_client=http, **options)

    def losing_first_answer(self, attempts: List[Dict[str, Any]]) -> Api:
        """A client whose first answer is lost after the server sent it, as a timeout would lose it.

        Each attempt's ``Idempotency-Key`` and answer go to ``attempts``.
        """
        http: Union[httpx.Client, httpx.AsyncClient]
        if self.is_async:
            http = httpx.AsyncClient(transport=_AsyncLoseFirstAnswer(attempts))
        else:
            http = httpx.Client(transport=_LoseFirstAnswer(attempts))
        self._made.append(http)
        return self(http_client=http)

    async def close(self) -> None:
        for made in reversed(self._made):
            closed = made.aclose() if isinstance(made, httpx.AsyncClient) else made.close()
            if inspect.isawaitable(closed):
                await closed


def _seen(attempts: List[Dict[str, Any]], request: httpx.Request, response: httpx.Response) -> None:
    attempts.append({"key": request.headers.get("idempotency-key"), "answer": response.json()})
    if len(attempts) == 1:
        raise httpx.ReadTimeout("the first answer is lost on purpose", request=request)


class _LoseFirstAnswer(httpx.HTTPTransport):
    def __init__(self, attempts: List[Dict[str, Any]]) -> None:
        super().__init__()
        self.attempts = attempts

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        response.read()
        response.close()
        _seen(self.attempts, request, response)
        return response


class _AsyncLoseFirstAnswer(httpx.AsyncHTTPTransport):
    def __init__(self, attempts: List[Dict[str, Any]]) -> None:
        super().__init__()
        self.attempts = attempts

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        await response.aread()
        await response.aclose()
        _seen(self.attempts, request, response)
        return response


@pytest.fixture(params=["sync", "async"])
async def connect(request: pytest.FixtureRequest, engram_server: LiveServer) -> AsyncIterator[Connect]:
    """Clients of one kind for the server: each test runs with Client, then with AsyncClient."""
    factory = Connect(engram_server, is_async=request.param == "async")
    yield factory
    await factory.close()


async def reach(api: Api, server: LiveServer) -> List[Dict[str, Any]]:
    """The containers the Full-access key reaches, as listed: ``[first, second, ...]``."""
    listed = (await api(lambda c: c.containers.list()))["containers"]
    ids = list(server.containers) or [c["id"] for c in listed]
    assert len(ids) >= 2, "the key must reach two or more containers"
    by_id = {c["id"]: c for c in listed}
    return [by_id[i] for i in ids]


async def until_learned(api: Api, document_id: str, timeout: float = 30.0) -> Dict[str, Any]:
    """Polls get-document until ``learned`` is true: learning runs in the server's background."""
    deadline = time.monotonic() + timeout
    while True:
        doc = await api(lambda c: c.documents.get(document_id))
        assert doc["status"] != "failed", f"learning failed: {doc['error']}"
        assert doc["learned"] == (doc["status"] == "learned")
        if doc["learned"]:
            return doc
        assert time.monotonic() < deadline, f"document {document_id} was not learned within {timeout} s"
        await anyio.sleep(0.1)


def raw(server: LiveServer, method: str, path: str, token: Optional[str], body: Any = None) -> httpx.Response:
    """A call the client does not make (the owner's routes)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, server.base_url + path, headers=headers, json=body, timeout=30)


# The methods


async def test_containers_list_lists_the_containers_in_reach(connect: Connect, engram_server: LiveServer) -> None:
    api = connect()
    containers = await reach(api, engram_server)
    for container in (await api(lambda c: c.containers.list()))["containers"]:
        assert sorted(container) == ["created_at", "description", "id", "learns_into_profile", "name"]
        assert container["id"].startswith("ctr_")
    assert len(containers) >= 2


async def test_a_document_is_added_learned_found_listed_and_deleted_with_confirmation(
    connect: Connect, engram_server: LiveServer
) -> None:
    api = connect()
    first, second = await reach(api, engram_server)
    custom_id = f"e2e-{uuid.uuid4()}"
    word = f"zephyrine{uuid.uuid4().hex[:8]}"
    content = f"She eats oatmeal with blueberries and {word} honey for breakfast."

    added = await api(lambda c: c.add(content, container=second["id"], custom_id=custom_id, title="Breakfast",
                                      metadata={"source": "e2e"}))
    assert added["status"] == "queued"
    assert (added["container"], added["custom_id"]) == (second["id"], custom_id)
    assert added["id"].startswith("doc_")
    again = await api(lambda c: c.add("something else", container=second["id"], custom_id=custom_id))
    assert again == {**added, "status": "exists"}

    fresh = await api(lambda c: c.documents.get(added["id"]))
    assert fresh["content"] == content
    assert fresh["metadata"] == {"source": "e2e"}
    assert fresh["learned"] == (fresh["status"] == "learned")
    learned = await until_learned(api, added["id"])
    assert (learned["learned"], learned["status"], learned["error"]) == (True, "learned", None)

    found = await api(lambda c: c.search(f"{word} breakfast", container=second["id"], limit=5))
    assert 1 <= len(found["results"]) <= 5
    hit = found["results"][0]
    assert word in hit["content"]
    assert (hit["document_id"], hit["custom_id"]) == (added["id"], custom_id)
    assert (hit["container"], hit["container_name"]) == (second["id"], second["name"])
    assert found["containers"] == [{"id": second["id"], "name": second["name"]}]

    everywhere = await api(lambda c: c.search(word, container="*"))
    assert sorted(c["id"] for c in everywhere["containers"]) == sorted([first["id"], second["id"]])
    assert all("error" not in c for c in everywhere["containers"])
    assert everywhere["results"][0]["document_id"] == added["id"]

    listed = await api(lambda c: c.documents.list(second["id"]))
    row = next(d for d in listed["documents"] if d["id"] == added["id"])
    assert row["learned"] is True
    assert "content" not in row
    assert all(d["id"] != added["id"] for d in (await api(lambda c: c.documents.list(first["id"])))["documents"])

    asked = await api(lambda c: c.documents.delete(added["id"]))
    assert is_confirmation_request(asked)
    assert asked["verb"] == "delete_document" and asked["how"]
    assert (await api(lambda c: c.documents.get(added["id"])))["id"] == added["id"], "nothing deleted without confirm"

    assert await api(lambda c: c.documents.delete(added["id"], confirm=True)) == {
        "status": "deleted",
        "id": added["id"],
        "forgotten": {"documents": 1, "passages": 1, "facts": 0},
        "kept": {"facts": 0},
    }
    await api.refused(lambda c: c.documents.get(added["id"]), NotFoundError, 404, "not_found")
    await api.refused(lambda c: c.documents.delete(added["id"], confirm=True), NotFoundError, 404, "not_found")


async def test_documents_list_pages_newest_first(connect: Connect, engram_server: LiveServer) -> None:
    api = connect()
    first = (await reach(api, engram_server))[0]["id"]
    ids = []
    for n in (1, 2, 3):
        ids.append((await api(lambda c: c.add(f"Paging note {n} {uuid.uuid4()}", container=first)))["id"])
    seen: List[str] = []
    cursor: Optional[str] = None
    while True:
        page = await api(lambda c: c.documents.list(first, limit=1, cursor=cursor))
        assert len(page["documents"]) <= 1
        seen += [d["id"] for d in page["documents"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [i for i in seen if i in ids] == ids[::-1]


async def test_memories_add_to_a_container_and_to_the_profile(connect: Connect, engram_server: LiveServer) -> None:
    api = connect()
    first = (await reach(api, engram_server))[0]["id"]
    topic = f"quokka{uuid.uuid4().hex[:8]}"
    fact = await api(lambda c: c.memories.add(f"The {topic} report is due on Friday.", container=first, title="Deadline"))
    assert fact["id"].startswith("mem_")
    assert (fact["container"], fact["static"], fact["title"]) == (first, False, "Deadline")
    standing = await api(lambda c: c.memories.add(f"Prefers {topic} tea over coffee.", static=True))
    assert (standing["container"], standing["static"]) == (None, True)

    profile = await api(lambda c: c.profile())
    assert any(f["id"] == standing["id"] for f in profile["static"])
    assert any(f["id"] == fact["id"] for f in profile["dynamic"])
    assert "results" not in profile
    assert isinstance((await api(lambda c: c.profile(topic)))["results"], list)


async def test_memories_forget_asks_for_confirmation_then_forgets(connect: Connect, engram_server: LiveServer) -> None:
    api = connect()
    first = (await reach(api, engram_server))[0]["id"]
    fact = await api(lambda c: c.memories.add(f"Parks the bike at gate {uuid.uuid4().hex[:4]}.", container=first))
    asked = await api(lambda c: c.memories.forget(fact["id"], container=first))
    assert is_confirmation_request(asked) and asked["verb"] == "forget_memory"
    assert any(f["id"] == fact["id"] for f in (await api(lambda c: c.profile()))["dynamic"])

    assert await api(lambda c: c.memories.forget(fact["id"], confirm=True)) == {"status": "forgotten", "id": fact["id"]}
    assert all(f["id"] != fact["id"] for f in (await api(lambda c: c.profile()))["dynamic"])
    await api.refused(lambda c: c.memories.forget(fact["id"], confirm=True), NotFoundError, 404, "not_found")


async def test_a_write_whose_answer_is_lost_is_retried_under_its_key_and_saved_once(
    connect: Connect, engram_server: LiveServer
) -> None:
    first = (await reach(connect(), engram_server))[0]["id"]
    attempts: List[Dict[str, Any]] = []
    title = f"Lost answer {uuid.uuid4()}"
    added = await connect.losing_first_answer(attempts)(lambda c: c.add("Saved once despite the retry.", container=first, title=title))
    assert len(attempts) == 2
    assert attempts[0]["key"] and attempts[1]["key"] == attempts[0]["key"]
    assert added == attempts[0]["answer"]
    listed = (await connect()(lambda c: c.documents.list(first, limit=200)))["documents"]
    assert [d["id"] for d in listed if d["title"] == title] == [added["id"]]

    attempts.clear()
    content = f"Feeds the cat at {uuid.uuid4().hex[:8]}."
    fact = await connect.losing_first_answer(attempts)(lambda c: c.memories.add(content, container=first))
    assert len(attempts) == 2 and fact == attempts[0]["answer"]
    dynamic = (await connect()(lambda c: c.profile()))["dynamic"]
    assert [f["id"] for f in dynamic if f["content"] == content] == [fact["id"]]


async def test_rules_are_the_account_wide_ones_and_the_keys_own(connect: Connect, engram_server: LiveServer) -> None:
    if not (engram_server.owner_token and engram_server.read_key):
        pytest.skip("needs the owner's token and a Read key")
    key_id = engram_server.api_key.split("_")[1]
    everyone = raw(engram_server, "POST", "/v1/rules", engram_server.owner_token, {"text": f"Never mention {uuid.uuid4()}."})
    own = raw(engram_server, "POST", "/v1/rules", engram_server.owner_token, {"text": "Answer in French.", "credential_id": key_id})
    assert (everyone.status_code, own.status_code) == (201, 201)

    rules = (await connect()(lambda c: c.rules()))["rules"]
    assert everyone.json() in rules
    assert own.json() in rules
    assert own.json()["scope"] == "credential"
    readers = (await connect(api_key=engram_server.read_key)(lambda c: c.rules()))["rules"]
    assert everyone.json() in readers
    assert own.json() not in readers, "another key does not see this key's rule"


async def test_ask_is_refused_no_developer_key_holds_ask_agent(connect: Connect) -> None:
    error = await connect().refused(lambda c: c.ask("What do I eat for breakfast?"), PermissionDeniedError, 403, "unauthorized")
    assert error.details["tool"] == "ask_agent"


# The error classes, each from a real refusal


async def test_400_bad_request(connect: Connect, engram_server: LiveServer) -> None:
    api = connect()
    first = (await reach(api, engram_server))[0]["id"]
    await api.refused(lambda c: c.search("   "), BadRequestError, 400, "validation")
    await api.refused(lambda c: c.add("x", container=first, url="https://example.org/"), BadRequestError, 400, "validation")
    error = await api.refused(lambda c: c.memories.add("Likes rain."), BadRequestError, 400, "validation")
    assert error.details["fields"] == ["container"]


async def test_401_authentication_error_when_the_bearer_does_not_arrive(connect: Connect) -> None:
    # The client always sends its key, so a missing bearer cannot come from it as configured: the
    # request goes through an httpx client that drops the header, as a misconfigured proxy would.
    def drop_bearer(request: httpx.Request) -> None:
        del request.headers["Authorization"]

    api = connect.hooked(drop_bearer)
    await api.refused(lambda c: c.containers.list(), AuthenticationError, 401, "unauthorized")


async def test_403_permission_denied(connect: Connect, engram_server: LiveServer) -> None:
    unknown = f"egm_nosuchkey000_{uuid.uuid4().hex}{uuid.uuid4().hex}"
    error = await connect(api_key=unknown).refused(lambda c: c.containers.list(), PermissionDeniedError, 403, "unauthorized")
    assert unknown not in str(error) and unknown not in error.message

    if not engram_server.read_key:
        pytest.skip("needs a Read key")
    first, second = (await reach(connect(), engram_server))[:2]
    reader = connect(api_key=engram_server.read_key)
    assert [c["id"] for c in (await reader(lambda c: c.containers.list()))["containers"]] == [first["id"]]
    above = await reader.refused(lambda c: c.add("A write from a Read key."), PermissionDeniedError, 403, "unauthorized")
    assert above.details["tool"] == "add_document"
    await reader.refused(lambda c: c.memories.forget("mem_whatever", confirm=True), PermissionDeniedError, 403, "unauthorized")
    await reader.refused(lambda c: c.search("anything", container=second["id"]), PermissionDeniedError, 403, "unauthorized")
    await reader.refused(lambda c: c.profile(), PermissionDeniedError, 403, "unauthorized")


async def test_404_not_found(connect: Connect) -> None:
    api = connect()
    await api.refused(lambda c: c.documents.get(f"doc_{uuid.uuid4().hex}"), NotFoundError, 404, "not_found")
    await api.refused(lambda c: c.documents.delete(f"doc_{uuid.uuid4().hex}"), NotFoundError, 404, "not_found")
    await api.refused(lambda c: c.memories.forget(f"mem_{uuid.uuid4().hex}"), NotFoundError, 404, "not_found")


async def test_409_conflict_from_a_real_answer(connect: Connect, engram_server: LiveServer) -> None:
    # No route a client method calls answers 409 today: a conflict arises only on the owner's routes
    # (a duplicate container name, changing a revoked key). A real 409 answer from one of those goes
    # through error_from_response, the one place the client turns a status into a class.
    if not engram_server.owner_token:
        pytest.skip("needs the owner's token")
    name = (await reach(connect(), engram_server))[0]["name"]
    response = raw(engram_server, "POST", "/v1/containers", engram_server.owner_token, {"name": name})
    assert response.status_code == 409
    error = error_from_response(response.status_code, response.json(), response.headers, response=response)
    assert isinstance(error, ConflictError)
    assert_envelope(error, 409, "conflict", retryable=True)


async def test_422_unprocessable_entity(connect: Connect, engram_server: LiveServer) -> None:
    api = connect()
    first = (await reach(api, engram_server))[0]["id"]
    error = await api.refused(lambda c: c.search("tea", container=first, limit=0), UnprocessableEntityError, 422, "validation")
    assert error.details["fields"] == ["limit"]
    typed = await api.refused(lambda c: c.search(42, container=first), UnprocessableEntityError, 422, "validation")
    assert typed.details["fields"] == ["q"]


async def test_429_rate_limit_after_the_retries_and_search_stays_exempt(connect: Connect, engram_server: LiveServer) -> None:
    limited, limit = engram_server.limited, engram_server.rate_limit
    if limited is None or limit is None:
        pytest.skip("needs the rate-limited server")
    once = connect(base_url=limited.base_url, api_key=limited.api_key, max_retries=0)
    error: Optional[BaseException] = None
    for _ in range(limit + 1):
        try:
            await once(lambda c: c.containers.list())
        except RateLimitError as caught:
            error = caught
            break
    assert isinstance(error, RateLimitError), f"no 429 within {limit + 1} calls"
    assert_envelope(error, 429, "rate_limited", retryable=True)
    assert error.details["limit_per_min"] == limit

    # With retries the client sends again (0.5 s, then 1 s: no Retry-After) and then raises.
    attempts: List[httpx.Request] = []
    retrying = connect.hooked(attempts.append, base_url=limited.base_url, api_key=limited.api_key, max_retries=2)
    await retrying.refused(lambda c: c.rules(), RateLimitError, 429, "rate_limited", retryable=True)
    assert len(attempts) == 3

    found = await once(lambda c: c.search("anything"))
    assert isinstance(found["results"], list), "search is never answered 429"


# A 5xx cannot be provoked from a correct server: tests/test_retry.py covers InternalServerError on
# a scripted transport, and scripts/schemathesis.sh checks that no request makes this server answer one.
async def test_connection_error_when_nothing_listens(connect: Connect) -> None:
    api = connect(base_url=f"http://127.0.0.1:{closed_port()}", max_retries=0)
    with pytest.raises(APIConnectionError) as caught:
        await api(lambda c: c.containers.list())
    assert caught.value.status_code is None
