"""`fusecam bench --profile`: the sub-step table of one run, built from the engine's stats.

Each stage's row is followed by its steps, indented by depth. `mean` is milliseconds per
frame in which the parent ran (so a stage's steps add up to the stage, and the row
"(other)" is what no step covers); `p50`/`p95` are over the frames in which the step
itself ran; `share` is the step's part of its parent's time. The engine's own work
(queue wait before processing, mirror, publish, stats, listeners) is the group "engine",
work other threads did for the stream (a background detection) the group "background";
their `mean` is per processed frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core.profile import BACKGROUND_STEPS, depth_of, parent_of
from engine.core.stats import StatsSnapshot, Summary, Total
from engine.runtime.pipeline import ENGINE_STEPS

OTHER = "(other)"
_NONE = Summary(0.0, 0.0, 0.0)


def _children(totals: dict[str, Total]) -> dict[str, list[str]]:
    """Every recorded key under its parent, in the order they were first recorded."""
    tree: dict[str, list[str]] = {}
    for key in totals:
        if depth_of(key) > 0:
            tree.setdefault(parent_of(key), []).append(key)
    return tree


def _row(key: str, total: Total, per_frames: int, parent_ms: float, s: Summary) -> dict[str, Any]:
    return {
        "step": key,
        "depth": depth_of(key),
        "frames": total.frames,
        "mean_ms": round(total.total_ms / per_frames, 3) if per_frames else 0.0,
        "p50_ms": round(s.p50_ms, 3),
        "p95_ms": round(s.p95_ms, 3),
        "share": round(total.total_ms / parent_ms, 3) if parent_ms > 0 else 0.0,
    }


def profile_rows(snap: StatsSnapshot, stage_order: Sequence[str]) -> list[dict[str, Any]]:
    """The table's rows, depth first: each stage, its steps, then "(other)"."""
    totals, tree = snap.totals, _children(snap.totals)
    frames = totals.get("processing", Total()).frames
    rows: list[dict[str, Any]] = []

    def add_children(parent: str, parent_total: Total) -> None:
        kids = tree.get(parent, [])
        for key in kids:
            total = totals[key]
            summary = snap.steps.get(key, _NONE)
            rows.append(_row(key, total, parent_total.frames, parent_total.total_ms, summary))
            add_children(key, total)
        if kids:
            covered = sum(totals[k].total_ms for k in kids)
            other = Total(parent_total.frames, max(0.0, parent_total.total_ms - covered))
            row = _row(f"{parent}/{OTHER}", other, other.frames, parent_total.total_ms, _NONE)
            del row["p50_ms"], row["p95_ms"]  # not a measured step: no distribution
            rows.append(row)

    for stage in stage_order:
        total = totals.get(stage)
        if total is None:
            continue
        rows.append(_row(stage, total, total.frames, total.total_ms, snap.stages[stage]))
        add_children(stage, total)
    for group in (ENGINE_STEPS, BACKGROUND_STEPS):
        for key in tree.get(group, []):
            # Per processed frame: a group has no total of its own to take shares of.
            total, summary = totals[key], snap.steps.get(key, _NONE)
            row = _row(key, total, frames, 0.0, summary)
            del row["share"]
            rows.append(row)
    return rows


def stage_coverage(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """For each stage with steps: the part of its time its steps account for (0..1)."""
    return {
        parent_of(row["step"]): round(1.0 - row["share"], 3)
        for row in rows
        if row["step"].endswith(f"/{OTHER}") and row["depth"] == 1
    }


def format_profile(rows: Sequence[dict[str, Any]], frames: int) -> list[str]:
    lines = [
        f"  profile ({frames} frames; mean: ms per frame its parent ran; p50/p95: over the "
        "frames it ran; share: of its parent)",
        f"  {'step':<34}{'frames':>7}{'mean':>8}{'p50':>8}{'p95':>8}{'share':>7}",
    ]
    group = ""
    for row in rows:
        head = row["step"].partition("/")[0]
        if head in (ENGINE_STEPS, BACKGROUND_STEPS) and head != group:
            group = head
            lines.append(f"  {head} (per processed frame)")
        name = "  " * row["depth"] + row["step"].rpartition("/")[2]
        share = f"{row['share'] * 100:6.0f}%" if "share" in row and row["depth"] else ""
        spread = f"{row['p50_ms']:>8.2f}{row['p95_ms']:>8.2f}" if "p50_ms" in row else " " * 16
        lines.append(f"  {name:<34}{row['frames']:>7}{row['mean_ms']:>8.2f}{spread}{share:>7}")
    return lines
