"""Pictures of what a bank remembers: its graph as a self-contained HTML page or a PNG.

Nodes are memory units (coloured by kind; faded when superseded, archived or invalidated; red
ring for a lesson from a failure) and the entities they mention (grey diamonds). Edges are the
graph index's links: ``mentions``/``spoken_by`` (unit to entity), ``next`` (temporal: the next
unit of the same session) and causal links (``evidence``, ``caused_by``: a lesson to the episode it
came from, a belief to what it was derived from) and supersessions (a new belief to the one it
replaced, dashed brown: the legend's "supersedes link").

The HTML page is one file with inline SVG, CSS and a few lines of script (click a node to see its
text and highlight its neighbours): no CDN, nothing fetched, it opens offline. The PNG is drawn
with matplotlib (``pip install 'hindsight-memory[notebooks]'``). Both use the same view and the
same seeded layout, so the pictures are stable across runs.

Example:
    >>> from hindsight_core import MemoryEngine
    >>> from hindsight_core.testing import HashEmbedder
    >>> bank = MemoryEngine.ephemeral(embedder=HashEmbedder()).bank("alice")
    >>> _ = bank.capture("Billing runs on port 8080 in eu-west.", session_id="s1")
    >>> _ = bank.capture("Billing moved to port 9090.", session_id="s1")
    >>> view = graph_view(bank)
    >>> len(view.units), sorted(e.category for e in view.edges)[-1]
    (2, 'temporal')
    >>> graph_html(bank).startswith("<!doctype html>")
    True
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hindsight_core.errors import InvalidInputError, OptionalDependencyError

if TYPE_CHECKING:
    from hindsight_core.bank import MemoryBank

__all__ = ["GraphView", "ViewNode", "ViewEdge", "graph_view", "graph_html", "graph_figure", "save_graph",
           "KIND_COLOURS", "EDGE_STYLES"]

KIND_COLOURS = {
    "world": "#4e79a7",
    "experience": "#f28e2b",
    "observation": "#59a14f",
    "directive": "#b07aa1",
    "skill": "#edc948",
    "entity": "#9c9c9c",
}
#: edge category -> (colour, width, dashed, arrow)
EDGE_STYLES = {
    "entity": ("#c9c9c9", 0.8, False, False),
    "temporal": ("#76b7b2", 1.6, False, True),
    "causal": ("#e15759", 2.0, False, True),
    "supersedes": ("#8c564b", 1.8, True, True),
    "other": ("#555555", 1.2, True, True),
}
_CATEGORY = {"mentions": "entity", "spoken_by": "entity", "next": "temporal", "evidence": "causal",
             "caused_by": "causal", "supersedes": "supersedes", "superseded_by": "supersedes"}
_FADED = {"superseded", "archived", "invalidated"}
_W, _H, _PAD = 1000.0, 680.0, 40.0


@dataclass(slots=True)
class ViewNode:
    key: str  # the graph node: "u:<id>" or "e:<entity>"
    label: str
    kind: str  # a unit kind, or "entity"
    x: float = 0.0
    y: float = 0.0
    status: str = "active"
    outcome: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def is_unit(self) -> bool:
        return self.kind != "entity"


@dataclass(slots=True)
class ViewEdge:
    src: str
    dst: str
    kind: str  # the graph edge key: mentions, next, evidence...
    category: str  # entity, temporal, causal, supersedes, other


@dataclass(slots=True)
class GraphView:
    """What is drawn: positioned nodes and typed edges of one bank (possibly a recent slice)."""

    bank: str
    units: list[ViewNode]
    entities: list[ViewNode]
    edges: list[ViewEdge]
    total_units: int
    total_entities: int

    @property
    def nodes(self) -> list[ViewNode]:
        return self.entities + self.units

    @property
    def truncated(self) -> bool:
        return len(self.units) < self.total_units or len(self.entities) < self.total_entities


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def graph_view(bank: "MemoryBank", *, max_units: int = 200, max_entities: int = 80, seed: int = 7) -> GraphView:
    """A laid-out snapshot of ``bank``'s graph: the newest ``max_units`` units and their most linked entities.

    Raises:
        InvalidInputError: ``max_units``/``max_entities`` are not positive ints.
    """
    import networkx as nx

    for name, value in (("max_units", max_units), ("max_entities", max_entities)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InvalidInputError(f"{name} must be a positive int, not {value!r}")
    index = bank.store.index
    with index.lock:
        graph = index.graph.graph.copy()
        light = dict(index.units)
    all_units = sorted(light.values(), key=lambda u: u.seq)
    kept = all_units[-max_units:]
    unit_keys = {"u:" + u.id for u in kept}
    entity_degree: dict[str, int] = {}
    for key in unit_keys:
        if key in graph:
            for ent in graph.successors(key):
                if ent.startswith("e:"):
                    entity_degree[ent] = entity_degree.get(ent, 0) + 1
    total_entities = sum(1 for n in graph.nodes if n.startswith("e:"))
    entity_keys = set(sorted(entity_degree, key=lambda e: (-entity_degree[e], e))[:max_entities])

    units = [ViewNode(
        key="u:" + u.id, label=_short(u.text, 40), kind=u.kind, status=u.status, outcome=u.outcome,
        detail={"id": u.id, "kind": u.kind, "status": u.status, "source": u.source, "session": u.session_id,
                "episode": u.episode_id, "outcome": u.outcome, "said": _iso(u.mentioned_at),
                "happened": _iso(u.occurred_at), "importance": round(u.importance, 2), "text": u.text},
    ) for u in kept]
    entities = [ViewNode(key=e, label=_short(e[2:], 24), kind="entity", detail={"entity": e[2:]})
                for e in sorted(entity_keys)]
    keep = unit_keys | entity_keys
    replaced = _replacements(bank, kept)
    edges = [_edge(a, b, str(k), replaced) for a, b, k in graph.edges(keys=True) if a in keep and b in keep]
    linked = {(e.src, e.dst) for e in edges if e.category == "supersedes"}
    edges += [ViewEdge(new, old, "supersedes", "supersedes") for old, new in replaced.items()
              if old in keep and new in keep and (new, old) not in linked]

    simple = nx.Graph()
    simple.add_nodes_from(keep)
    simple.add_edges_from((e.src, e.dst) for e in edges)
    pos = _layout(simple, seed)
    for node in units + entities:
        node.x, node.y = pos[node.key]
    return GraphView(bank=bank.id, units=units, entities=entities, edges=edges,
                     total_units=len(all_units), total_entities=total_entities)


def _replacements(bank: "MemoryBank", kept: list[Any]) -> dict[str, str]:
    """Superseded unit node -> the node of the unit that replaced it (read from the stored units)."""
    old_ids = [u.id for u in kept if u.status == "superseded"]
    return {"u:" + u.id: "u:" + u.superseded_by for u in bank.get_many(old_ids) if u.superseded_by}


def _edge(a: str, b: str, kind: str, replaced: dict[str, str]) -> ViewEdge:
    """A graph edge as drawn: the evidence link from a new belief to the one it replaced is a supersession."""
    if kind in ("evidence", "supersedes") and replaced.get(b) == a:
        return ViewEdge(a, b, "supersedes", "supersedes")
    return ViewEdge(a, b, kind, _CATEGORY.get(kind, "other"))


def _layout(graph: Any, seed: int) -> dict[str, tuple[float, float]]:
    """Spring layout per connected component, components packed in a grid (biggest first)."""
    import math

    import networkx as nx

    comps = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    if not comps:
        return {}
    cols = math.ceil(math.sqrt(len(comps)))
    rows = math.ceil(len(comps) / cols)
    cell_w, cell_h = (_W - 2 * _PAD) / cols, (_H - 2 * _PAD) / rows
    out: dict[str, tuple[float, float]] = {}
    for n, comp in enumerate(comps):
        cx, cy = _PAD + (n % cols) * cell_w, _PAD + (n // cols) * cell_h
        if len(comp) == 1:
            out[comp[0]] = (cx + cell_w / 2, cy + cell_h / 2)
            continue
        sub = graph.subgraph(comp)
        pos = nx.spring_layout(sub, seed=seed, k=1.5 / math.sqrt(len(comp)), iterations=80)
        xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
        span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
        margin = 0.12
        for key, (px, py) in pos.items():
            out[key] = (cx + (margin + (1 - 2 * margin) * (px - min(xs)) / span_x) * cell_w,
                        cy + (margin + (1 - 2 * margin) * (py - min(ys)) / span_y) * cell_h)
    return out


# ---- HTML -------------------------------------------------------------------------------------------
_CSS = """
body{font:14px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px;margin:0 0 4px} .meta{color:#666;margin:0 0 8px}
.legend span{display:inline-block;margin-right:14px} .sw{width:10px;height:10px;display:inline-block;margin-right:4px;border-radius:50%}
svg{border:1px solid #ddd;background:#fcfcfc;max-width:100%;height:auto}
.n{cursor:pointer} .n text{font-size:10px;fill:#444;pointer-events:none}
.u text{display:none} .u:hover text,.n.hl text{display:inline}
.faded{opacity:.35} .dim{opacity:.12} .hl circle,.hl rect{stroke:#000;stroke-width:2}
#detail{white-space:pre-wrap;background:#f4f4f4;padding:8px;min-height:2em}
"""
_SCRIPT = """
(function(){var svg=document.getElementById('g'),det=document.getElementById('detail');
var nodes=svg.querySelectorAll('.n'),edges=svg.querySelectorAll('line');
function reset(){nodes.forEach(function(n){n.classList.remove('dim','hl')});edges.forEach(function(e){e.classList.remove('dim')})}
nodes.forEach(function(n){n.addEventListener('click',function(ev){ev.stopPropagation();reset();
var id=n.getAttribute('data-key'),nb={};nb[id]=1;
edges.forEach(function(e){var a=e.getAttribute('data-a'),b=e.getAttribute('data-b');
if(a===id||b===id){nb[a]=1;nb[b]=1}else{e.classList.add('dim')}});
nodes.forEach(function(m){if(nb[m.getAttribute('data-key')]){m.classList.add('hl')}else{m.classList.add('dim')}});
det.textContent=JSON.stringify(JSON.parse(n.getAttribute('data-detail')),null,2)})});
svg.addEventListener('click',function(){reset();det.textContent='Click a node to see it.'})})();
"""


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def graph_html(bank: "MemoryBank | GraphView", **view_options: Any) -> str:
    """The bank's graph as one self-contained HTML page (inline SVG; no network needed to view it)."""
    view = bank if isinstance(bank, GraphView) else graph_view(bank, **view_options)
    by_key = {n.key: n for n in view.nodes}
    out: list[str] = []
    out.append(f'<svg id="g" viewBox="0 0 {_W:.0f} {_H:.0f}" width="{_W:.0f}" height="{_H:.0f}" role="img" '
               f'aria-label="memory graph of bank {_attr(view.bank)}"><defs>')
    for cat, (colour, _, _, arrow) in EDGE_STYLES.items():
        if arrow:
            out.append(f'<marker id="arrow-{cat}" viewBox="0 0 10 10" refX="16" refY="5" markerWidth="7" '
                       f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="{colour}"/></marker>')
    out.append("</defs><g class=\"edges\">")
    for e in sorted(view.edges, key=lambda e: list(EDGE_STYLES).index(e.category)):
        a, b = by_key[e.src], by_key[e.dst]
        colour, width, dashed, arrow = EDGE_STYLES[e.category]
        extra = (' stroke-dasharray="5,3"' if dashed else "") + (f' marker-end="url(#arrow-{e.category})"' if arrow else "")
        out.append(f'<line x1="{a.x:.1f}" y1="{a.y:.1f}" x2="{b.x:.1f}" y2="{b.y:.1f}" stroke="{colour}" '
                   f'stroke-width="{width}"{extra} data-a="{_attr(e.src)}" data-b="{_attr(e.dst)}" '
                   f'class="e-{e.category}"><title>{_attr(e.kind)}</title></line>')
    out.append('</g><g class="nodes">')
    for n in view.entities:
        out.append(f'<g class="n e" data-key="{_attr(n.key)}" data-detail="{_attr(json.dumps(n.detail))}">'
                   f'<rect x="{n.x - 4:.1f}" y="{n.y - 4:.1f}" width="8" height="8" fill="{KIND_COLOURS["entity"]}" '
                   f'transform="rotate(45 {n.x:.1f} {n.y:.1f})"/><text x="{n.x + 7:.1f}" y="{n.y + 3:.1f}">'
                   f'{_attr(n.label)}</text><title>entity: {_attr(n.detail["entity"])}</title></g>')
    for n in view.units:
        classes = "n u" + (" faded" if n.status in _FADED else "")
        ring = ' stroke="#d62728" stroke-width="2.5"' if n.outcome == "failure" else ' stroke="#fff" stroke-width="1"'
        if n.status == "draft":
            ring += ' stroke-dasharray="2,2"'
        out.append(f'<g class="{classes}" data-key="{_attr(n.key)}" data-detail="{_attr(json.dumps(n.detail))}">'
                   f'<circle cx="{n.x:.1f}" cy="{n.y:.1f}" r="7" fill="{KIND_COLOURS.get(n.kind, "#333")}"{ring}/>'
                   f'<text x="{n.x + 9:.1f}" y="{n.y + 3:.1f}">{_attr(n.label)}</text>'
                   f'<title>[{_attr(n.kind)}, {_attr(n.status)}] {_attr(n.detail["text"])}</title></g>')
    out.append("</g></svg>")

    legend = "".join(f'<span><i class="sw" style="background:{c}"></i>{k}</span>' for k, c in KIND_COLOURS.items())
    legend += "".join(f'<span><i class="sw" style="background:{c};border-radius:0;height:3px"></i>{k} link</span>'
                      for k, (c, *_rest) in EDGE_STYLES.items())
    legend += '<span><i class="sw" style="border:2px solid #d62728"></i>failure</span>'
    legend += '<span><i class="sw faded" style="background:#4e79a7"></i>superseded / archived</span>'
    shown = (f"showing the newest {len(view.units)} of {view.total_units} units and {len(view.entities)} of "
             f"{view.total_entities} entities" if view.truncated else
             f"{view.total_units} units, {view.total_entities} entities")
    title = _attr(view.bank)
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>hindsight memory graph: {title}</title><style>{_CSS}</style></head><body>"
        f"<h1>Memory graph of bank “{title}”</h1><p class=\"meta\">{shown}, {len(view.edges)} links. "
        "Hover a unit to read it; click a node for its details and neighbours.</p>"
        f"<div class=\"legend\">{legend}</div>{''.join(out)}"
        f"<pre id=\"detail\">Click a node to see it.</pre><script>{_SCRIPT}</script></body></html>\n"
    )


# ---- PNG --------------------------------------------------------------------------------------------
def graph_figure(bank: "MemoryBank | GraphView", *, labels: bool = True, **view_options: Any) -> Any:
    """The bank's graph as a matplotlib ``Figure`` (show it in a notebook, or ``fig.savefig("g.png")``)."""
    try:
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
    except ImportError as exc:  # pragma: no cover - matplotlib is in the notebooks extra
        raise OptionalDependencyError(
            "drawing a PNG needs matplotlib: pip install 'hindsight-memory[notebooks]' (or save as .html)"
        ) from exc
    view = bank if isinstance(bank, GraphView) else graph_view(bank, **view_options)
    by_key = {n.key: n for n in view.nodes}
    fig = Figure(figsize=(12, 8), dpi=100)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_xlim(0, _W)
    ax.set_ylim(_H, 0)
    for e in sorted(view.edges, key=lambda e: list(EDGE_STYLES).index(e.category)):
        a, b = by_key[e.src], by_key[e.dst]
        colour, width, dashed, arrow = EDGE_STYLES[e.category]
        if arrow:
            ax.annotate("", xy=(b.x, b.y), xytext=(a.x, a.y), zorder=1,
                        arrowprops=dict(arrowstyle="-|>", color=colour, lw=width, shrinkA=6, shrinkB=7,
                                        linestyle="--" if dashed else "-"))
        else:
            ax.plot([a.x, b.x], [a.y, b.y], color=colour, lw=width, zorder=0)
    if view.entities:
        ax.scatter([n.x for n in view.entities], [n.y for n in view.entities], marker="D", s=28,
                   c=KIND_COLOURS["entity"], zorder=2)
    for n in view.units:
        ax.scatter([n.x], [n.y], s=90, c=KIND_COLOURS.get(n.kind, "#333"), zorder=3,
                   alpha=0.35 if n.status in _FADED else 1.0,
                   edgecolors="#d62728" if n.outcome == "failure" else "white",
                   linewidths=2.0 if n.outcome == "failure" else 0.8)
    if labels:
        for n in view.entities:
            ax.annotate(n.label, (n.x, n.y), xytext=(5, 3), textcoords="offset points", fontsize=7, color="#555")
        if len(view.units) <= 40:
            for n in view.units:
                ax.annotate(_short(n.detail["text"], 28), (n.x, n.y), xytext=(6, -9), textcoords="offset points",
                            fontsize=7, color="#222")
    handles = [Line2D([], [], marker="o", ls="", color=c, label=k) for k, c in KIND_COLOURS.items() if k != "entity"]
    handles.append(Line2D([], [], marker="D", ls="", color=KIND_COLOURS["entity"], label="entity"))
    handles += [Line2D([], [], color=c, lw=w, ls="--" if d else "-", label=f"{k} link")
                for k, (c, w, d, _a) in EDGE_STYLES.items()]
    ax.legend(handles=handles, loc="lower left", fontsize=8, ncol=2, framealpha=0.9)
    shown = f" (newest {len(view.units)} of {view.total_units} units)" if view.truncated else ""
    ax.set_title(f"Memory graph of bank '{view.bank}'{shown}: {len(view.units)} units, "
                 f"{len(view.entities)} entities, {len(view.edges)} links")
    fig.tight_layout()
    return fig


def save_graph(bank: "MemoryBank", path: str | os.PathLike[str], **view_options: Any) -> Path:
    """Write the bank's graph to ``path``: ``.html`` (self-contained page) or ``.png`` (matplotlib).

    Raises:
        InvalidInputError: another file extension, or a folder that does not exist.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".png"):
        raise InvalidInputError(f"cannot draw to {str(path)!r}: give a file name ending in .html or .png")
    if not path.parent.is_dir():
        raise InvalidInputError(f"folder {str(path.parent)!r} does not exist; create it or choose another path")
    if suffix == ".png":
        graph_figure(bank, **view_options).savefig(path, format="png")
    else:
        path.write_text(graph_html(bank, **view_options), encoding="utf-8")
    return path
