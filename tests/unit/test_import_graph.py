"""No import cycles between hindsight_core modules, lazy (function-level) imports included.

The graph is built statically from every ``import`` in the package (``TYPE_CHECKING`` blocks
excepted: they never run). A cycle is a design bug (a service calling up into its caller), so this
test fails on one and names its modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hindsight_core",)


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                if isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:  # relative import
                        base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1] + ([base] if base else []))
                    for alias in child.names:
                        full = f"{base}.{alias.name}"
                        targets.add(full if full in modules else base)
                elif isinstance(child, ast.Import):
                    targets.update(alias.name for alias in child.names)
                visit(child)

        visit(ast.parse(path.read_text()))
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_detector_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_hindsight_core_has_no_import_cycle():
    modules = _modules()
    assert "hindsight_core.bank" in modules and len(modules) > 30
    assert _cycles(_graph(modules)) == []


#: Services over a bank's store and config (``storage/unit_store.py``): they never import the bank
#: facade or the engine, and never reach into another object's private attributes.
SERVICES = (
    "hindsight_core._write",
    "hindsight_core._recall",
    "hindsight_core._trust",
    "hindsight_core._episode_ops",
    "hindsight_core._lifecycle_ops",
    "hindsight_core._bank_state",
    "hindsight_core.lifecycle.beliefs",
    "hindsight_core.lifecycle.consolidate",
    "hindsight_core.lifecycle.forgetting",
    "hindsight_core.lifecycle.skills",
    "hindsight_core.storage.unit_store",
)
_FACADES = {"hindsight_core.bank", "hindsight_core.engine"}


def _imports_everywhere(tree: ast.AST) -> set[str]:
    """Every module named by an import, ``TYPE_CHECKING`` blocks included (a type-only import of the
    facade still couples a service to it)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def _private_reaches(tree: ast.AST) -> list[str]:
    """``obj._name`` accesses on anything but ``self``/``cls`` (dunders allowed)."""
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})):
            out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


def test_the_architecture_checks_find_a_reach_in():
    tree = ast.parse("from hindsight_core.bank import MemoryBank\ndef f(bank):\n    return bank._index.units\n")
    assert _imports_everywhere(tree) & _FACADES == {"hindsight_core.bank"}
    assert _private_reaches(tree) == ["line 3: bank._index"]
    assert _private_reaches(ast.parse("class A:\n    def f(self):\n        return self._x, type(self).__name__\n")) == []


def test_services_never_import_the_bank_nor_reach_into_privates():
    modules = _modules()
    problems = {}
    for name in SERVICES:
        assert name in modules, f"{name} was moved: update SERVICES"
        tree = ast.parse(modules[name].read_text())
        found = sorted(_imports_everywhere(tree) & _FACADES) + _private_reaches(tree)
        if found:
            problems[name] = found
    assert not problems, f"services must work on (store, config) only: {problems}"


_RECORD_WRITES = {"upsert", "update_metadata"}  # ChromaStore's record writes (drop_bank is bank management)
_INDEX_WRITES = {"add", "replace", "remove", "archive", "take_seq"}  # LiveIndex's writes


def _writes(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = node.func.value
        owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if ((node.func.attr in _RECORD_WRITES and owner_name == "store")
                or (node.func.attr in _INDEX_WRITES and owner_name == "index")):
            found.append(f"line {node.lineno}: {ast.unparse(node.func)}")
    return found


def test_the_write_check_finds_a_write_past_the_store():
    tree = ast.parse("index.store.upsert(col, ids)\nindex.add(unit, vec)\nstore.put(units)\n")
    assert _writes(tree) == ["line 1: index.store.upsert", "line 2: index.add"]


def test_only_storage_writes_records_and_indexes():
    """Chroma records and a bank's live index change in ``storage/`` only (the UnitStore keeps them in
    step): ``x.store.upsert(...)``, ``index.add(...)`` and the like elsewhere fail this test."""
    problems = {name: found for name, path in _modules().items() if not name.startswith("hindsight_core.storage")
                for found in [_writes(ast.parse(path.read_text()))] if found}
    assert not problems, f"write through the bank's UnitStore instead: {problems}"
