"""Backends for the conformance suite: the same tests on every Chroma deployment.

* ``persistent``: the embedded ``PersistentClient`` on a fresh folder (the default deployment);
* ``memory``: the in-memory client (``MemoryEngine.ephemeral``);
* ``server``: a real Chroma server started once per session with
  ``chroma run --path <tmp> --host 127.0.0.1 --port <free port>`` (loopback only) and stopped after;
  reached with ``MemoryEngine.from_http``. These tests carry the ``server`` marker.

Every test works in banks with fresh ids, so the shared server needs no reset between tests.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from hindsight_core import MemoryEngine

BACKENDS = ["persistent", "memory", pytest.param("server", marks=pytest.mark.server)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _chroma_cli() -> str:
    local = Path(sys.executable).with_name("chroma")
    return str(local) if local.exists() else (shutil.which("chroma") or "chroma")


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """``(host, port)`` of a Chroma server on loopback, for the whole session."""
    import chromadb
    from chromadb.config import Settings

    data = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    log = open(data / "server.log", "w")
    proc = subprocess.Popen([_chroma_cli(), "run", "--path", str(data / "db"), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                            env=dict(os.environ, ANONYMIZED_TELEMETRY="False"))
    deadline = time.monotonic() + 60
    while True:
        try:
            chromadb.HttpClient(host="127.0.0.1", port=port, settings=Settings(anonymized_telemetry=False)).heartbeat()
            break
        except Exception:  # noqa: BLE001 - not up yet
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"chroma server did not start: {(data / 'server.log').read_text()[-2000:]}")
            time.sleep(0.2)
    yield "127.0.0.1", port
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path, embedder):
    """A factory of engines on one backend; engines made by it share the same store."""
    kind = request.param
    made: list[MemoryEngine] = []
    memory: list[MemoryEngine] = []

    def make(*, fresh: bool = True) -> MemoryEngine:
        if kind == "persistent":
            engine = MemoryEngine(tmp_path / "store", embedder=embedder)
        elif kind == "memory":  # one in-memory store per test: "another engine" is the same object
            if not memory:
                memory.append(MemoryEngine.ephemeral(embedder=embedder))
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
