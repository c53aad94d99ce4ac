"""Read and replace one leaf of the frozen settings tree by its dotted path ("swap.blend").

Controls name the setting they edit by path, so one function applies every edit and a
test can check that each control reaches the engine.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def get_path(settings: Any, path: str) -> Any:
    value = settings
    for part in path.split("."):
        value = getattr(value, part)
    return value


def with_path(settings: Any, path: str, value: Any) -> Any:
    """A new tree with one leaf replaced; the dataclasses validate the new value."""
    head, _, rest = path.partition(".")
    if not rest:
        leaf: dict[str, Any] = {head: value}
        return dataclasses.replace(settings, **leaf)
    child: Any = getattr(settings, head)
    changes: dict[str, Any] = {head: with_path(child, rest, value)}
    return dataclasses.replace(settings, **changes)


def has_path(settings: Any, path: str) -> bool:
    try:
        get_path(settings, path)
    except AttributeError:
        return False
    return True
