"""Frozen dataclass trees to JSON and back, validated field by field.

Reading is driven by the type hints alone, so a field someone adds is checked without
code of its own: its JSON must fit its type, and the dataclass's `__post_init__`
judges the value. Whatever does not fit — a wrong type, a value out of range, a record
that cannot be built — falls back to the field's default and is described in
`problems`; nothing a file holds can make reading raise.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

# JSON numbers beyond 2**53 are not exact in most readers; no setting needs them, and
# a 400-digit integer must not reach a widget or an array size.
_MAX_JSON_INT = 2**53


def changed_leaves(value: Any, default: Any) -> dict[str, Any]:
    """The JSON of the fields of a dataclass tree that differ from `default`'s.

    Engine settings are saved this way so that a tuning default improved in a later
    release reaches users who never touched that setting, while their own choices stay.
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(value):
        mine, theirs = getattr(value, f.name), getattr(default, f.name)
        if mine == theirs:
            continue
        if dataclasses.is_dataclass(mine) and type(mine) is type(theirs):
            out[f.name] = changed_leaves(mine, theirs)
        else:
            out[f.name] = to_json(mine)
    return out


def to_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


class Mismatch(ValueError):
    """A JSON value that does not fit its type (or a record that cannot be built)."""


def _convert(value: Any, hint: Any, where: str, problems: list[str]) -> Any:
    """Check `value` against a type hint, building nested dataclasses; raise Mismatch."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin is Literal:
        if any(value == option and type(value) is type(option) for option in typing.get_args(hint)):
            return value
        raise Mismatch(f"{value!r} is not one of {typing.get_args(hint)}")
    if origin in (typing.Union, types.UnionType):
        return _first_fit(value, hint, where, problems)
    if origin is tuple:
        return _tuple(value, hint, where, problems)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise Mismatch(f"expected an object, got {type(value).__name__}")
        return build_dataclass(hint, value, where, problems)
    return _scalar(value, hint)


def _tuple(value: Any, hint: Any, where: str, problems: list[str]) -> tuple[Any, ...]:
    """A list as a tuple; an item that does not fit is left out (and noted), so one bad
    record (a gallery entry) does not cost the user all the others."""
    if not isinstance(value, list):
        raise Mismatch(f"expected a list, got {type(value).__name__}")
    args = typing.get_args(hint)
    item_hint = args[0] if args else Any
    items = []
    for index, item in enumerate(value):
        try:
            items.append(_convert(item, item_hint, f"{where}[{index}]", problems))
        except Mismatch as exc:
            problems.append(f"{where}[{index}]: {exc} (left out)")
    return tuple(items)


def _first_fit(value: Any, union: Any, where: str, problems: list[str]) -> Any:
    """The value as the first type of the union it fits."""
    for option in typing.get_args(union):
        attempt: list[str] = []
        try:
            converted = _convert(value, option, where, attempt)
        except Mismatch:
            continue
        problems += attempt
        return converted
    raise Mismatch(f"{value!r} does not fit {union}")


def _is_int(value: Any) -> bool:
    # JSON has one number type; a bool is never a number here, although Python says so.
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= _MAX_JSON_INT


def _is_float(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)  # Python's json reads NaN and Infinity
    return _is_int(value)


# JSON scalars: what each type accepts, and what its error says was expected.
_SCALARS: dict[Any, tuple[Callable[[Any], bool], str]] = {
    bool: (lambda v: isinstance(v, bool), "true/false"),
    int: (_is_int, "a whole number"),
    float: (_is_float, "a finite number"),
    # A NUL cannot be part of a path or a name anywhere the text goes.
    str: (lambda v: isinstance(v, str) and "\x00" not in v, "text"),
}


def _scalar(value: Any, hint: Any) -> Any:
    if hint is type(None):
        if value is None:
            return None
        raise Mismatch("expected null")
    if hint not in _SCALARS:
        raise Mismatch(f"unsupported type {hint}")
    accepts, expected = _SCALARS[hint]
    if not accepts(value):
        raise Mismatch(f"expected {expected}, got {_short(value)}")
    return float(value) if hint is float else value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def build_dataclass(cls: type[Any], data: dict[str, Any], where: str, problems: list[str]) -> Any:
    """Build `cls` from `data`, keeping the default of every field that is missing or
    invalid (each invalid one is noted in `problems`). Unknown keys are ignored: they
    come from a newer version or from a setting that no longer exists. Raises Mismatch
    only when `cls` has no defaults to fall back to (the caller drops that record)."""
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        path = f"{where}.{f.name}" if where else f.name
        try:
            kwargs[f.name] = _convert(data[f.name], hints[f.name], path, problems)
        except Mismatch as exc:
            problems.append(f"{path}: {exc}")
    return _construct(cls, kwargs, where, problems)


def _construct(cls: type[Any], kwargs: dict[str, Any], where: str, problems: list[str]) -> Any:
    """`cls(**kwargs)`; when `__post_init__` refuses, the fields it refuses on their own
    fall back to their defaults, then all given ones if they only fail together.

    Any exception counts as a refusal: a check someone adds to `__post_init__` may raise
    anything, and a settings file must never stop the app from starting.
    """
    try:
        return cls(**kwargs)
    except Exception as exc:
        refusal = exc
    for name in list(kwargs):
        try:
            cls(**{name: kwargs[name]})
        except Exception as exc:
            problems.append(f"{where}.{name}: {exc}" if where else f"{name}: {exc}")
            del kwargs[name]
    try:
        return cls(**kwargs)
    except Exception as exc:
        # Fields valid alone but not together (a range that depends on another field).
        problems.append(f"{where or cls.__name__}: {exc}")
    try:
        return cls()
    except Exception:
        raise Mismatch(str(refusal)) from None


def unknown_keys(cls: type[Any], data: dict[str, Any]) -> dict[str, Any]:
    """The parts of `data` that no field of the dataclass tree `cls` reads: keys a newer
    version wrote, kept (as they are) so that saving this version's fields loses none.
    Within a record (a field typed as a dataclass, optional or not) its own unknown keys
    are found the same way; lists are this version's to rewrite and are not looked into."""
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key not in names:
            out[key] = value
            continue
        record = _record_type(hints[key])
        if record is not None and isinstance(value, dict):
            inner = unknown_keys(record, value)
            if inner:
                out[key] = inner
    return out


def _record_type(hint: Any) -> type[Any] | None:
    """The dataclass a hint names (`Rec` or `Rec | None`), else None."""
    options = (
        typing.get_args(hint)
        if typing.get_origin(hint) in (typing.Union, types.UnionType)
        else (hint,)
    )
    found = [o for o in options if isinstance(o, type) and dataclasses.is_dataclass(o)]
    return found[0] if len(found) == 1 else None


def merge_unknown(data: dict[str, Any], unknown: dict[str, Any]) -> dict[str, Any]:
    """`data` (this version's JSON) with `unknown` (from `unknown_keys`) put back in."""
    out = dict(data)
    for key, value in unknown.items():
        mine = out.get(key)
        if isinstance(value, dict) and isinstance(mine, dict):
            out[key] = merge_unknown(mine, value)
        elif key not in out:
            # Also a record left out as all defaults (changed_leaves): its unknown keys
            # still go back, in a record of their own.
            out[key] = value
    return out
