"""The ``hindsight`` command line.

Subcommands: ``demo``, ``banks``, ``capture BANK [TEXT] [-f FILE]``, ``recall BANK QUERY [--explain] [--as-of T]``,
``stats BANK``, ``show BANK ID``, ``forget BANK ID``, ``delete-bank BANK``, ``consolidate BANK``,
``audit BANK [--json]``, ``export BANK [-o FILE]``, ``import FILE [--bank BANK]``,
``graph BANK -o FILE.html|FILE.png``, ``bench locomo|experience [ARGS]``.

Every command uses one store: ``--path`` (default ``$HINDSIGHT_PATH`` or ``./.hindsight``; ``demo`` writes its
``demo`` bank there too) or a Chroma server given with ``--http HOST:PORT``. A folder that is not a store is
never turned into one unless ``--create`` is given (or it is empty and the command writes).
``--embedder`` picks the model (default: the bundled all-MiniLM-L6-v2); it is loaded only by commands that
embed text (``capture``, ``recall``, ``import``), so the others answer in about a second.
Ids: tables print the first 12 characters of a unit id; ``show`` and ``forget`` take any unique prefix.
``recall`` only looks: it does not count as use of the memories it finds (``--record-hits`` to count it).
Exit codes: 0 ok, 1 a check failed, 2 bad input (the message says what to do), 3 not found,
4 storage trouble; never a traceback (``HINDSIGHT_DEBUG=1`` shows one for an unexpected error).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from typing import Sequence

from hindsight_core._cli_support import SHOWN_ID_CHARS
from hindsight_core.errors import HindsightError, InvalidInputError, NotFoundError, StorageError

__all__ = ["main"]


def _engine(args: argparse.Namespace, *, writes: bool = False):
    """The command's engine (one per command; ``main`` closes it, which also writes pending updates)."""
    from hindsight_core._cli_support import open_engine

    args.engine = open_engine(args, writes=writes)
    return args.engine


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

    _engine(args, writes=True)  # the same checks as every command: never a non-store folder
    ok = all(run_demo(args.path).values())
    where = f"--path {args.path} " if args.path_given else ""
    print(f"\nthe demo wrote bank 'demo' into the store at {args.path}. Next, try:\n"
          f"  hindsight {where}banks\n"
          f"  hindsight {where}recall demo \"which port does billing use now?\" --explain\n"
          f"  hindsight {where}show demo ID      (an id, or its first characters, from the recall table)")
    return 0 if ok else 1


def _cmd_banks(args: argparse.Namespace) -> int:
    engine = _engine(args)
    rows = []
    for info in engine.store.describe_banks():
        same = info["dim"] in (None, engine.embedder.dim) and info["embedder"] in (None, engine.embedder.name)
        units = str(engine.bank(info["bank"]).count()) if same else str(info["records"])
        note = "" if same else "(other embedder: pass --embedder to read it)"
        rows.append((info["bank"], units, str(info["embedder"] or "?"), note))
    print(_table(rows, ("bank", "units", "embedder", "")) if rows else "no banks")
    return 0


def _cmd_capture(args: argparse.Namespace) -> int:
    texts = _capture_items(args)
    bank = _engine(args, writes=True).bank(args.bank)
    results = bank.capture_many(texts, progress=_progress(args))
    stored = sum(1 for r in results if r.stored)
    print(f"captured {len(results)} items into bank {args.bank}: {stored} stored, {len(results) - stored} "
          "dropped or merged by the write gate")
    return 0


def _capture_items(args: argparse.Namespace) -> list:
    """TEXT, or -f FILE: one memory per line; a line that is a JSON object gives capture's fields."""
    import json

    if (args.text is None) == (args.file is None):
        raise InvalidInputError("give either TEXT or -f FILE ('-' for stdin), one of them")
    if args.text is not None:
        return [args.text]
    raw = sys.stdin.read() if args.file == "-" else _read_text(args.file)
    items: list = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"line {n} of {args.file} looks like JSON but is not valid ({exc.msg}); "
                                        "fix it, or write plain text lines") from None
        else:
            items.append(line)
    if not items:
        raise InvalidInputError(f"{args.file} holds no text to capture")
    return items


def _read_text(path: str) -> str:
    if not os.path.isfile(path):
        raise InvalidInputError(f"no file at {path!r}")
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path!r} is not UTF-8 text (bad byte at offset {exc.start}); "
                                "save it as UTF-8 and try again") from None


def _progress(args: argparse.Namespace) -> bool:
    """Progress bars on stderr: on a terminal by default, ``--progress`` / ``--no-progress`` to force."""
    return sys.stderr.isatty() if args.progress is None else args.progress


def _cmd_consolidate(args: argparse.Namespace) -> int:
    bank = _need_bank(_engine(args), args.bank)
    report = bank.consolidate(full=args.full)
    print(report.model_dump_json(indent=2) if hasattr(report, "model_dump_json") else report)
    return 0


def _cmd_recall(args: argparse.Namespace) -> int:
    bank = _need_bank(_engine(args), args.bank)
    result = bank.recall(args.query, k=args.k, as_of=args.as_of, include_history=args.history,
                         record_hits=args.record_hits)
    if args.prompt:
        print(result.render() or "nothing recalled")
        return 0
    for d in result.directives:
        print(f"directive: {d.text}")
    rows = []
    for n, hit in enumerate(result.hits, 1):
        u = hit.unit
        row = [str(n), f"{hit.score:.4f}", u.kind.value, u.status.value, f"{u.when:%Y-%m-%d}", u.id[:SHOWN_ID_CHARS]]
        if args.explain:
            row.append(" ".join(f"{c.channel}#{c.rank}" for c in hit.channels) or "pinned")
        rows.append(row)
    header = ["#", "score", "kind", "status", "when", "id"] + (["found by"] if args.explain else [])
    texts = [" ".join(h.unit.text.split()) for h in result.hits]
    print(_table_with_text(rows, header, texts) if rows else f"nothing recalled for {args.query!r}")
    if rows:
        print(f"\nids: the first {SHOWN_ID_CHARS} characters are enough for `hindsight show {bank.id} ID` and "
              "`hindsight forget`")
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
    index = bank.store.index
    by = Counter((u.kind, u.status) for u in index.units.values())
    rows = [(k, s, str(n)) for (k, s), n in sorted(by.items())]
    print(_table(rows, ("kind", "status", "units")) if rows else "empty bank")
    g = index.graph.graph
    print(f"\ngraph: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges; keyword index: {len(index.keyword)} units")
    return 0


def _get_unit(bank, unit_id: str):
    from hindsight_core._cli_support import resolve_unit_id

    return bank.get(resolve_unit_id(bank, unit_id))


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
    unit = _get_unit(bank, args.id)
    bank.delete(unit.id)
    print(f"deleted {unit.id} from {args.bank}")
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
    from hindsight_core._cli_support import atomic_output
    from hindsight_core.export import export_bank

    bank = _need_bank(_engine(args), args.bank)
    if args.output in (None, "-"):
        count = export_bank(bank, sys.stdout, embeddings=args.embeddings)
        print(f"exported {count} units of bank {args.bank}", file=sys.stderr)
    else:
        with atomic_output(args.output) as tmp:  # a full disk or read-only folder leaves no partial file
            count = export_bank(bank, tmp, embeddings=args.embeddings, progress=_progress(args))
        print(f"exported {count} units of bank {args.bank} to {args.output}")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    import io

    from hindsight_core.export import import_bank

    if args.file == "-":
        source = sys.stdin
    else:
        source = io.StringIO(_read_text(args.file))  # invalid UTF-8 is a clear error here, not a traceback
    report = import_bank(_engine(args, writes=True), source, bank=args.bank, on_conflict=args.on_conflict,
                         reembed=args.reembed, progress=_progress(args))
    print(f"imported {report.imported} units into bank {report.bank} (skipped {report.skipped}, replaced "
          f"{report.replaced}, embedded {report.reembedded})")
    return 0


def _cmd_graph(args: argparse.Namespace) -> int:
    from hindsight_core.viz import save_graph

    if not args.output.lower().endswith((".html", ".htm", ".png")):
        raise InvalidInputError(f"cannot draw to {args.output!r}: give -o a file name ending in .html or .png")
    bank = _need_bank(_engine(args), args.bank)
    from hindsight_core._cli_support import atomic_output

    with atomic_output(args.output) as tmp:
        save_graph(bank, tmp, max_units=args.max_units)
    path = args.output
    print(f"drew bank {args.bank} ({bank.count()} units) to {path}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    import importlib
    from pathlib import Path

    name = f"benchmarks.{args.name}"
    wants_help = any(a in ("-h", "--help") for a in args.args)
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
    if not wants_help and not any(a.startswith("--data") for a in args.args):
        datasets = importlib.import_module("benchmarks._datasets")
        needed = datasets.BENCH_DATA.get(args.name)
        if needed and not datasets.DATASETS[needed].exists():
            print(f"error: {datasets.missing_message(needed)}", file=sys.stderr)
            return 3
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
    p.add_argument("--embedder", default=None, metavar="MODEL",
                   help="sentence-transformers model name or folder (default: the bundled all-MiniLM-L6-v2); "
                        "'hash' or 'hash:DIM' for a model-free test embedder")
    p.add_argument("--create", action="store_true",
                   help="allow making a new store in an existing folder that is not one")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars on stderr (default: when stderr is a terminal)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="run the demo into bank 'demo' of the store (replacing that bank)"
                   ).set_defaults(fn=_cmd_demo)
    sub.add_parser("banks", help="list banks (with the embedder each was made with)").set_defaults(fn=_cmd_banks)
    c = sub.add_parser("capture", help="remember TEXT, or every line of -f FILE (JSON object lines give fields)")
    c.add_argument("bank")
    c.add_argument("text", nargs="?", default=None)
    c.add_argument("-f", "--file", default=None, help="one memory per line ('-' for stdin)")
    c.set_defaults(fn=_cmd_capture)
    cs = sub.add_parser("consolidate", help="cluster new memories into evidence-backed observations now")
    cs.add_argument("bank")
    cs.add_argument("--full", action="store_true", help="reconsider every unconsolidated unit")
    cs.set_defaults(fn=_cmd_consolidate)
    r = sub.add_parser("recall", help="recall from a bank")
    r.add_argument("bank")
    r.add_argument("query")
    r.add_argument("-k", type=int, default=10)
    r.add_argument("--as-of", default=None, help="ISO time taken as 'now'")
    r.add_argument("--explain", action="store_true", help="show which channels found each hit")
    r.add_argument("--history", action="store_true", help="include superseded beliefs")
    r.add_argument("--prompt", action="store_true", help="print the prompt-ready text instead of a table")
    r.add_argument("--record-hits", action="store_true",
                   help="count this recall as use of the hits (default: only look, change nothing)")
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
    args.path = args.path or os.environ.get("HINDSIGHT_PATH") or "./.hindsight"
    args.engine = None
    try:
        try:
            return args.fn(args)
        finally:
            if args.engine is not None:
                args.engine.close()
    except HindsightError as exc:
        print(f"error: {_with_cli_hint(exc)}", file=sys.stderr)
        return next(code for kind, code in _EXIT_CODES if isinstance(exc, kind))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a disk, a permission, a pipe: say which file and why, no traceback
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"error: {exc.strerror or exc}{where}; check the path, its permissions and free space", file=sys.stderr)
        return 4
    except Exception as exc:  # noqa: BLE001 - the promise is: no tracebacks
        if os.environ.get("HINDSIGHT_DEBUG"):
            raise
        print(f"error: unexpected {type(exc).__name__}: {exc}. This is a bug in hindsight; please report it "
              "(HINDSIGHT_DEBUG=1 prints the traceback)", file=sys.stderr)
        return 1


def _with_cli_hint(exc: HindsightError) -> str:
    text = str(exc)
    if "Open it with the same embedder" in text:
        text += " From the command line: pass --embedder NAME (`hindsight banks` shows each bank's embedder)."
    return text


# Most specific first: the first matching class decides the exit code.
_EXIT_CODES = ((NotFoundError, 3), (InvalidInputError, 2), (StorageError, 4), (HindsightError, 1))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
