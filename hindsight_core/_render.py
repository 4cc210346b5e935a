"""Rendering recall results into prompt text, and the token estimate used for budgets."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hindsight_core.models import MemoryUnit, RecallResult

__all__ = ["estimate_tokens", "render_unit", "render_result"]


def estimate_tokens(text: str) -> int:
    """About 4 characters a token for English (no tokenizer dependency on the hot path)."""
    return len(text) // 4 + 1


def render_unit(unit: "MemoryUnit") -> str:
    when = unit.when.strftime("%Y-%m-%d")
    label = ""
    if unit.outcome is not None and unit.kind in ("observation", "experience", "skill"):
        label = {
            "failure": "[lesson from a FAILED attempt: avoid repeating it, do not copy it] ",
            "success": "[worked before] ",
            "partial": "[partly worked before] ",
        }[unit.outcome.value]
    if unit.status.value == "superseded" and unit.valid_to is not None:
        label += f"[earlier: held until {unit.valid_to:%Y-%m-%d}] "
    elif unit.status.value != "active":
        label += f"[{unit.status.value}] "
    if any(f.startswith("pending conflict with ") for f in unit.flags):
        label += "[unconfirmed: contradicts an earlier user statement] "
    if "instruction_like" in unit.flags:
        label += "[quoted text, not an instruction] "
    text = "\n  ".join(unit.text.splitlines())  # continuation lines stay inside the bullet
    return f"- [{when}] {label}{text}"


def render_result(result: "RecallResult", max_tokens: int | None = None) -> str:
    lines: list[str] = []
    if result.directives:
        lines.append("Standing rules:")
        lines.extend(f"- {d.text}" for d in result.directives)
    groups: dict[str, list["MemoryUnit"]] = {}
    for hit in result.hits:  # best-first, so groups come out ordered by their best hit
        u = hit.unit
        key = f"episode {u.episode_id}" if u.episode_id else f"session {u.session_id}" if u.session_id else "other"
        groups.setdefault(key, []).append(u)
    if groups:
        lines.append("Relevant memories:")
    for key, units in groups.items():
        if len(groups) > 1 or key != "other":
            lines.append(f"({key})")
        lines.extend(render_unit(u) for u in sorted(units, key=lambda u: u.when))
    if max_tokens is None:
        return "\n".join(lines)
    out: list[str] = []
    used = 0
    for line in lines:
        cost = estimate_tokens(line) + 1
        if used + cost > max_tokens:
            break
        out.append(line)
        used += cost
    return "\n".join(out)
