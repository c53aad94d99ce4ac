"""The PRelu rewrite the shipped face mesh, palm detector and iris model carry
(tools/rewrite_prelu.py), applied to the verified conversion so that a reconversion gives
the bundled files."""

from __future__ import annotations

from typing import Any

from rewrite_prelu import DERIVED_NOTE, MAX_RELATIVE_CHANGE, TARGETS, rewrite_checked

from .manifest import sha256_bytes


def rewrite_prelu_models(models: dict[str, bytes], entries: dict[str, dict[str, Any]]) -> None:
    """Rewrite the PRelu of the targeted models in ``models``; update their entries.

    Runs after the TFLite check, so the recorded differences are the plain conversion's,
    as in the shipped manifest; the rewrite is checked on its own against that model.
    """
    for name in TARGETS:
        if name not in models:  # the palm detector is optional
            continue
        after, count, change = rewrite_checked(models[name])
        if change > MAX_RELATIVE_CHANGE:
            raise AssertionError(f"{name}: PRelu rewrite changed outputs by {change:.2e}")
        if not count:
            continue
        models[name] = after
        entries[name] = _derived_entry(entries[name], after)
        print(f"  {name}: {count} PRelu rewritten (max output change {change:.1e} of range)")


def _derived_entry(entry: dict[str, Any], data: bytes) -> dict[str, Any]:
    """``entry`` for the rewritten ``data``, its ``derived`` note right after ``source``
    where rewrite_prelu.py puts it in the hand-formatted manifest."""
    out: dict[str, Any] = {}
    for key, value in entry.items():
        out[key] = value
        if key == "source":
            out["derived"] = DERIVED_NOTE
    out["sha256"], out["size_bytes"] = sha256_bytes(data), len(data)
    return out
