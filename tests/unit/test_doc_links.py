"""The README's and docs' relative links point at files that exist, and the landing log's contents links at
its headings: the landing-by-landing notes moved out of the README once, and a link left behind by the
next move should fail here, not in a reader's browser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(doc: Path):
    text = doc.read_text()
    anchors = {_slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        if path:
            assert (doc.parent / path).exists(), f"{doc.name} links to missing {path}"
        elif anchor:
            assert anchor in anchors, f"{doc.name} links to no heading #{anchor}"


def test_the_slug_reads_as_github_writes_it():
    assert _slug("LoCoMo recall, the write path, and each landing's LoCoMo check") == (
        "locomo-recall-the-write-path-and-each-landings-locomo-check")
