"""Fakes for your own tests: a small deterministic embedder, a scripted chat model, and a real
Chroma server on loopback (:class:`LocalChromaServer`) to test the ``MemoryEngine.from_http`` path.

``HashEmbedder`` embeds by hashing words and character trigrams, so texts that share words are
close and the result is stable across runs and machines. It needs no model download.

Example:
    >>> import numpy as np
    >>> emb = HashEmbedder(dim=64)
    >>> a, b, c = emb.embed(["port 8080 for billing", "billing port", "chocolate cake"])
    >>> bool(a @ b > a @ c)
    True
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

__all__ = ["HashEmbedder", "scripted_chat_model", "LocalChromaServer"]

_TOKEN = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Deterministic bag-of-words-and-trigrams embedder (an :class:`~hindsight_core.embeddings.Embedder`)."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, 1.0 if (value >> 63) & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                slot, sign = self._slot("w:" + token)
                out[row, slot] += 2.0 * sign
                padded = f"#{token}#"
                for i in range(len(padded) - 2):
                    slot, sign = self._slot("t:" + padded[i:i + 3])
                    out[row, slot] += 0.5 * sign
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def scripted_chat_model(responses: Sequence[str]) -> Any:
    """A LangChain chat model that answers with ``responses`` in turn (for tests of LLM paths).

    It has no tool calling, like many local models, so structured output falls back to parsing.
    """
    try:
        from langchain_core.language_models.fake_chat_models import FakeListChatModel
    except ImportError as exc:  # pragma: no cover
        from hindsight_core.errors import OptionalDependencyError

        raise OptionalDependencyError("scripted_chat_model needs langchain-core: pip install 'hindsight-memory[langgraph]'") from exc
    return FakeListChatModel(responses=list(responses))


class LocalChromaServer:
    """A Chroma server (``chroma run``) on a free loopback port, stopped on exit; its data in ``path``,
    its output in ``<path>.log``. Entering it waits until the server answers and gives ``(host, port)``.

    Example (not run here: it starts a server)::

        with LocalChromaServer("/tmp/chroma-data") as (host, port):
            engine = MemoryEngine.from_http(host, port)

    Raises:
        RuntimeError: the server exited or did not answer within ``start_timeout_s`` (the message
            ends with its last output).
    """

    def __init__(self, path: str | os.PathLike[str], *, start_timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self.log_path = self.path.with_name(self.path.name + ".log")
        self.start_timeout_s = start_timeout_s
        self.host = "127.0.0.1"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> tuple[str, int]:
        import chromadb
        from chromadb.config import Settings

        with socket.socket() as sock:
            sock.bind((self.host, 0))
            self.port = sock.getsockname()[1]
        local = Path(sys.executable).with_name("chroma")  # the venv's own CLI before any on PATH
        cli = str(local) if local.exists() else (shutil.which("chroma") or "chroma")
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen([cli, "run", "--path", str(self.path), "--host", self.host,
                                         "--port", str(self.port)], stdout=self._log, stderr=subprocess.STDOUT,
                                        env=dict(os.environ, ANONYMIZED_TELEMETRY="False"))
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            try:
                chromadb.HttpClient(host=self.host, port=self.port,
                                    settings=Settings(anonymized_telemetry=False)).heartbeat()
                return self.host, self.port
            except Exception:  # noqa: BLE001 - not up yet
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise RuntimeError(f"the Chroma server did not start: {self.log_path.read_text()[-2000:]}") from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._log.close()
        self.process = None
