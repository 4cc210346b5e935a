"""The ``hindsight`` command line.

Subcommands: ``demo``, ``banks``, ``recall BANK QUERY [--explain] [--as-of T]``, ``stats BANK``,
``show BANK ID``, ``forget BANK ID``, ``delete-bank BANK``. The store is ``--path`` (default
``$HINDSIGHT_PATH`` or ``./.hindsight``) or a Chroma server given with ``--http HOST:PORT``.
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
    if not os.path.isdir(args.path) and args.command not in ("demo",):
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
    print(result.render() or "nothing recalled")
    if args.explain:
        print("\nexplain:\n" + (result.explain() or "(no hits)"))
        print(f"timings (ms): {result.trace.get('timings_ms', {})} total={result.trace.get('total_ms')}")
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    bank = _need_bank(_engine(args), args.bank)
    index = bank._index
    by = Counter((u.kind, u.status) for u in index.units.values())
    rows = [(k, s, str(n)) for (k, s), n in sorted(by.items())]
    print(_table(rows, ("kind", "status", "units")) if rows else "empty bank")
    g = index.graph.graph
    print(f"\ngraph: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges; keyword index: {len(index.keyword)} units")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    bank = _need_bank(_engine(args), args.bank)
    unit = bank.get(args.id)
    print(unit.model_dump_json(indent=2))
    for label, ids in (("evidence", unit.evidence_ids), ("superseded by", [unit.superseded_by] if unit.superseded_by else [])):
        for other in bank.get_many(ids):
            print(f"\n{label}: {other.id} [{other.status.value}] {other.text}")
    return 0


def _cmd_forget(args: argparse.Namespace) -> int:
    _need_bank(_engine(args), args.bank).delete(args.id)
    print(f"deleted {args.id} from {args.bank}")
    return 0


def _cmd_delete_bank(args: argparse.Namespace) -> int:
    _engine(args).delete_bank(args.bank)
    print(f"deleted bank {args.bank}")
    return 0


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
    r.set_defaults(fn=_cmd_recall)
    s = sub.add_parser("stats", help="units by kind and status, graph size")
    s.add_argument("bank")
    s.set_defaults(fn=_cmd_stats)
    for name, fn, help_ in (("show", _cmd_show, "a unit with its evidence chain"),
                            ("forget", _cmd_forget, "hard-delete one unit")):
        c = sub.add_parser(name, help=help_)
        c.add_argument("bank")
        c.add_argument("id")
        c.set_defaults(fn=fn)
    d = sub.add_parser("delete-bank", help="hard-delete a whole bank")
    d.add_argument("bank")
    d.set_defaults(fn=_cmd_delete_bank)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.path_given = args.path is not None
    args.path = args.path or os.environ.get("HINDSIGHT_PATH", "./.hindsight")
    try:
        return args.fn(args)
    except NotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except InvalidInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    except HindsightError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
