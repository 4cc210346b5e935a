"""Execute the notebooks and save them with their outputs, so a reader sees results without running them.

    python notebooks/_render.py                 # every notebook
    python notebooks/_render.py 01_quickstart   # some of them (names without .ipynb)

Each notebook runs offline in a temporary working folder (nbclient, the ``python3`` kernel). Saved
outputs are kept small and portable: execution timestamps are dropped, and the script refuses to save
outputs that hold an absolute path of this machine or exceed :data:`MAX_NOTEBOOK_BYTES`. Needs the
``notebooks`` extra (``pip install -e '.[notebooks]'``).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

HERE = Path(__file__).resolve().parent
MAX_NOTEBOOK_BYTES = 1_500_000  # a few small PNGs and one inline HTML page; anything bigger is a mistake
MACHINE_PATH = re.compile(r"(?:/tmp/|/home/|/Users/|/work/|/root/|[A-Z]:\\\\)")


def output_text(nb: nbformat.NotebookNode) -> str:
    """The text of every output (images excluded), to search for paths."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", "") if isinstance(out.get("text", ""), str) else "".join(out["text"]))
            parts += [v for k, v in out.get("data", {}).items() if k.startswith("text/") and isinstance(v, str)]
            parts += [out.get("evalue", "")]
    return "\n".join(parts)


def render(name: str) -> Path:
    path = HERE / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="hindsight-nb-") as cwd:
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": cwd}}).execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    found = MACHINE_PATH.search(output_text(nb))
    if found:
        raise SystemExit(f"{name}: an output holds a machine path near {output_text(nb)[found.start():][:80]!r}")
    text = nbformat.writes(nb)
    if len(text.encode()) > MAX_NOTEBOOK_BYTES:
        raise SystemExit(f"{name}: {len(text.encode())} bytes with outputs (limit {MAX_NOTEBOOK_BYTES}); shrink them")
    path.write_text(text, encoding="utf-8")
    return path


def main(argv: list[str]) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    names = argv or sorted(p.stem for p in HERE.glob("*.ipynb"))
    for name in names:
        path = render(name)
        print(f"rendered {path.name}: {path.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
