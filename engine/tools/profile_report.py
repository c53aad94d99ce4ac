"""`fusecam bench --profile`: the sub-step table of one run, built from the engine's stats.

Each stage's row is followed by its steps, indented by depth. `mean` is milliseconds per
frame in which the parent ran (so a stage's steps add up to the stage, and the row
"(other)" is what no step covers); `p50`/`p95` are over the frames in which the step
itself ran; `share` is the step's part of its parent's time; `cpu` is `mean` in the CPU
time of the thread that ran it (steadier than wall time when other programs compete).
The engine's own work (queue wait, mirror, publish, stats, listeners) is the group "engine",
work other threads did for the stream (a background detection) the group "background";
their `mean` is per processed frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core.profile import BACKGROUND_STEPS, depth_of, parent_of
from engine.core.stats import PROCESSING, StatsSnapshot, Summary, Total
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


class _Table:
    """Rows built from one snapshot (its dicts copied: "(other)" rows are added)."""

    def __init__(self, snap: StatsSnapshot) -> None:
        self.snap = snap
        self.totals = dict(snap.totals)
        self.cpu = dict(snap.cpu_totals_ms)
        self.tree = _children(snap.totals)
        self.rows: list[dict[str, Any]] = []

    def row(self, key: str, per_frames: int, parent: str | None, s: Summary | None) -> None:
        """`parent`: whose share to take (None: no share); `s` None: no distribution."""
        total = self.totals[key]
        r: dict[str, Any] = {"step": key, "depth": depth_of(key), "frames": total.frames}
        r["mean_ms"] = round(total.total_ms / per_frames, 3) if per_frames else 0.0
        if key in self.cpu:
            r["cpu_ms"] = round(self.cpu[key] / per_frames, 3) if per_frames else 0.0
        if s is not None:
            r["p50_ms"], r["p95_ms"] = round(s.p50_ms, 3), round(s.p95_ms, 3)
        if parent is not None:
            whole = self.totals[parent].total_ms
            r["share"] = round(total.total_ms / whole, 3) if whole > 0 else 0.0
        self.rows.append(r)

    def children(self, parent: str) -> None:
        kids = self.tree.get(parent, [])
        per = self.totals[parent].frames
        for key in kids:
            self.row(key, per, parent, self.snap.steps.get(key, _NONE))
            self.children(key)
        if kids:
            # What no step covers, as a pseudo-step of the parent (no distribution).
            other = f"{parent}/{OTHER}"
            covered = sum(self.totals[k].total_ms for k in kids)
            self.totals[other] = Total(per, max(0.0, self.totals[parent].total_ms - covered))
            if parent in self.cpu:
                rest = self.cpu[parent] - sum(self.cpu.get(k, 0.0) for k in kids)
                self.cpu[other] = max(0.0, rest)
            self.row(other, per, parent, None)


def profile_rows(snap: StatsSnapshot, stage_order: Sequence[str]) -> list[dict[str, Any]]:
    """The table's rows, depth first: each stage, its steps, then "(other)"; the engine's
    and the background's work; last the whole processing."""
    table = _Table(snap)
    frames = snap.totals.get(PROCESSING, Total()).frames
    for stage in stage_order:
        if stage in snap.totals:
            table.row(stage, snap.totals[stage].frames, None, snap.stages[stage])
            table.children(stage)
    for group in (ENGINE_STEPS, BACKGROUND_STEPS):
        for key in table.tree.get(group, []):
            # Per processed frame: a group has no total of its own to take shares of.
            table.row(key, frames, None, snap.steps.get(key, _NONE))
    if frames:
        table.row(PROCESSING, frames, None, snap.processing)
    return table.rows


def stage_coverage(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """For each stage with steps: the part of its time its steps account for (0..1), in
    CPU time when measured (a thread preempted by another program inflates the wall time
    of whatever it was running, inside a step or not), else in wall time."""
    by_key = {row["step"]: row for row in rows}
    coverage = {}
    for row in rows:
        if not (row["step"].endswith(f"/{OTHER}") and row["depth"] == 1):
            continue
        stage = by_key[parent_of(row["step"])]
        if "cpu_ms" in row and stage.get("cpu_ms", 0.0) > 0:
            coverage[stage["step"]] = round(1.0 - row["cpu_ms"] / stage["cpu_ms"], 3)
        else:
            coverage[stage["step"]] = round(1.0 - row["share"], 3)
    return coverage


def format_profile(rows: Sequence[dict[str, Any]], frames: int) -> list[str]:
    lines = [
        f"  profile ({frames} frames; mean: ms per frame its parent ran; cpu: the same in "
        "the thread's CPU time; p50/p95: over the frames it ran; share: of its parent)",
        f"  {'step':<34}{'frames':>7}{'mean':>8}{'cpu':>8}{'p50':>8}{'p95':>8}{'share':>7}",
    ]
    group = ""
    for row in rows:
        head = row["step"].partition("/")[0]
        if head in (ENGINE_STEPS, BACKGROUND_STEPS) and head != group:
            group = head
            lines.append(f"  {head} (per processed frame)")
        name = "  " * row["depth"] + row["step"].rpartition("/")[2]
        cpu = f"{row['cpu_ms']:>8.2f}" if "cpu_ms" in row else " " * 8
        spread = f"{row['p50_ms']:>8.2f}{row['p95_ms']:>8.2f}" if "p50_ms" in row else " " * 16
        share = f"{row['share'] * 100:6.0f}%" if "share" in row else ""
        lines.append(f"  {name:<34}{row['frames']:>7}{row['mean_ms']:>8.2f}{cpu}{spread}{share:>7}")
    return lines
