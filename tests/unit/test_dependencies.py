"""Dependency hygiene: every distribution pyproject.toml declares is imported somewhere, and every
third-party module the code imports is declared (as a dependency or in an extra).

Imports are read with ``ast`` (no code runs), so lazy imports inside functions count too. A module name is
mapped to its distribution through the installed metadata (``importlib.metadata.packages_distributions``),
with a normalised-name fallback for distributions that are not installed here.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hindsight_core", "hindsight_lg", "hindsight_llamaindex", "benchmarks", "tests")  # tests: the test extra
OURS = set(PACKAGES)

# Distributions that are needed but never imported by name, each with its reason.
USED_WITHOUT_IMPORT = {
    "ipykernel": "the kernel nbclient starts to execute the notebooks",
    "onnx": "torch.onnx.export serialises the query pass with it (hindsight_core/_onnx_bert.py)",
    "nbconvert": "renders the notebooks (`jupyter nbconvert`), the reason the notebooks extra exists",
    "pytest": "the test runner",
    "pytest-asyncio": "a pytest plugin, loaded by entry point",
}


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _declared() -> dict[str, str]:
    """Normalised distribution name -> where pyproject declares it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    out = {}
    groups = {"dependencies": project["dependencies"], **project.get("optional-dependencies", {})}
    for group, reqs in groups.items():
        for req in reqs:
            dist = re.match(r"[A-Za-z0-9_.\-]+", req).group(0)
            if _name(dist) != "hindsight-memory":
                out.setdefault(_name(dist), group)
    return out


@functools.cache
def _imports() -> dict[str, str]:
    """Top-level module -> one file that imports it, over our packages (lazy imports included)."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "importorskip"
                      and node.args and isinstance(node.args[0], ast.Constant)):
                    names = [node.args[0].value]  # pytest.importorskip("nbclient")
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def _third_party(imports: dict[str, str]) -> dict[str, str]:
    return {m: f for m, f in imports.items() if m not in sys.stdlib_module_names and m not in OURS}


@functools.cache
def _installed() -> dict[str, list[str]]:
    return packages_distributions()  # reads every installed distribution's metadata: once per run


def _dists_of(module: str) -> set[str]:
    installed = _installed().get(module)
    return {_name(d) for d in installed} if installed else {_name(module)}


def test_every_third_party_import_is_declared():
    declared = _declared()
    missing = {m: f for m, f in _third_party(_imports()).items() if not _dists_of(m) & declared.keys()}
    assert not missing, f"imported but not declared in pyproject.toml (module: first file): {missing}"


def test_every_declared_dependency_is_imported():
    imported = set().union(*(_dists_of(m) for m in _third_party(_imports())))
    unused = sorted(d for d in _declared() if d not in imported and d not in USED_WITHOUT_IMPORT)
    assert not unused, f"declared in pyproject.toml but imported nowhere: {unused}; drop them or use them"


def test_the_reasons_name_declared_distributions():
    assert set(USED_WITHOUT_IMPORT) <= set(_declared()) | {"nbconvert"}
