"""Graph index: units, the entities they mention, who said them, and the links between units.

A ``networkx.MultiDiGraph`` exposed as :attr:`GraphIndex.graph`, with edge keys naming the link kind:

* unit nodes ``"u:<id>"`` (attributes ``seq``, ``session``, ``when``) and entity nodes ``"e:<key>"``;
* ``u -> e`` edges keyed ``"mentions"`` (from ``IndexedUnit.entities``) and ``"spoken_by"``
  (from ``IndexedUnit.speaker``, lower-cased);
* ``u -> u`` edges keyed ``"next"`` between consecutive units (by ``seq``) of the same session;
  units without a session are chained to the previous session-less unit when within 30 minutes;
* ``u -> u`` edges added by :meth:`GraphIndex.link` (``"caused_by"``, ``"evidence"``, ``"supersedes"`` ...).

The graph is a pure function of the units and links it holds: adding units in any order (or
removing one) gives the same graph as adding the remaining ones in ``seq`` order, so the engine can
rebuild it from storage. Removing a unit leaves no trace (entity nodes left without units go too).

Example:
    >>> from hindsight_core.retrieval.types import IndexedUnit
    >>> g = GraphIndex()
    >>> def unit(i, seq, ents): return IndexedUnit(i, seq, "", "world", "active", "user", "s1", None,
    ...                                           None, 0.0, ents, 0.5, 1.0, 0.0)
    >>> g.add(unit("a", 1, ("sweden",))); g.add(unit("b", 2, ("sweden", "oslo")))
    >>> sorted(g.entity_units("sweden")), g.neighbours("a")
    (['a', 'b'], ['b'])
"""

from __future__ import annotations

import bisect
import math
import re
from typing import TYPE_CHECKING, Iterable

import networkx as nx

if TYPE_CHECKING:
    from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["GraphIndex", "UNIT", "ENTITY"]

UNIT = "u:"
ENTITY = "e:"
_NO_SESSION = "\x00none"
# Session-less units said this close together are one sitting of a conversation (the usual 30-minute
# session timeout); facts captured hours apart are unrelated, and chaining them leaks scores between them.
_SITTING_GAP = 1_800.0
_WORD = re.compile(r"[a-z0-9][a-z0-9'._\-/]*")
_STRUCTURAL = frozenset({"mentions", "spoken_by", "next"})


class GraphIndex:
    """Unit/entity graph with the query helpers the graph recall channel needs."""

    def __init__(self) -> None:
        self.graph: nx.MultiDiGraph = nx.MultiDiGraph()
        self._chains: dict[str, list[tuple[int, str]]] = {}
        self._max_words = 1
        self._n_units = 0
        # fast mirrors of the graph for the query path (networkx views are slow to iterate)
        self._ent_units: dict[str, dict[str, tuple[str, ...]]] = {}
        self._unit_ents: dict[str, dict[str, tuple[str, ...]]] = {}
        self._prev: dict[str, str] = {}
        self._next: dict[str, str] = {}
        self._times: list[tuple[float, str]] = []  # (occurred_at or mentioned_at, id), sorted

    # -- maintenance -------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n_units

    def __contains__(self, unit_id: object) -> bool:
        return isinstance(unit_id, str) and (UNIT + unit_id) in self.graph

    def add(self, unit: "IndexedUnit") -> None:
        """Add (or replace) ``unit`` with its entity, speaker and session-chain edges."""
        node = UNIT + unit.id
        if node in self.graph:
            self.remove(unit.id)
        chain_key = unit.session_id if unit.session_id is not None else _NO_SESSION
        self._n_units += 1
        times = tuple(sorted({unit.mentioned_at, unit.when}))
        self.graph.add_node(node, seq=unit.seq, session=unit.session_id, when=unit.mentioned_at, chain=chain_key,
                            times=times)
        for t in times:
            bisect.insort(self._times, (t, unit.id))
        for key in unit.entities:
            self._link_entity(node, key, "mentions")
        if unit.speaker:
            self._link_entity(node, unit.speaker.strip().lower(), "spoken_by")
        chain = self._chains.setdefault(chain_key, [])
        pos = bisect.bisect_left(chain, (unit.seq, unit.id))
        prev = chain[pos - 1][1] if pos > 0 else None
        nxt = chain[pos][1] if pos < len(chain) else None
        if prev is not None and nxt is not None:
            self._unchain(prev, nxt)
        chain.insert(pos, (unit.seq, unit.id))
        if prev is not None:
            self._chain(prev, unit.id)
        if nxt is not None:
            self._chain(unit.id, nxt)

    def remove(self, unit_id: str) -> None:
        """Remove a unit, its edges, and the entity nodes it alone mentioned; unknown ids are ignored."""
        node = UNIT + unit_id
        if node not in self.graph:
            return
        data = self.graph.nodes[node]
        entities = [v for v in self.graph.successors(node) if v.startswith(ENTITY)]
        chain = self._chains.get(data["chain"], [])
        pos = bisect.bisect_left(chain, (data["seq"], unit_id))
        for t in data["times"]:
            i = bisect.bisect_left(self._times, (t, unit_id))
            if i < len(self._times) and self._times[i] == (t, unit_id):
                self._times.pop(i)
        self.graph.remove_node(node)
        self._n_units -= 1
        for key in self._unit_ents.pop(unit_id, {}):
            units = self._ent_units.get(key)
            if units is not None:
                units.pop(unit_id, None)
                if not units:
                    del self._ent_units[key]
        before, after = self._prev.pop(unit_id, None), self._next.pop(unit_id, None)
        if before is not None:
            self._next.pop(before, None)
        if after is not None:
            self._prev.pop(after, None)
        if pos < len(chain) and chain[pos][1] == unit_id:
            chain.pop(pos)
            if 0 < pos < len(chain):
                self._chain(chain[pos - 1][1], chain[pos][1])
        if not chain:
            self._chains.pop(data["chain"], None)
        for ent in entities:
            if self.graph.in_degree(ent) == 0:
                self.graph.remove_node(ent)

    def link(self, src_id: str, dst_id: str, kind: str, weight: float = 1.0) -> bool:
        """Add a typed unit-to-unit link; returns False (and adds nothing) if either unit is unknown."""
        a, b = UNIT + src_id, UNIT + dst_id
        if a not in self.graph or b not in self.graph or a == b:
            return False
        self.graph.add_edge(a, b, key=kind, weight=float(weight))
        return True

    def unlink(self, src_id: str, dst_id: str, kind: str) -> None:
        a, b = UNIT + src_id, UNIT + dst_id
        if self.graph.has_edge(a, b, key=kind):
            self.graph.remove_edge(a, b, key=kind)

    def _link_entity(self, node: str, key: str, kind: str) -> None:
        ent = ENTITY + key
        if ent not in self.graph:
            self.graph.add_node(ent)
            self._max_words = max(self._max_words, min(4, key.count(" ") + 1))
        self.graph.add_edge(node, ent, key=kind, weight=1.0)
        uid = node[len(UNIT):]
        units = self._ent_units.setdefault(key, {})
        units[uid] = tuple(sorted(set(units.get(uid, ())) | {kind}))
        ents = self._unit_ents.setdefault(uid, {})
        ents[key] = units[uid]

    def _chain(self, a: str, b: str) -> None:
        na, nb = UNIT + a, UNIT + b
        if self.graph.nodes[na]["chain"] == _NO_SESSION:
            if abs(self.graph.nodes[nb]["when"] - self.graph.nodes[na]["when"]) > _SITTING_GAP:
                return
        self.graph.add_edge(na, nb, key="next", weight=1.0)
        self._next[a] = b
        self._prev[b] = a

    def _unchain(self, a: str, b: str) -> None:
        self.unlink(a, b, "next")
        if self._next.get(a) == b:
            del self._next[a]
        if self._prev.get(b) == a:
            del self._prev[b]

    # -- queries -------------------------------------------------------------------------------
    def has_entity(self, key: str) -> bool:
        return key in self._ent_units

    def entity_units(self, key: str, kinds: Iterable[str] = ("mentions", "spoken_by")) -> list[str]:
        """Ids of the units linked to entity ``key`` by an edge of one of ``kinds``."""
        units = self._ent_units.get(key)
        if not units:
            return []
        wanted = set(kinds)
        return [uid for uid, ks in units.items() if any(k in wanted for k in ks)]

    def entity_degree(self, key: str) -> int:
        return len(self._ent_units.get(key, ()))

    def unit_entities(self, unit_id: str, kinds: Iterable[str] = ("mentions",)) -> list[str]:
        wanted = set(kinds)
        return [key for key, ks in self._unit_ents.get(unit_id, {}).items() if any(k in wanted for k in ks)]

    def in_window(self, start: float, end: float) -> list[str]:
        """Ids of units whose occurred_at or mentioned_at lies in ``[start, end)``, latest first."""
        lo = bisect.bisect_left(self._times, (start, ""))
        hi = bisect.bisect_left(self._times, (end, ""))
        return list(dict.fromkeys(uid for _, uid in reversed(self._times[lo:hi])))

    def prev_next(self, unit_id: str) -> tuple[str | None, str | None]:
        """The previous and next unit of the same session (or session-less chain), if any."""
        return self._prev.get(unit_id), self._next.get(unit_id)

    def neighbours(self, unit_id: str, kinds: Iterable[str] | None = ("next",)) -> list[str]:
        """Unit ids linked to ``unit_id`` in either direction by ``kinds`` (None: any unit link)."""
        node = UNIT + unit_id
        if node not in self.graph:
            return []
        wanted = None if kinds is None else set(kinds)
        out: list[str] = []
        for adj in (self.graph.succ[node], self.graph.pred[node]):
            for v, edges in adj.items():
                if v.startswith(UNIT) and (wanted is None or any(k in wanted for k in edges)):
                    out.append(v[len(UNIT):])
        return out

    def links(self, unit_id: str) -> list[tuple[str, str, float]]:
        """Non-structural links (``caused_by``, ``evidence`` ...) of a unit as (other id, kind, weight)."""
        node = UNIT + unit_id
        if node not in self.graph:
            return []
        out = []
        for adj in (self.graph.succ[node], self.graph.pred[node]):
            for v, edges in adj.items():
                if v.startswith(UNIT):
                    out.extend((v[len(UNIT):], k, d.get("weight", 1.0)) for k, d in edges.items() if k not in _STRUCTURAL)
        return out

    def session_units(self, session_id: str | None) -> list[str]:
        """Unit ids of a session in ``seq`` order."""
        return [uid for _, uid in self._chains.get(session_id if session_id is not None else _NO_SESSION, [])]

    def match_entities(self, text: str, extracted: Iterable[str] = ()) -> list[str]:
        """Entity keys of the graph named in ``text``: ``extracted`` keys plus any 1–4 word n-gram
        of the lower-cased text that is a known entity (so "lgbtq" matches without capitals)."""
        found: dict[str, None] = {}
        for key in extracted:
            if self.has_entity(key):
                found[key] = None
        words = [w.strip("'.,-/") for w in _WORD.findall(text.lower())]
        words = [w[:-2] if w.endswith("'s") else w for w in words]
        for n in range(1, self._max_words + 1):
            for i in range(len(words) - n + 1):
                key = " ".join(words[i:i + n])
                if key and self.has_entity(key):
                    found[key] = None
        return list(found)

    def entity_idf(self, key: str) -> float:
        return math.log(1.0 + max(1, self._n_units) / (1.0 + self.entity_degree(key)))
