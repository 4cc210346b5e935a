"""HindsightMemory, HindsightMemoryBlock and HindsightEmbedding on the real engine and model."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import Memory

import hindsight_llamaindex
from hindsight_core import InvalidInputError
from hindsight_llamaindex import HindsightEmbedding, HindsightMemory, HindsightMemoryBlock

FACT = "The staging database is db-staging-2."


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def test_public_surface_is_pinned():
    assert hindsight_llamaindex.__all__ == [
        "HindsightMemory", "HindsightMemoryBlock", "HindsightEmbedding", "run_with_memory", "AgentRun",
        "infer_outcome", "checked_tools"]


def test_reset_clears_short_term_only_and_forgetting_long_term_is_explicit(engine):
    mem = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s1")
    mem.put(user(FACT))
    mem.put(ChatMessage(role="assistant", content="Noted."))
    stored = engine.bank("alice").count()
    assert stored == 2

    mem.reset()
    assert mem.get_all() == [] and engine.bank("alice").count() == stored
    recalled = mem.get(input="Which database is staging?")
    assert recalled[0].role.value == "system" and "db-staging-2" in recalled[0].content

    mem.put(user("Thanks."))
    mem.forget_long_term()
    assert "alice" not in engine.banks()
    assert [m.content for m in mem.get_all()] == ["Thanks."]  # short-term history untouched
    assert all(m.role.value != "system" for m in mem.get(input="Which database is staging?"))


async def test_same_message_is_captured_once(engine):
    mem = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s1", capture_roles=("user", "tool"))
    question = user("Deploy billing to prod")
    call = ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="c1", tool_name="deploy",
                                                               tool_kwargs={"service": "billing"})])
    result = ChatMessage(role="tool", content="deployed version 42", additional_kwargs={"tool_call_id": "c1"})
    await mem.aput(question)
    await mem.aput_messages([question, call, result])  # an agent re-putting what it already put
    await mem.aset([user("Deploy billing to prod"), call, result])  # a copy of the same history
    assert engine.bank("alice").count() == 2  # the user turn and the tool result, once each
    steps = mem.current_episode().steps
    assert [(s.kind.value, s.tool) for s in steps] == [("user", None), ("tool_call", "deploy"),
                                                       ("tool_result", "deploy")]
    units = list(engine.bank("alice").units())
    assert {u.metadata["role"] for u in units} == {"user", "tool"} and {u.session_id for u in units} == {"s1"}

    await mem.aend_episode("success")
    await mem.aput(user("Deploy billing to prod"))  # the same request again, in a new episode
    assert mem.current_episode().goal == "Deploy billing to prod"


async def test_recall_budget_and_no_echo_of_the_open_conversation(engine):
    bank = engine.bank("alice")
    bank.capture_many([f"Service {name} runs on port {port} in the staging cluster." for name, port in
                       [("billing", 9090), ("search", 9200), ("auth", 9300), ("mail", 9400), ("cart", 9500)]])
    mem = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s1", max_recall_tokens=60)
    await mem.aput(user("Which port does the billing service use in staging?"))
    messages = await mem.aget()
    system = messages[0].content
    assert len(system) // 4 + 1 <= 60 + 5 and "9090" in system
    assert "Which port does the billing service use" not in system  # it is in the history already
    # unbounded, every service comes back; cached recall stays the same on repeated gets
    wide = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s2", max_recall_tokens=2000,
                                  recall_k=10)
    first = await wide.aget(input="ports of services in staging")
    assert all(p in first[0].content for p in ("9090", "9200", "9300", "9400", "9500"))
    assert (await wide.aget(input="ports of services in staging"))[0].content == first[0].content


def test_sync_api_and_episode_end(engine):
    mem = HindsightMemory.from_engine(engine, bank_id="ops", session_id="s1")
    with pytest.raises(InvalidInputError, match="no episode to end"):
        mem.end_episode("success")
    mem.put(user("Rotate the gateway API keys"))
    mem.put(ChatMessage(role="assistant", content="Rotated 3 keys."))
    result = mem.end_episode("success", "Quick and correct.")
    assert result.experience.session_id == "s1" and result.lesson is not None
    assert mem.current_episode() is None and mem.episode_id == mem.episode_id
    with pytest.raises(InvalidInputError, match="capture_roles"):
        HindsightMemory.from_engine(engine, bank_id="ops", capture_roles=("system",))
    bare = HindsightMemory(primary_memory=Memory.from_defaults(), bank_id="ops", session_id="s9")
    with pytest.raises(InvalidInputError, match="from_engine"):
        bare.put(user("hello"))


async def test_sync_api_inside_a_running_loop(engine):
    mem = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s1")
    mem.put(user(FACT))  # LlamaIndex's asyncio_run moves it to a worker thread
    other = HindsightMemory.from_engine(engine, bank_id="alice", session_id="s2")
    assert "db-staging-2" in other.get(input="staging database?")[0].content
    assert "db-staging-2" in (await other.aget(input="staging database?"))[0].content


def test_from_defaults_shares_one_engine_per_folder(tmp_path, embedder):
    a = HindsightMemory.from_defaults("alice", "s1", path=str(tmp_path), embedder=embedder)
    b = HindsightMemory.from_defaults("alice", "s2", path=str(tmp_path))
    assert a.engine is b.engine and a.engine.embedder is embedder
    a.put(user(FACT))
    assert "db-staging-2" in b.get(input="staging database?")[0].content
    a.engine.close()


async def test_memory_block_recalls_and_truncates_by_priority(engine):
    bank = engine.bank("alice")
    bank.capture(FACT)
    bank.capture("The production database is db-prod-1 behind pgbouncer.")
    block = HindsightMemoryBlock.from_engine(engine, bank_id="alice", priority=1)
    memory = Memory.from_defaults(session_id="s1", memory_blocks=[block], token_limit=100_000)
    await memory.aput(user("Which database is staging?"))
    full = (await memory.aget())[0]
    assert full.role.value == "system" and "db-staging-2" in full.content and "<hindsight_memory>" in full.content
    assert bank.count() == 2  # nothing overflowed the short-term FIFO, so the block stored nothing yet

    text = await block.aget([user("Which database is staging?")])
    shorter = await block.atruncate(text, 10)
    assert shorter is not None and len(shorter) < len(text) and "db-staging-2" in shorter
    assert await block.atruncate(text, 10_000) is None
    # Memory drops the block when the history leaves no room for it
    tight = Memory.from_defaults(session_id="s2", memory_blocks=[block], token_limit=40, chat_history_token_ratio=0.9)
    await tight.aput(user("Which database is staging? " + "please answer briefly " * 5))
    assert all("db-staging-2" not in (m.content or "") for m in await tight.aget())


async def test_embedding_shares_the_engine_model(engine):
    embed = HindsightEmbedding.from_engine(engine)
    assert embed.embedder is engine.embedder and embed.model_name == engine.embedder.name
    vec = embed.get_text_embedding(FACT)
    assert np.allclose(vec, engine.embedder.embed([FACT])[0], atol=1e-6)
    batch = await embed.aget_text_embedding_batch([FACT, "chocolate cake"])
    query = await embed.aget_query_embedding("Which database is staging?")
    assert np.dot(query, batch[0]) > np.dot(query, batch[1])

    from llama_index.core import Document, VectorStoreIndex

    index = VectorStoreIndex.from_documents([Document(text=FACT), Document(text="Cakes need flour.")],
                                           embed_model=embed)
    nodes = await index.as_retriever(similarity_top_k=1).aretrieve("staging database")
    assert "db-staging-2" in nodes[0].get_content()


def test_concurrent_sessions_do_not_mix(engine):
    async def session(name: str, fact: str) -> None:
        mem = HindsightMemory.from_engine(engine, bank_id=name, session_id=name)
        await mem.aput(user(fact))

    async def both() -> None:
        await asyncio.gather(session("alice", "Alice's cat is Miso."), session("bob", "Bob's dog is Rex."))

    asyncio.run(both())
    assert [u.text for u in engine.bank("alice").units()] == ["Alice's cat is Miso."]
    assert [u.text for u in engine.bank("bob").units()] == ["Bob's dog is Rex."]


@pytest.mark.parametrize("module", ["__init__", "memory", "block", "embedding", "run", "testing", "_messages"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    name = "hindsight_llamaindex" if module == "__init__" else f"hindsight_llamaindex.{module}"
    failures, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


async def test_memory_block_stores_what_memory_flushes_to_it(engine):
    block = HindsightMemoryBlock.from_engine(engine, bank_id="flush", session_id="s1")
    memory = Memory.from_defaults(session_id="s1", memory_blocks=[block], token_limit=60,
                                  chat_history_token_ratio=0.5, token_flush_size=10)
    await memory.aput(user("My favourite editor is Helix and I use it for every project."))
    await memory.aput(user("Which colour scheme should I pick for the terminal today?"))
    for n in range(6):  # push both out of the short-term FIFO
        await memory.aput(user(f"Filler message number {n} to fill the short-term window quickly."))
    await memory.aget()
    kinds = {u.text: u.kind.value for u in engine.bank("flush").units()}
    assert kinds.get("My favourite editor is Helix and I use it for every project.") == "world"
    assert kinds.get("Which colour scheme should I pick for the terminal today?") == "experience"
