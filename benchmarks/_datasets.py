"""Where the benchmark data sets live, and what to tell a user who does not have them.

The data is never copied into the repository (licences, size): it is read by path from
``../shared/data/<name>/`` beside the checkout, or from the file an environment variable names. A clone
elsewhere has no ``../shared``: tests that need a set skip with :func:`missing_message`, and
``hindsight bench`` prints it instead of a traceback.

Example:
    >>> DATASETS["locomo"].env
    'HINDSIGHT_LOCOMO'
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DATASETS", "Dataset", "missing_message"]

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@dataclass(frozen=True, slots=True)
class Dataset:
    """One benchmark data set: its default place, the variable that overrides it, and its source."""

    name: str
    relative: str  # under ../shared/data/
    env: str
    source: str
    licence: str

    @property
    def path(self) -> Path:
        """The file to read: ``$ENV`` when set, else ``../shared/data/<relative>``."""
        value = os.environ.get(self.env)
        return Path(value) if value else SHARED / self.relative

    def exists(self) -> bool:
        return self.path.is_file()


DATASETS: dict[str, Dataset] = {d.name: d for d in (
    Dataset("locomo", "locomo/locomo10.json", "HINDSIGHT_LOCOMO",
            "locomo10.json from https://github.com/snap-research/locomo (data/locomo10.json)", "CC BY-NC 4.0"),
    Dataset("reflexion", "reflexion/hotpotqa_5trials.json", "HINDSIGHT_REFLEXION_DATA",
            "the Reflexion HotpotQA run logs from https://github.com/noahshinn/reflexion, parsed into episodes "
            "(see ../shared/data/reflexion/README.md for the format)", "MIT"),
)}

# Which data set each `hindsight bench NAME` needs.
BENCH_DATA = {"locomo": "locomo", "latency": "locomo", "experience": "reflexion"}


def missing_message(name: str) -> str:
    """What to do when data set ``name`` is not where it is looked for."""
    d = DATASETS[name]
    return (f"the {d.name} data set is not at {d.path} (licence {d.licence}, not shipped with the repository). "
            f"Get {d.source}, then put it at ../shared/data/{d.relative} beside your checkout or set "
            f"{d.env}=/path/to/{Path(d.relative).name}")
