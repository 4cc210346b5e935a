"""Bounding Chroma's own memory for an embedded store with many banks.

Chroma's Python settings offer ``chroma_segment_cache_policy="LRU"`` with ``chroma_memory_limit_bytes``,
but in chromadb 1.x they are read only by the legacy Python segment API
(``chromadb.api.segment.SegmentAPI`` / ``LocalSegmentManager``). The default embedded client is
``chromadb.api.rust.RustBindingsAPI``, whose only bound is ``hnsw_cache_size``: how many collections'
HNSW indexes the Rust core keeps loaded, set from the open-file limit (``RLIMIT_NOFILE // 5``, as each
index holds five files). Measured here (chromadb 1.5.9, 384 dims): about 2 MB per loaded collection,
whatever its size, so with ``ulimit -n 20000`` up to 4,000 banks' indexes (~8 GB) before Chroma evicts.

:func:`bound_hnsw_cache` lowers that bound (never raises it past the file-handle limit) by restarting
the client's Rust bindings with a smaller ``hnsw_cache_size`` before any collection is opened.
It relies on ``RustBindingsAPI`` keeping ``hnsw_cache_size`` and its ``start``/``stop``; another
API implementation is left alone (and a warning says so).

Known Chroma limitation (observed with chromadb 1.5.9, a bound of 16 and 60 small collections, each
written then queried once): after Chroma's LRU evicted a collection's HNSW index, a later *Chroma*
vector query on it sometimes failed with "Error creating hnsw segment reader: Nothing found on disk"
(23 of 60). Chroma's default bound takes the same eviction path once more collections than it are
in use. The engine searches banks of up to ``live_index.EXACT_LIMIT`` hot units in its own exact
in-memory vector set, so it queries Chroma's HNSW only for larger banks and archived-unit searches.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["bound_hnsw_cache"]

log = logging.getLogger("hindsight.storage")


def bound_hnsw_cache(client: Any, size: int | None) -> int | None:
    """Make ``client`` keep at most ``size`` HNSW indexes loaded; returns the bound now in force."""
    server = getattr(client, "_server", None)
    current = getattr(server, "hnsw_cache_size", None)
    if size is None or current is None:
        if size is not None:
            log.warning("cannot bound Chroma's HNSW cache: %s has no hnsw_cache_size", type(server).__name__)
        return current
    if current <= size:
        return current  # the file-handle limit is already lower
    server.stop()
    server.hnsw_cache_size = size
    server.start()
    return size
