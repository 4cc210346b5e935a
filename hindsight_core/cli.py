"""The ``hindsight`` command line.

Subcommands: ``demo``, ``banks``, ``recall BANK QUERY [--explain] [--as-of T]``, ``stats BANK``,
``show BANK ID``, ``forget BANK ID``, ``delete-bank BANK``, ``audit BANK [--json]``, ``export BANK [-o FILE]``,
``import FILE [--bank BANK]``, ``graph BANK -o FILE.html|FILE.png``, ``bench locomo|experience [ARGS]``.
The store is ``--path`` (default
``$HINDSIGHT_PATH`` or ``./.hindsight``) or a Chroma server given with ``--http HOST:PORT``.
The embedding model is loaded only by commands that embed text (``recall``, ``import``), so the
others answer in about a second.
Exit codes: 0 ok, 1 a check failed, 2 bad input (the message says what to do), 3 not found,
4 storage trouble.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from typing import Sequence

from hindsight_core.errors import HindsightError, InvalidInputError, NotFoundError, StorageError

__all__ = ["main"]


def _engine(args: argparse.Namespace):
    from hindsight_core.engine import MemoryEngine

    if args.http:
        host, _, port = args.http.rpartition(":")
        if not host or not port.isdigit():
            raise InvalidInputError(f"--http wants HOST:PORT, e.g. localhost:8000, not {args.http!r}")
        return MemoryEngine.from_http(host, int(port))
    if not os.path.isdir(args.path) and args.command not in ("demo", "import"):
        raise NotFoundError(f"no memory store at {args.path!r}; pass --path to an existing store")
    return MemoryEngine(args.path)


def _need_bank(engine, bank: str):
    if bank not in engine.banks():
        raise NotFoundError(f"no bank {bank!r}; `hindsight banks` lists the banks in this store")
    return engine.bank(bank)


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(tuple("-" * w for w in widths)), *map(line, rows)])


def _cmd_demo(args: argparse.Namespace) -> int:
    from hindsight_core.demo import run_demo

    return 0 if all(run_demo(args.path if args.path_given else "./.hindsight-demo").values()) else 1


def _cmd_banks(args: argparse.Namespace) -> int:
    engine = _engine(args)
    rows = [(b, str(engine.bank(b).count())) for b in engine.banks()]
    print(_table(rows, ("bank", "units")) if rows else "no banks")
    return 0


def _cmd_recall(args: argparse.Namespace) -> int:
    bank = _need_bank(_engine(args), args.bank)
    result = bank.recall(args.query, k=args.k, as_of=args.as_of, include_history=args.history)
    if args.prompt:
        print(result.render() or "nothing recalled")
        return 0
    for d in result.directives:
        print(f"directive: {d.text}")
    rows = []
    for n, hit in enumerate(result.hits, 1):
        u = hit.unit
        row = [str(n), f"{hit.score:.4f}", u.kind.value, u.status.value, f"{u.when:%Y-%m-%d}", u.id[:12]]
        if args.explain:
            row.append(" ".join(f"{c.channel}#{c.rank}" for c in hit.channels) or "pinned")
        rows.append(row)
    header = ["#", "score", "kind", "status", "when", "id"] + (["found by"] if args.explain else [])
    texts = [" ".join(h.unit.text.split()) for h in result.hits]
    print(_table_with_text(rows, header, texts) if rows else f"nothing recalled for {args.query!r}")
    if args.explain:
        print(f"\ntimings (ms): {result.trace.get('timings_ms', {})} total={result.trace.get('total_ms')}")
        if result.novel:
            print("novel: nothing in memory is close to this query")
    return 0


def _table_with_text(rows: list[list[str]], header: list[str], texts: list[str]) -> str:
    """A table whose last column is text cut to the terminal's width."""
    import shutil

    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    columns = shutil.get_terminal_size((100, 24)).columns if sys.stdout.isatty() else 200  # pipes: keep more text
    room = max(30, columns - sum(widths) - 2 * len(widths) - 1)
    cut = [t if len(t) <= room else t[: room - 1] + "…" for t in texts]
    return _table([(*r, t) for r, t in zip(rows, cut)], (*header, "text"))


def _cmd_stats(args: argparse.Namespace) -> int:
    bank = _need_bank(_engine(args), args.bank)
    index = bank._index
    by = Counter((u.kind, u.status) for u in index.units.values())
    rows = [(k, s, str(n)) for (k, s), n in sorted(by.items())]
    print(_table(rows, ("kind", "status", "units")) if rows else "empty bank")
    g = index.graph.graph
    print(f"\ngraph: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges; keyword index: {len(index.keyword)} units")
    return 0


def _get_unit(bank, unit_id: str):
    try:
        return bank.get(unit_id)
    except NotFoundError:
        raise NotFoundError(f"no memory unit {unit_id!r} in bank {bank.id!r}; `hindsight recall {bank.id} QUERY` "
                            "shows unit ids (or `hindsight export` lists them all)") from None


def _cmd_show(args: argparse.Namespace) -> int:
    import json

    bank = _need_bank(_engine(args), args.bank)
    unit = _get_unit(bank, args.id)
    if args.json:
        print(unit.model_dump_json(indent=2))
        return 0

    def cell(value) -> str:
        if value is None or value == () or value == {}:
            return "-"
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return ", ".join(value)
        return json.dumps(value, ensure_ascii=False, default=str) if isinstance(value, (dict, list, tuple)) else str(value)

    data = unit.model_dump(mode="json", exclude={"text"})
    print(f"unit {unit.id} in bank {bank.id}\n")
    print(_table([(k, cell(v)) for k, v in data.items()], ("field", "value")))
    print("\ntext:\n  " + unit.text.replace("\n", "\n  "))

    def one(u, depth: int) -> str:
        return f"{'  ' * depth}<- {u.id} [{u.kind.value}, {u.status.value}] {' '.join(u.text.split())[:100]}"

    lines, seen, frontier = [], {unit.id}, [(unit, 1)]
    while frontier and len(lines) < 50:
        cur, depth = frontier.pop(0)
        for ev in bank.get_many([i for i in cur.evidence_ids if i not in seen]):
            seen.add(ev.id)
            lines.append(one(ev, depth))
            if depth < 5:
                frontier.append((ev, depth + 1))
    missing = [i for i in unit.evidence_ids if i not in seen]
    lines += [f"  <- {i} (no longer in the bank)" for i in missing]
    print("\nevidence chain:\n" + ("\n".join(lines) if lines else "  (none)"))

    versions = _history(bank, unit)
    if len(versions) > 1:
        print("\nhistory (oldest first):")
        print(_table([(("> " if v.id == unit.id else "  ") + v.id, v.status.value, f"{v.mentioned_at:%Y-%m-%d}",
                        f"{v.valid_to:%Y-%m-%d}" if v.valid_to else "-", " ".join(v.text.split())[:70])
                       for v in versions], ("  id", "status", "said", "valid to", "text")))
    else:
        print("\nhistory: no other versions")
    return 0


def _history(bank, unit) -> list:
    """The versions of a belief, oldest first (the supersession chain through it)."""
    return bank.history(unit.id)


def _cmd_forget(args: argparse.Namespace) -> int:
    bank = _need_bank(_engine(args), args.bank)
    _get_unit(bank, args.id)
    bank.delete(args.id)
    print(f"deleted {args.id} from {args.bank}")
    return 0


def _cmd_delete_bank(args: argparse.Namespace) -> int:
    engine = _engine(args)
    _need_bank(engine, args.bank)
    engine.delete_bank(args.bank)
    print(f"deleted bank {args.bank}")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    from hindsight_core.audit import audit_bank, findings_json

    findings = audit_bank(_need_bank(_engine(args), args.bank))
    if args.json:
        print(findings_json(findings))
    else:
        rows = [(f.severity, f.check, f.unit_id, f.text[:60]) for f in findings]
        print(_table(rows, ("severity", "check", "unit", "text")) if rows else "no suspicious memories")
    return 1 if any(f.severity == "high" for f in findings) else 0  # a high finding fails the check


def _cmd_export(args: argparse.Namespace) -> int:
    from hindsight_core.export import export_bank

    bank = _need_bank(_engine(args), args.bank)
    if args.output in (None, "-"):
        count = export_bank(bank, sys.stdout, embeddings=args.embeddings)
        print(f"exported {count} units of bank {args.bank}", file=sys.stderr)
    else:
        count = export_bank(bank, args.output, embeddings=args.embeddings, progress=sys.stderr.isatty())
        print(f"exported {count} units of bank {args.bank} to {args.output}")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from hindsight_core.export import import_bank

    source = sys.stdin if args.file == "-" else args.file
    if source is not sys.stdin and not os.path.isfile(source):
        raise InvalidInputError(f"no file at {source!r}; give the path of a file written by `hindsight export`")
    report = import_bank(_engine(args), source, bank=args.bank, on_conflict=args.on_conflict, reembed=args.reembed,
                         progress=sys.stderr.isatty())
    print(f"imported {report.imported} units into bank {report.bank} (skipped {report.skipped}, replaced "
          f"{report.replaced}, embedded {report.reembedded})")
    return 0


def _cmd_graph(args: argparse.Namespace) -> int:
    from hindsight_core.viz import save_graph

    if not args.output.lower().endswith((".html", ".htm", ".png")):
        raise InvalidInputError(f"cannot draw to {args.output!r}: give -o a file name ending in .html or .png")
    bank = _need_bank(_engine(args), args.bank)
    path = save_graph(bank, args.output, max_units=args.max_units)
    print(f"drew bank {args.bank} ({bank.count()} units) to {path}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    import importlib
    from pathlib import Path

    name = f"benchmarks.{args.name}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name not in ("benchmarks", name):
            raise
        root = Path(__file__).resolve().parents[1]  # a source checkout: benchmarks/ sits beside the package
        if not (root / "benchmarks" / f"{args.name}.py").is_file():
            print(f"error: `hindsight bench {args.name}` runs benchmarks/{args.name}.py from a source checkout of "
                  "hindsight-memory (benchmarks are not installed with the package), and none was found. Clone the "
                  "repository, `pip install -e .` there, and run it from the clone (or `make bench-locomo`).",
                  file=sys.stderr)
            return 2
        sys.path.insert(0, str(root))
        sys.modules.pop("benchmarks", None)
        module = importlib.import_module(name)
    entry = getattr(module, "main", None)
    if not callable(entry):
        print(f"error: {name} has no main(argv); run `python -m {name}` from the repository root", file=sys.stderr)
        return 2
    sys.argv = [f"hindsight bench {args.name}", *args.args]  # the harness's usage line names this command
    return int(entry(list(args.args)) or 0)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hindsight", description="Long-term memory for agents.")
    p.add_argument("--path", default=None, help="store folder (default $HINDSIGHT_PATH or ./.hindsight)")
    p.add_argument("--http", default=None, metavar="HOST:PORT", help="use a Chroma server instead of a folder")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="run the demo on the embedded default").set_defaults(fn=_cmd_demo)
    sub.add_parser("banks", help="list banks").set_defaults(fn=_cmd_banks)
    r = sub.add_parser("recall", help="recall from a bank")
    r.add_argument("bank")
    r.add_argument("query")
    r.add_argument("-k", type=int, default=10)
    r.add_argument("--as-of", default=None, help="ISO time taken as 'now'")
    r.add_argument("--explain", action="store_true", help="show which channels found each hit")
    r.add_argument("--history", action="store_true", help="include superseded beliefs")
    r.add_argument("--prompt", action="store_true", help="print the prompt-ready text instead of a table")
    r.set_defaults(fn=_cmd_recall)
    s = sub.add_parser("stats", help="units by kind and status, graph size")
    s.add_argument("bank")
    s.set_defaults(fn=_cmd_stats)
    for name, fn, help_ in (("show", _cmd_show, "a unit with its evidence chain and history"),
                            ("forget", _cmd_forget, "hard-delete one unit")):
        c = sub.add_parser(name, help=help_)
        c.add_argument("bank")
        c.add_argument("id")
        if name == "show":
            c.add_argument("--json", action="store_true", help="print the unit as JSON")
        c.set_defaults(fn=fn)
    d = sub.add_parser("delete-bank", help="hard-delete a whole bank")
    d.add_argument("bank")
    d.set_defaults(fn=_cmd_delete_bank)
    a = sub.add_parser("audit", help="list suspicious memories (exit 1 on a high-severity finding)")
    a.add_argument("bank")
    a.add_argument("--json", action="store_true", help="print the findings as JSON")
    a.set_defaults(fn=_cmd_audit)
    _add_transfer_commands(sub)
    return p


def _add_transfer_commands(sub) -> None:
    e = sub.add_parser("export", help="write a bank to JSON Lines (every field of every unit)")
    e.add_argument("bank")
    e.add_argument("-o", "--output", default=None, metavar="FILE", help="file to write (default: stdout)")
    e.add_argument("--embeddings", action="store_true",
                   help="also write the vectors (import then skips re-embedding when the model matches)")
    e.set_defaults(fn=_cmd_export)
    i = sub.add_parser("import", help="load a JSON Lines export (creates the store and bank if needed)")
    i.add_argument("file", help="a file written by `hindsight export` ('-' for stdin)")
    i.add_argument("--bank", default=None, help="import into this bank instead of the one in the file")
    i.add_argument("--on-conflict", choices=("error", "skip", "replace"), default="error",
                   help="when a unit id already exists in the bank (default: error, nothing written)")
    i.add_argument("--reembed", choices=("auto", "always", "never"), default="auto",
                   help="auto: use carried vectors from the same model, else embed (default)")
    i.set_defaults(fn=_cmd_import)
    g = sub.add_parser("graph", help="draw a bank's graph to a self-contained .html page or a .png")
    g.add_argument("bank")
    g.add_argument("-o", "--output", required=True, metavar="FILE.html|FILE.png")
    g.add_argument("--max-units", type=int, default=200, help="draw the newest N units (default 200)")
    g.set_defaults(fn=_cmd_graph)
    b = sub.add_parser("bench", help="run a benchmark of a source checkout (LoCoMo, experience)")
    b.add_argument("name", choices=("locomo", "experience"))
    b.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the benchmark (see `bench NAME --help`)")
    b.set_defaults(fn=_cmd_bench)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.path_given = args.path is not None
    args.path = args.path or os.environ.get("HINDSIGHT_PATH", "./.hindsight")
    try:
        return args.fn(args)
    except HindsightError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return next(code for kind, code in _EXIT_CODES if isinstance(exc, kind))


# Most specific first: the first matching class decides the exit code.
_EXIT_CODES = ((NotFoundError, 3), (InvalidInputError, 2), (StorageError, 4), (HindsightError, 1))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
