"""Graph index: units, the entities they mention, who said them, and the links between units.

The graph is kept in plain dicts (the query path reads them directly) and exposed as a
``networkx.MultiDiGraph`` through :attr:`GraphIndex.graph`, built on demand, with edge keys naming
the link kind:

* unit nodes ``"u:<id>"`` (attributes ``seq``, ``session``, ``when``) and entity nodes ``"e:<key>"``;
* ``u -> e`` edges keyed ``"mentions"`` (from ``IndexedUnit.entities``) and ``"spoken_by"``
  (from ``IndexedUnit.speaker``, lower-cased);
* ``u -> u`` edges keyed ``"next"`` between consecutive units (by ``seq``) of the same session;
  units without a session are chained to the previous session-less unit when within 30 minutes;
  only what was said or done (``world`` and ``experience`` units) is chained: an observation,
  directive or skill is derived later and is no one's next turn;
* ``u -> u`` edges added by :meth:`GraphIndex.link` (``"caused_by"``, ``"evidence"``, ``"supersedes"`` ...).

The graph is a pure function of the units and links it holds: adding units in any order (or
removing one) gives the same graph as adding the remaining ones in ``seq`` order, so the engine can
rebuild it from storage. Removing a unit leaves no trace (entity nodes left without units go too).

Why dicts and not a live networkx graph: a networkx graph costs several small dicts per edge, and
a bank's open (or snapshot load, :mod:`hindsight_core.storage.snapshot`) would spend most of its
time building them although recall never reads them. :meth:`GraphIndex.export_columns` and
:meth:`GraphIndex.from_columns` give the whole state as flat arrays for a snapshot.

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
import itertools
import math
import re
from typing import TYPE_CHECKING, Any, Iterable

import networkx as nx
import numpy as np

if TYPE_CHECKING:
    from hindsight_core.retrieval.types import IndexedUnit

__all__ = ["GraphIndex", "UNIT", "ENTITY"]

UNIT = "u:"
ENTITY = "e:"
_NO_SESSION = "\x00none"
#: The chain of derived units (observations, directives, skills): held, never linked, so a unit
#: consolidated after a session's last turn does not become that turn's "next" (neighbour scores and
#: the context window of the session's next turn read the chain).
_DERIVED = "\x00derived"
# Session-less units said this close together are one sitting of a conversation (the usual 30-minute
# session timeout); facts captured hours apart are unrelated, and chaining them leaks scores between them.
_SITTING_GAP = 1_800.0
_WORD = re.compile(r"[a-z0-9][a-z0-9'._\-/]*")
_STRUCTURAL = frozenset({"mentions", "spoken_by", "next"})
_NEXT = "next"


#: A unit node: (seq, session, mentioned_at, chain key, sorted {mentioned_at, occurred_at or mentioned_at}).
#: A plain tuple, not a NamedTuple: a snapshot load makes one per unit, and zip() makes them in C.
_Node = tuple  # (int, str | None, float, str, tuple[float, ...])
_SEQ, _SESSION, _WHEN, _CHAIN, _TIMES = range(5)


class GraphIndex:
    """Unit/entity graph with the query helpers the graph recall channel needs."""

    def __init__(self) -> None:
        self._nodes: dict[str, _Node] = {}
        self._chains: dict[str, list[tuple[int, str]]] = {}
        self._max_words = 1
        self._ent_units: dict[str, dict[str, tuple[str, ...]]] = {}  # entity -> {unit: edge kinds}
        self._unit_ents: dict[str, dict[str, tuple[str, ...]]] = {}  # unit -> {entity: edge kinds}
        self._prev: dict[str, str] = {}  # the "next" edges, both ways
        self._next: dict[str, str] = {}
        self._out: dict[str, dict[str, dict[str, float]]] = {}  # link(): src -> {dst: {kind: weight}}
        self._in: dict[str, dict[str, dict[str, float]]] = {}  # dst -> {src: the same dict}
        self._times: list[tuple[float, str]] = []  # (occurred_at or mentioned_at, id), sorted
        self._kinds: dict[tuple[str, ...], tuple[str, ...]] = {}  # one shared tuple per combination
        self._view: tuple[int, nx.MultiDiGraph] | None = None
        self._version = 0

    # -- maintenance -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, unit_id: object) -> bool:
        return isinstance(unit_id, str) and unit_id in self._nodes

    @property
    def graph(self) -> nx.MultiDiGraph:
        """The whole graph as a ``networkx.MultiDiGraph`` (built on first use after a change; read it,
        do not change it: changes go through :meth:`add`, :meth:`remove` and :meth:`link`)."""
        if self._view is not None and self._view[0] == self._version:
            return self._view[1]
        g = nx.MultiDiGraph()
        for uid, node in self._nodes.items():
            g.add_node(UNIT + uid, seq=node[_SEQ], session=node[_SESSION], when=node[_WHEN], chain=node[_CHAIN],
                       times=node[_TIMES])
        for uid, ents in self._unit_ents.items():
            for key, kinds in ents.items():
                for kind in kinds:
                    g.add_edge(UNIT + uid, ENTITY + key, key=kind, weight=1.0)
        for a, b in self._next.items():
            g.add_edge(UNIT + a, UNIT + b, key=_NEXT, weight=1.0)
        for src, dsts in self._out.items():
            for dst, kinds in dsts.items():
                for kind, weight in kinds.items():
                    g.add_edge(UNIT + src, UNIT + dst, key=kind, weight=weight)
        self._view = (self._version, g)
        return g

    def add(self, unit: "IndexedUnit") -> None:
        """Add (or replace) ``unit`` with its entity, speaker and session-chain edges."""
        if unit.id in self._nodes:
            self.remove(unit.id)
        self._version += 1
        chain_key = (_DERIVED if not unit.is_turn
                     else unit.session_id if unit.session_id is not None else _NO_SESSION)
        times = tuple(sorted({unit.mentioned_at, unit.when}))
        self._nodes[unit.id] = (unit.seq, unit.session_id, unit.mentioned_at, chain_key, times)
        for t in times:
            bisect.insort(self._times, (t, unit.id))
        for key in unit.entities:
            self._link_entity(unit.id, key, "mentions")
        if unit.speaker:
            self._link_entity(unit.id, unit.speaker.strip().lower(), "spoken_by")
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
        data = self._nodes.get(unit_id)
        if data is None:
            return
        self._version += 1
        chain = self._chains.get(data[_CHAIN], [])
        pos = bisect.bisect_left(chain, (data[_SEQ], unit_id))
        for t in data[_TIMES]:
            i = bisect.bisect_left(self._times, (t, unit_id))
            if i < len(self._times) and self._times[i] == (t, unit_id):
                self._times.pop(i)
        del self._nodes[unit_id]
        for dst in self._out.pop(unit_id, {}):
            self._drop_half(self._in, dst, unit_id)
        for src in self._in.pop(unit_id, {}):
            self._drop_half(self._out, src, unit_id)
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
            self._chains.pop(data[_CHAIN], None)

    @staticmethod
    def _drop_half(side: dict[str, dict[str, dict[str, float]]], node: str, other: str) -> None:
        adj = side.get(node)
        if adj is not None:
            adj.pop(other, None)
            if not adj:
                del side[node]

    def link(self, src_id: str, dst_id: str, kind: str, weight: float = 1.0) -> bool:
        """Add a typed unit-to-unit link; returns False (and adds nothing) if either unit is unknown."""
        if src_id not in self._nodes or dst_id not in self._nodes or src_id == dst_id:
            return False
        self._version += 1
        kinds = self._out.setdefault(src_id, {}).get(dst_id)
        if kinds is None:
            kinds = self._out[src_id][dst_id] = {}
            self._in.setdefault(dst_id, {})[src_id] = kinds
        kinds[kind] = float(weight)
        return True

    def unlink(self, src_id: str, dst_id: str, kind: str) -> None:
        kinds = self._out.get(src_id, {}).get(dst_id)
        if kinds is None or kind not in kinds:
            return
        self._version += 1
        del kinds[kind]
        if not kinds:
            self._drop_half(self._out, src_id, dst_id)
            self._drop_half(self._in, dst_id, src_id)

    def _link_entity(self, uid: str, key: str, kind: str) -> None:
        if key not in self._ent_units:
            self._max_words = max(self._max_words, min(4, key.count(" ") + 1))
        units = self._ent_units.setdefault(key, {})
        combined = tuple(sorted(set(units.get(uid, ())) | {kind}))
        kinds = units[uid] = self._kinds.setdefault(combined, combined)
        self._unit_ents.setdefault(uid, {})[key] = kinds

    def _chain(self, a: str, b: str) -> None:
        na, nb = self._nodes[a], self._nodes[b]
        if na[_CHAIN] == _DERIVED or (na[_CHAIN] == _NO_SESSION and abs(nb[_WHEN] - na[_WHEN]) > _SITTING_GAP):
            return
        self._next[a] = b
        self._prev[b] = a

    def _unchain(self, a: str, b: str) -> None:
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

    def _adjacent(self, unit_id: str) -> list[dict[str, dict[str, float]]]:
        """Unit neighbours after, then before ``unit_id``: ``{other: {kind: weight}}`` each."""
        out = []
        for chained, linked in ((self._next.get(unit_id), self._out.get(unit_id, {})),
                                (self._prev.get(unit_id), self._in.get(unit_id, {}))):
            side: dict[str, dict[str, float]] = {}
            if chained is not None:
                side[chained] = {_NEXT: 1.0}
            for other, kinds in linked.items():
                side[other] = {**side.get(other, {}), **kinds}
            out.append(side)
        return out

    def neighbours(self, unit_id: str, kinds: Iterable[str] | None = ("next",)) -> list[str]:
        """Unit ids linked to ``unit_id`` in either direction by ``kinds`` (None: any unit link)."""
        if unit_id not in self._nodes:
            return []
        wanted = None if kinds is None else set(kinds)
        return [v for side in self._adjacent(unit_id) for v, edges in side.items()
                if wanted is None or any(k in wanted for k in edges)]

    def links(self, unit_id: str) -> list[tuple[str, str, float]]:
        """Non-structural links (``caused_by``, ``evidence`` ...) of a unit as (other id, kind, weight)."""
        if unit_id not in self._nodes:
            return []
        return [(v, k, w) for side in self._adjacent(unit_id) for v, edges in side.items()
                for k, w in edges.items() if k not in _STRUCTURAL]

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
        return math.log(1.0 + max(1, len(self._nodes)) / (1.0 + self.entity_degree(key)))

    # -- snapshot ------------------------------------------------------------------------------
    def reordered(self, unit_ids: Iterable[str]) -> "GraphIndex":
        """A copy of this graph's units, laid out as adding them in this order to an empty index lays
        them out (entity and unit dicts in that order), with no links (add them after, as a rebuild
        does). Chains and times are sorted structures, copied as they are. Unit ids must all be here."""
        out = GraphIndex()
        out._kinds = dict(self._kinds)
        for uid in unit_ids:
            out._nodes[uid] = self._nodes[uid]
            ents = self._unit_ents.get(uid)
            if ents is not None:
                out._unit_ents[uid] = dict(ents)
                for key, kinds in ents.items():
                    out._ent_units.setdefault(key, {})[uid] = kinds
        out._max_words = max([min(4, key.count(" ") + 1) for key in out._ent_units] + [1])
        out._chains = {chain: list(members) for chain, members in self._chains.items()}
        out._prev, out._next, out._times = dict(self._prev), dict(self._next), list(self._times)
        return out

    def export_columns(self, code: dict[str, int]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """The whole state as (JSON-able values, flat arrays), unit ids as their number in ``code``;
        dict orders are kept, so :meth:`from_columns` gives back an index that iterates the same."""
        ents = list(self._ent_units)
        ent_code = {k: i for i, k in enumerate(ents)}
        kinds = list(self._kinds)
        kind_code = {k: i for i, k in enumerate(kinds)}
        chains = list(self._chains)
        chain_code = {c: i for i, c in enumerate(chains)}
        nodes = list(self._nodes.items())
        out_edges = [(s, d, k, w) for s, dsts in self._out.items() for d, ks in dsts.items() for k, w in ks.items()]

        def ints(values: Iterable[int]) -> np.ndarray:
            return np.fromiter(values, dtype=np.int64)

        meta = {"entities": ents, "kinds": [list(k) for k in kinds], "chains": chains,
                "sessions": [n[_SESSION] for _, n in nodes], "max_words": self._max_words,
                "link_kinds": [k for _, _, k, _ in out_edges]}
        arrays = {
            "node_unit": ints(code[u] for u, _ in nodes),
            "node_seq": ints(n[_SEQ] for _, n in nodes),
            "node_when": np.fromiter((n[_WHEN] for _, n in nodes), dtype=np.float64),
            "node_chain": ints(chain_code[n[_CHAIN]] for _, n in nodes),
        }
        arrays["node_ntimes"] = ints(len(n[_TIMES]) for _, n in nodes)
        arrays["node_times"] = np.fromiter((t for _, n in nodes for t in n[_TIMES]), dtype=np.float64)
        arrays["chain_len"] = ints(len(c) for c in self._chains.values())
        arrays["chain_unit"] = ints(code[u] for c in self._chains.values() for _, u in c)
        arrays["eu_len"] = ints(len(us) for us in self._ent_units.values())
        arrays["eu_unit"] = ints(code[u] for us in self._ent_units.values() for u in us)
        arrays["eu_kind"] = ints(kind_code[ks] for us in self._ent_units.values() for ks in us.values())
        arrays["ue_unit"] = ints(code[u] for u in self._unit_ents)
        arrays["ue_len"] = ints(len(es) for es in self._unit_ents.values())
        arrays["ue_ent"] = ints(ent_code[e] for es in self._unit_ents.values() for e in es)
        arrays["ue_kind"] = ints(kind_code[ks] for es in self._unit_ents.values() for ks in es.values())
        arrays["next"] = ints(code[u] for pair in self._next.items() for u in pair)
        arrays["prev"] = ints(code[u] for pair in self._prev.items() for u in pair)
        arrays["times_t"] = np.fromiter((t for t, _ in self._times), dtype=np.float64)
        arrays["times_unit"] = ints(code[u] for _, u in self._times)
        arrays["out"] = ints(code[u] for s, d, _, _ in out_edges for u in (s, d))
        arrays["out_weight"] = np.fromiter((w for _, _, _, w in out_edges), dtype=np.float64)
        arrays["in"] = ints(code[u] for d, srcs in self._in.items() for s in srcs for u in (d, s))
        return meta, arrays

    @classmethod
    def from_columns(cls, meta: dict[str, Any], arrays: dict[str, np.ndarray], ids: list[str]) -> "GraphIndex":
        """The index :meth:`export_columns` described (``ids``: unit id by number)."""
        g = cls()
        unit = ids.__getitem__

        def names(key: str) -> list[str]:
            return list(map(unit, arrays[key].tolist()))

        def split(flat: list[Any], lengths: np.ndarray) -> list[list[Any]]:
            ends = np.cumsum(lengths).tolist()
            return [flat[a:b] for a, b in zip([0] + ends[:-1], ends)]

        chains = meta["chains"]
        seq = arrays["node_seq"].tolist()
        flat, ntimes = arrays["node_times"].tolist(), arrays["node_ntimes"].tolist()
        ends = list(itertools.accumulate(ntimes))
        times = [tuple(flat[e - n:e]) for n, e in zip(ntimes, ends)]
        g._nodes = dict(zip(names("node_unit"), zip(seq, meta["sessions"], arrays["node_when"].tolist(),
                                                    map(chains.__getitem__, arrays["node_chain"].tolist()), times)))
        seq_of = dict(zip(names("node_unit"), seq))
        g._chains = {c: list(zip(map(seq_of.__getitem__, members), members))
                     for c, members in zip(chains, split(names("chain_unit"), arrays["chain_len"]))}
        kinds = [tuple(k) for k in meta["kinds"]]
        g._kinds = {k: k for k in kinds}
        ents = meta["entities"]
        eu_kinds = list(map(kinds.__getitem__, arrays["eu_kind"].tolist()))
        g._ent_units = {e: dict(zip(us, ks)) for e, us, ks in
                        zip(ents, split(names("eu_unit"), arrays["eu_len"]), split(eu_kinds, arrays["eu_len"]))}
        ue_ents = split(list(map(ents.__getitem__, arrays["ue_ent"].tolist())), arrays["ue_len"])
        ue_kinds = split(list(map(kinds.__getitem__, arrays["ue_kind"].tolist())), arrays["ue_len"])
        g._unit_ents = {u: dict(zip(es, ks)) for u, es, ks in zip(names("ue_unit"), ue_ents, ue_kinds)}
        pairs = names("next")
        g._next = dict(zip(pairs[0::2], pairs[1::2]))
        pairs = names("prev")
        g._prev = dict(zip(pairs[0::2], pairs[1::2]))
        g._times = list(zip(arrays["times_t"].tolist(), names("times_unit")))
        pairs = names("out")
        for s, d, k, w in zip(pairs[0::2], pairs[1::2], meta["link_kinds"], arrays["out_weight"].tolist()):
            g._out.setdefault(s, {}).setdefault(d, {})[k] = w
        pairs = names("in")
        for d, s in zip(pairs[0::2], pairs[1::2]):
            g._in.setdefault(d, {})[s] = g._out[s][d]
        g._max_words = int(meta["max_words"])
        return g
