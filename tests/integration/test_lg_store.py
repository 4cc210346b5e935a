"""HindsightStore against LangGraph's own store expectations, and LangMem's tools on it.

The store cases are ported from langgraph's ``libs/checkpoint/tests/test_store.py`` (the
``InMemoryStore`` expectations every ``BaseStore`` is held to: namespace listing with prefixes,
suffixes, wildcards, depth and pages; namespace validation; search by query and filter with
operators, pagination and edge-case queries; updates re-indexing; ``index=False``), run on real
Chroma with the real embedding model instead of LangGraph's character embeddings.
"""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp

from hindsight_lg import HindsightStore
from hindsight_lg.store import StoreOptionError


@pytest.fixture
def store(mem_engine):
    return HindsightStore(mem_engine)


# ---- list_namespaces (test_list_namespaces_*) ---------------------------------------------------
def test_list_namespaces_basic(store):
    namespaces = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
                  ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"), ("admin", "users", "789")]
    for i, ns in enumerate(namespaces):
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})
    assert sorted(store.list_namespaces(prefix=("a", "b"))) == [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert sorted(store.list_namespaces(suffix=("f",))) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert sorted(store.list_namespaces(prefix=("a",), suffix=("f",))) == [("a", "b", "f"), ("a", "c", "f")]
    assert sorted(store.list_namespaces(prefix=("a", "b"), max_depth=3)) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == [("a", "b", "c"), ("a", "b", "d", "e")]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == [("a", "b", "d", "i"), ("a", "b", "f")]
    assert sorted(store.list_namespaces(prefix=("a", "*", "f"))) == [("a", "b", "f"), ("a", "c", "f")]
    assert sorted(store.list_namespaces(suffix=("*", "f"))) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]


def test_list_namespaces_with_wildcards(store):
    namespaces = [("users", "123"), ("users", "456"), ("users", "789", "settings"), ("admin", "users", "789"),
                  ("guests", "123"), ("guests", "456", "preferences")]
    for i, ns in enumerate(namespaces):
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})
    assert sorted(store.list_namespaces(prefix=("users", "*"))) == [
        ("users", "123"), ("users", "456"), ("users", "789", "settings")]
    assert store.list_namespaces(suffix=("*", "preferences")) == [("guests", "456", "preferences")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []


def test_list_namespaces_pagination_depth_and_empty(store):
    assert store.list_namespaces() == []
    for i in range(20):
        store.put(namespace=("namespace", f"sub_{i:02d}"), key=f"id_{i:02d}", value={"data": f"value_{i:02d}"})
    assert store.list_namespaces(prefix=("namespace",), limit=5, offset=5) == [
        ("namespace", f"sub_{i:02d}") for i in range(5, 10)]
    for i, ns in enumerate([("a", "b", "c", "d"), ("a", "b", "f"), ("a", "g"), ("h", "i", "j", "k")]):
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})
    assert sorted(store.list_namespaces(max_depth=2)) == [("a", "b"), ("a", "g"), ("h", "i"), ("namespace", "sub_00"),
                                                          *[("namespace", f"sub_{i:02d}") for i in range(1, 20)]]


# ---- namespaces, round trip, delete (test_cannot_put_empty_namespace) ----------------------------
async def test_cannot_put_invalid_namespaces_and_values_round_trip(store):
    doc = {"foo": "bar", "n": 3, "nested": {"list": [1, 2.5, None, True]}}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            await store.aput(bad, "foo", doc)
    await store.aput(("foo", "langgraph", "foo"), "bar", doc)
    assert (await store.aget(("foo", "langgraph", "foo"), "bar")).value == doc
    assert (await store.asearch(("foo", "langgraph", "foo")))[0].value == doc
    await store.adelete(("foo", "langgraph", "foo"), "bar")
    assert await store.aget(("foo", "langgraph", "foo"), "bar") is None
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])  # past the public API, as LangGraph allows
    assert store.get(("langgraph", "foo"), "bar").value == doc
    store.delete(("langgraph", "foo"), "bar")
    assert store.get(("langgraph", "foo"), "bar") is None


def test_put_twice_updates_in_place_and_keeps_created_at(store):
    store.put(("u",), "k", {"text": "first"})
    first = store.get(("u",), "k")
    store.put(("u",), "k", {"text": "second"})
    second = store.get(("u",), "k")
    assert second.value == {"text": "second"} and second.created_at == first.created_at
    assert second.updated_at >= first.updated_at and len(store.search(("u",))) == 1


def test_identical_values_under_two_keys_stay_two_items(store):
    store.put(("u",), "a", {"text": "same words"})
    store.put(("u",), "b", {"text": "same words"})
    store.delete(("u",), "a")
    assert [i.key for i in store.search(("u",))] == ["b"]


# ---- search (test_vector_*) --------------------------------------------------------------------
DOCS = [("doc1", {"text": "short text"}), ("doc2", {"text": "longer text document"}),
        ("doc3", {"text": "longest text document here"}), ("doc4", {"description": "text in description field"}),
        ("doc5", {"content": "text in content field"}), ("doc6", {"body": "text in body field"})]


def test_vector_insert_with_auto_embedding(store):
    for key, value in DOCS:
        store.put(("test",), key, value)
    keys = [r.key for r in store.search(("test",), query="long text")]
    assert "doc2" in keys and "doc3" in keys


async def test_async_vector_insert_with_auto_embedding(store):
    for key, value in DOCS:
        await store.aput(("test",), key, value)
    keys = [r.key for r in await store.asearch(("test",), query="long text")]
    assert "doc2" in keys and "doc3" in keys


def test_vector_update_with_embedding(store):
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("test",), "doc2", {"text": "something about dogs"})
    store.put(("test",), "doc3", {"text": "text about birds"})
    initial = store.search(("test",), query="Zany Xerxes")
    assert initial[0].key == "doc1"
    initial_score = initial[0].score
    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = store.search(("test",), query="Zany Xerxes")
    after_score = next((r.score or 0.0 for r in after if r.key == "doc1"), 0.0)
    assert after_score < initial_score
    for r in store.search(("test",), query="new text about dogs"):
        if r.key == "doc1":
            assert r.score > after_score
    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert not any(r.key == "doc4" for r in store.search(("test",), query="new text about dogs", limit=3))
    assert any(r.key == "doc4" for r in store.search(("test",)))  # still listed


FILTER_DOCS = [("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
               ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
               ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
               ("doc4", {"text": "blue car", "color": "blue", "score": 3.5})]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_vector_search_with_filters(store, mode):
    async def search(**kw):
        return store.search(("test",), **kw) if mode == "sync" else await store.asearch(("test",), **kw)

    for key, value in FILTER_DOCS:
        store.put(("test",), key, value)
    results = await search(query="apple", filter={"color": "red"})
    assert len(results) == 2 and results[0].key == "doc1"
    results = await search(query="car", filter={"color": "red"})
    assert len(results) == 2 and results[0].key == "doc2"
    results = await search(query="bbbbluuu", filter={"score": {"$gt": 3.2}})
    assert len(results) == 3 and {r.key for r in results} == {"doc1", "doc3", "doc4"}
    results = await search(query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert [r.key for r in results] == ["doc3"]


async def test_concurrent_async_puts_deletes_and_searches(store):
    colors, items = ["red", "blue", "green", "yellow", "purple"], ["apple", "car", "house", "book", "phone"]
    docs = [(f"doc{i}", {"text": f"{colors[i % 5]} {items[i % 5]}", "color": colors[i % 5], "index": i})
            for i in range(20)]
    await asyncio.gather(*[store.aput(("test",), k, v) for k, v in docs])
    await asyncio.gather(*[store.adelete(("test",), k) for k, _ in docs[:5]])
    results = await asyncio.gather(store.asearch(("test",), query="apple", filter={"color": "red"}),
                                   store.asearch(("test",), query="house", filter={"index": {"$gt": 10}}))
    assert results[0] and all(r.value["color"] == "red" and r.value["index"] >= 5 for r in results[0])
    assert results[1] and all(r.value["index"] > 10 for r in results[1])


def test_vector_search_pagination_and_edge_cases(store):
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = store.search(("test",), query="test", limit=2)
    page2 = store.search(("test",), query="test", limit=2, offset=2)
    assert len(page1) == 2 and len(page2) == 2 and page1[0].key != page2[0].key
    assert len(store.search(("test",), query="test", limit=10)) == 5
    for query in ["", None, "test " * 100, "test!@#$%^&*()"]:
        assert len(store.search(("test",), query=query)) == 5


# ---- hindsight specifics -----------------------------------------------------------------------
def test_search_uses_the_recall_pipeline_and_banks_follow_the_rule(mem_engine):
    store = HindsightStore(mem_engine, bank_for=lambda ns: ns[1])
    store.put(("memories", "alice"), "m1", {"content": "Alice's staging database is db-staging-2"})
    store.put(("memories", "bob"), "m1", {"content": "Bob prefers the Helix editor"})
    assert set(mem_engine.banks()) >= {"alice", "bob"}
    hits = store.search(("memories", "alice"), query="which database is staging?")
    assert [h.key for h in hits] == ["m1"] and "db-staging-2" in hits[0].value["content"]
    assert store.search(("memories", "bob"), query="database")[0].value["content"].startswith("Bob")
    assert len(store.search(("memories",))) == 2  # a prefix too short for the rule searches every bank
    recalled = mem_engine.bank("alice").recall("staging database", k=1)  # the same bank, seen by the core
    assert "db-staging-2" in recalled.hits[0].unit.text


def test_ttl_is_refused_clearly(mem_engine, store):
    with pytest.raises(NotImplementedError, match="TTL"):
        store.put(("a",), "k", {"x": "y"}, ttl=5)
    with pytest.raises(StoreOptionError, match="TTL"):
        store.batch([PutOp(("a",), "k", {"x": "y"}, ttl=5)])
    with pytest.raises(StoreOptionError, match="ttl"):
        HindsightStore(mem_engine, ttl={"default_ttl": 5})


def test_langmem_tools_round_trip_inside_create_agent(mem_engine):
    langmem = pytest.importorskip("langmem", reason="pip install langmem")
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    from hindsight_lg.testing import ScriptedChatModel

    store = HindsightStore(mem_engine, bank_for=lambda ns: ns[1])
    namespace = ("memories", "{langgraph_user_id}")
    tools = [langmem.create_manage_memory_tool(namespace=namespace),
             langmem.create_search_memory_tool(namespace=namespace)]
    model = ScriptedChatModel(responses=[
        AIMessage("", tool_calls=[{"name": "manage_memory", "id": "c1",
                                   "args": {"content": "The user deploys with change tickets", "action": "create"}}]),
        "Noted.",
        AIMessage("", tool_calls=[{"name": "search_memory", "id": "c2", "args": {"query": "how does the user deploy?"}}]),
        lambda messages: f"Found: {messages[-1].text}",
    ])
    agent = create_agent(model, tools=tools, store=store)
    agent.invoke({"messages": [("user", "Remember: I deploy with change tickets")]},
                 {"configurable": {"langgraph_user_id": "alice"}})
    out = agent.invoke({"messages": [("user", "How do I deploy?")]}, {"configurable": {"langgraph_user_id": "alice"}})
    assert "change tickets" in out["messages"][-1].text
    assert store.search(("memories", "alice"), query="deploy")[0].value["content"] == \
        "The user deploys with change tickets"
    assert store.search(("memories", "bob"), query="deploy") == []


async def test_concurrent_puts_of_one_key_leave_one_item(store):
    await asyncio.gather(*[store.aput(("test",), "key", {"value": n}) for n in range(6)])
    items = await store.asearch(("test",))
    assert len(items) == 1 and items[0].key == "key" and items[0].value["value"] in range(6)
