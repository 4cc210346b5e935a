"""The public surface is small and pinned; every docstring example runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import hindsight_core


def test_core_exports_are_pinned():
    assert sorted(hindsight_core.__all__) == sorted([
        "MemoryEngine", "MemoryBank", "MemoryUnit", "MemoryKind", "MemoryStatus", "Source", "Outcome",
        "CaptureItem", "CaptureResult", "RecallHit", "RecallResult", "ChannelHit", "BankConfig", "RecallConfig",
        "PIIConfig", "GateConfig", "CacheConfig", "Embedder", "HindsightError", "InvalidInputError", "UnknownOptionError",
        "NotFoundError", "StorageError", "SchemaVersionError", "LLMError", "OptionalDependencyError",
    ])
    for name in hindsight_core.__all__:
        assert getattr(hindsight_core, name) is not None


def test_error_tree():
    from hindsight_core import errors

    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.HindsightError)
    assert issubclass(errors.InvalidInputError, ValueError)
    assert issubclass(errors.NotFoundError, KeyError)


def _modules():
    for pkg_name in ("hindsight_core", "hindsight_lg", "hindsight_llamaindex"):
        pkg = importlib.import_module(pkg_name)
        yield pkg_name
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg_name}."):
            if info.name.endswith((".demo", ".cli")):
                continue  # exercised by their own tests
            yield info.name


@pytest.mark.parametrize("module_name", sorted(set(_modules())))
def test_docstring_examples_run(module_name):
    module = importlib.import_module(module_name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0
