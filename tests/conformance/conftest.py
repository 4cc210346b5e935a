"""Backends for the conformance suite: the same tests on every Chroma deployment.

* ``persistent``: the embedded ``PersistentClient`` on a fresh folder (the default deployment);
* ``memory``: the in-memory store (``MemoryEngine.ephemeral``: a private folder in RAM on Linux);
* ``memory-client``: Chroma's in-memory client, what ``MemoryEngine.ephemeral`` falls back to where
  there is no RAM file system (``storage/_ram_folder.py``);
* ``server``: a real Chroma server started once per session with
  ``chroma run --path <tmp> --host 127.0.0.1 --port <free port>`` (loopback only) and stopped after;
  reached with ``MemoryEngine.from_http``. These tests carry the ``server`` marker.

Every test works in banks with fresh ids, so the shared server needs no reset between tests.
"""

from __future__ import annotations

import uuid

import pytest

from hindsight_core import MemoryEngine
from hindsight_core.storage.chroma_store import ChromaStore
from hindsight_core.testing import LocalChromaServer

BACKENDS = ["persistent", "memory", "memory-client", pytest.param("server", marks=pytest.mark.server)]


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """``(host, port)`` of a Chroma server on loopback, for the whole session."""
    server = LocalChromaServer(tmp_path_factory.mktemp("chroma-server") / "db")
    try:
        address = server.__enter__()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield address
    server.__exit__()


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path, embedder):
    """A factory of engines on one backend; engines made by it share the same store."""
    kind = request.param
    made: list[MemoryEngine] = []
    memory: list[MemoryEngine] = []

    def make(*, fresh: bool = True) -> MemoryEngine:
        if kind == "persistent":
            engine = MemoryEngine(tmp_path / "store", embedder=embedder)
        elif kind.startswith("memory"):  # one in-memory store per test: "another engine" is the same object
            if not memory:
                memory.append(MemoryEngine.ephemeral(embedder=embedder) if kind == "memory" else
                              MemoryEngine(":memory:", embedder=embedder, _store_factory=ChromaStore._shared_memory))
            return memory[0]
        else:
            host, port = request.getfixturevalue("chroma_server")
            engine = MemoryEngine.from_http(host, port, embedder=embedder)
        made.append(engine)
        return engine

    make.kind = kind  # type: ignore[attr-defined]
    yield make
    for engine in made + memory:
        engine.close()


@pytest.fixture
def bank_ids():
    """Fresh bank ids (a shared server keeps banks of earlier tests)."""
    prefix = uuid.uuid4().hex[:8]
    return lambda name: f"{name}-{prefix}"
