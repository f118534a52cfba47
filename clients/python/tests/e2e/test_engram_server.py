"""The client against the real Engram server (skipped unless the engram_server fixture finds one).

Only what the contract fixes is asserted here, so the tests hold for any conforming server.
"""

from __future__ import annotations

import uuid

import pytest

from engram import AsyncClient, Client, NotFoundError, PermissionDeniedError, is_confirmation_request
from tests.servers import LiveServer

pytestmark = pytest.mark.e2e


def test_lists_containers_and_rules(engram_server: LiveServer) -> None:
    with Client(api_key=engram_server.api_key, base_url=engram_server.base_url) as client:
        assert isinstance(client.containers.list()["containers"], list)
        assert isinstance(client.rules()["rules"], list)


def test_an_unknown_document_is_not_found_with_a_trace_id(engram_server: LiveServer) -> None:
    with Client(api_key=engram_server.api_key, base_url=engram_server.base_url) as client:
        with pytest.raises(NotFoundError) as caught:
            client.documents.get(f"doc_{uuid.uuid4().hex}")
    assert caught.value.code == "not_found"
    assert caught.value.trace_id


def test_a_bad_key_is_refused_with_403_unauthorized(engram_server: LiveServer) -> None:
    bad_key = "egm_nosuchkey_" + uuid.uuid4().hex + uuid.uuid4().hex
    with Client(api_key=bad_key, base_url=engram_server.base_url, max_retries=0) as client:
        with pytest.raises(PermissionDeniedError) as caught:
            client.containers.list()
    assert caught.value.code == "unauthorized"
    assert bad_key not in str(caught.value)


@pytest.mark.anyio
async def test_add_then_delete_asks_for_confirmation(engram_server: LiveServer) -> None:
    async with AsyncClient(api_key=engram_server.api_key, base_url=engram_server.base_url) as client:
        containers = (await client.containers.list())["containers"]
        if not containers:
            pytest.skip("the key reaches no container")
        added = await client.add("Engram e2e note", container=containers[0]["id"], custom_id=uuid.uuid4().hex)
        assert added["status"] == "queued"
        asked = await client.documents.delete(added["id"])
        assert is_confirmation_request(asked)
        done = await client.documents.delete(added["id"], confirm=True)
        assert done == {"status": "deleted", "id": added["id"]}
