"""``HindsightStore``: a LangGraph ``BaseStore`` over hindsight banks.

Pass it where LangGraph takes a store (``create_agent(store=...)``, ``compile(store=...)``,
LangMem's memory tools) and ``runtime.store.search(namespace, query=...)`` runs the full recall
pipeline (dense, keyword, graph and time channels, fused and reranked) of the bank behind it.

How namespaces map to banks (the documented rule):

* ``bank_for(namespace) -> bank id`` decides; by default the namespace's first label
  (``("alice", "memories")`` lives in bank ``"alice"``). For LangMem's ``("memories", "{user_id}")``
  give ``bank_for=lambda ns: ns[1]`` so each user gets a bank of their own.
* Every item keeps its full namespace and key, so namespaces sharing a bank never see each other's
  items. When a search or listing prefix is too short for ``bank_for`` (it raises ``IndexError`` or
  ``KeyError``) or holds a ``"*"`` wildcard, every bank is searched.

An item is one memory unit: its text (what recall indexes) comes from the value's ``index`` fields
when given (LangGraph paths such as ``"content"`` or ``"items[*].text"``), else every string in
the value; the value itself round-trips unchanged. ``put(..., index=False)`` items are found by
listing and filters, never by a query. Items are written with deduplication and belief
supersession off, so two keys never merge into one unit. TTLs are not supported: passing one
raises :class:`StoreOptionError`.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> store = HindsightStore(MemoryEngine.ephemeral(embedder=HashEmbedder()))
    >>> store.put(("alice", "prefs"), "editor", {"text": "Alice edits code in Helix"})
    >>> store.get(("alice", "prefs"), "editor").value
    {'text': 'Alice edits code in Helix'}
    >>> [i.key for i in store.search(("alice",), query="which editor does Alice use?")]
    ['editor']
    >>> store.list_namespaces()
    [('alice', 'prefs')]
"""

import asyncio
import json
import threading
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path

from hindsight_core import HindsightError, InvalidInputError, MemoryEngine

__all__ = ["HindsightStore", "StoreOptionError", "first_label"]

_META = "langgraph_store"  # metadata key holding an item's namespace, key, value and times
_OVER_FETCH = 20  # recall looks a little past the page so items of other namespaces in the bank can be skipped
_RECALL_MAX = 1000  # the recall pipeline's own cap on k
_OPS = {"$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b, "$gt": lambda a, b: a > b,
        "$gte": lambda a, b: a >= b, "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b}


class StoreOptionError(HindsightError, NotImplementedError):
    """An option of LangGraph's store API that HindsightStore does not support (e.g. TTL)."""


def first_label(namespace: tuple[str, ...]) -> str:
    """The default rule: a namespace lives in the bank named by its first label."""
    return namespace[0]


class _Entry(NamedTuple):
    bank: str
    unit_id: str
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    indexed: bool


def _text_of(value: Any, fields: list[str] | None) -> str:
    if fields:
        parts = [t for f in fields for t in get_text_at_path(value, f)]
    else:
        parts = []

        def walk(v: Any) -> None:
            if isinstance(v, str):
                parts.append(v)
            elif isinstance(v, Mapping):
                for x in v.values():
                    walk(x)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)

        walk(value)
    text = " ".join(p.strip() for p in parts if p and p.strip())
    return text or json.dumps(value, sort_keys=True, default=str)


def _lookup(value: Mapping[str, Any], path: str) -> Any:
    if path in value:
        return value[path]
    current: Any = value
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return None
        current = current[part]
    return current


def _matches_filter(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    for path, wanted in (flt or {}).items():
        have = _lookup(value, path)
        if isinstance(wanted, Mapping) and wanted and all(str(k).startswith("$") for k in wanted):
            for op, arg in wanted.items():
                if op not in _OPS:
                    raise InvalidInputError(f"unknown filter operator {op!r}; use one of {sorted(_OPS)}")
                try:
                    if not _OPS[op](have, arg):
                        return False
                except TypeError:
                    return False
        elif have != wanted:
            return False
    return True


def _matches_path(namespace: tuple[str, ...], path: tuple[str, ...], suffix: bool) -> bool:
    if len(path) > len(namespace):
        return False
    part = namespace[-len(path):] if suffix and path else namespace[: len(path)]
    return all(p == "*" or p == n for p, n in zip(path, part))


class HindsightStore(BaseStore):
    """A LangGraph store on a :class:`~hindsight_core.MemoryEngine` (see the module docstring).

    Args:
        engine: The engine whose banks hold the items.
        bank_for: ``namespace -> bank id`` (default :func:`first_label`).
        index_fields: Default fields to index (LangGraph paths); None: every string in the value.
        bank_options: Extra options for ``engine.bank(...)``.
        ttl: Not supported; anything but None raises :class:`StoreOptionError`.
    """

    supports_ttl = False

    def __init__(self, engine: MemoryEngine, *, bank_for: Callable[[tuple[str, ...]], str] = first_label,
                 index_fields: list[str] | None = None, bank_options: Mapping[str, Any] | None = None,
                 ttl: Any = None) -> None:
        if not isinstance(engine, MemoryEngine):
            raise InvalidInputError(f"engine must be a hindsight_core.MemoryEngine, not {type(engine).__name__}")
        if ttl is not None:
            raise StoreOptionError("HindsightStore does not expire items: drop ttl=..., or delete items yourself "
                                   "(store.delete) or let the bank's forgetting archive them")
        if not callable(bank_for):
            raise InvalidInputError("bank_for must be a function namespace -> bank id")
        self.engine, self.bank_for, self.index_fields = engine, bank_for, index_fields
        options = {"dedup": False, "keep_raw": True, **dict(bank_options or {})}
        lifecycle = dict(options.pop("lifecycle", {}) or {})
        lifecycle.setdefault("supersede_on_capture", False)  # an item is what was put, never a belief to revise
        self._options = {**options, "lifecycle": lifecycle}
        self._cache: dict[str, tuple[int, dict[tuple[tuple[str, ...], str], _Entry]]] = {}
        self._lock = threading.RLock()

    # ---- banks and the item index -----------------------------------------------------------------
    def _bank(self, bank_id: str) -> Any:
        return self.engine.bank(bank_id, **self._options)

    def _bank_id(self, namespace: tuple[str, ...]) -> str:
        found = self.bank_for(tuple(namespace))
        if not isinstance(found, str) or not found:
            raise InvalidInputError(f"bank_for({namespace!r}) returned {found!r}; it must return a bank id (str)")
        return found

    def _banks_for_prefix(self, prefix: tuple[str, ...]) -> list[str]:
        if "*" not in prefix:
            try:
                return [self._bank_id(prefix)]
            except (IndexError, KeyError):
                pass
        return list(self.engine.banks())

    def _entries(self, bank_id: str) -> dict[tuple[tuple[str, ...], str], _Entry]:
        """The items of one bank by (namespace, key), rebuilt when the bank changed."""
        if bank_id not in self.engine.banks():
            return {}
        bank = self._bank(bank_id)
        with self._lock:
            revision = bank.revision
            cached = self._cache.get(bank_id)
            if cached is not None and cached[0] == revision:
                return cached[1]
            entries: dict[tuple[tuple[str, ...], str], _Entry] = {}
            for unit in bank.units(status="active"):
                meta = unit.metadata.get(_META) if isinstance(unit.metadata, dict) else None
                if not isinstance(meta, dict):
                    continue
                ns = tuple(meta["namespace"])
                entries[(ns, meta["key"])] = _Entry(
                    bank_id, unit.id, ns, meta["key"], meta["value"], datetime.fromisoformat(meta["created_at"]),
                    unit.created_at, bool(meta.get("indexed", True)))
            self._cache[bank_id] = (revision, entries)
            return entries

    # ---- the five operations ----------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        entry = self._entries(self._bank_id(op.namespace)).get((tuple(op.namespace), op.key))
        if entry is None:
            return None
        return Item(value=entry.value, key=entry.key, namespace=entry.namespace, created_at=entry.created_at,
                    updated_at=entry.updated_at)

    def _put(self, op: PutOp) -> None:
        if op.ttl not in (None, NOT_PROVIDED):
            raise StoreOptionError(f"TTL is not supported by HindsightStore (got ttl={op.ttl!r}); set ttl=None")
        if op.value is not None and not isinstance(op.value, Mapping):
            raise InvalidInputError(f"a store value must be a dict, not {type(op.value).__name__}")
        namespace = tuple(op.namespace)
        bank_id = self._bank_id(namespace)
        with self._lock:  # look up, delete and write as one step, so a key never ends up twice
            old = self._entries(bank_id).get((namespace, op.key))
            bank = self._bank(bank_id)
            if old is not None:
                bank.delete(old.unit_id)
            if op.value is None:
                return
            fields = None if op.index in (None, False) else list(op.index)
            created = old.created_at if old else datetime.now(timezone.utc)
            meta = {_META: {"namespace": list(namespace), "key": op.key, "value": dict(op.value),
                            "created_at": created.isoformat(), "indexed": op.index is not False}}
            bank.capture(_text_of(op.value, fields or self.index_fields), source="user", metadata=meta, keep_raw=True)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        entries = [e for b in self._banks_for_prefix(prefix) for e in self._entries(b).values()
                   if _matches_path(e.namespace, prefix, suffix=False) and _matches_filter(e.value, op.filter)]
        scores: dict[str, float] = {}
        query = (op.query or "").strip()
        if query:
            entries = [e for e in entries if e.indexed]
            for bank_id in {e.bank for e in entries}:
                k = min(_RECALL_MAX, sum(e.bank == bank_id for e in entries) + _OVER_FETCH)
                result = self._bank(bank_id).recall(query, k=k, kinds=["world"])
                wanted = {e.unit_id for e in entries if e.bank == bank_id}
                scores.update((h.id, h.score) for h in result.hits if h.id in wanted)
            entries.sort(key=lambda e: (e.unit_id not in scores, -scores.get(e.unit_id, 0.0),
                                        -e.updated_at.timestamp()))
        else:
            entries.sort(key=lambda e: e.created_at)
        page = entries[op.offset: op.offset + op.limit]
        return [SearchItem(namespace=e.namespace, key=e.key, value=e.value, created_at=e.created_at,
                           updated_at=e.updated_at, score=scores.get(e.unit_id) if query else None) for e in page]

    def _list(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix = next((tuple(c.path) for c in op.match_conditions or () if c.match_type == "prefix"), ())
        found: set[tuple[str, ...]] = set()
        for bank_id in self._banks_for_prefix(prefix):
            for entry in self._entries(bank_id).values():
                ns = entry.namespace
                if all(_matches_path(ns, tuple(c.path), suffix=c.match_type == "suffix")
                       for c in op.match_conditions or ()):
                    found.add(ns[: op.max_depth] if op.max_depth is not None else ns)
        return sorted(found)[op.offset: op.offset + op.limit]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph store operations in order; every public method goes through here."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                results.append(self._put(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list(op))
            else:
                raise InvalidInputError(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async twin of :meth:`batch` (the same implementation, in a worker thread)."""
        return await asyncio.to_thread(self.batch, list(ops))
