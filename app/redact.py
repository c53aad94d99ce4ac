"""Keeping the stream's access token out of what a run leaves behind: the log file, crash
reports, and the command lines written into them.

The token is a password to the camera: whoever has it watches the stream. It reaches
text in known shapes — `--token T` on a command line, `?token=T` in a stream URL, an
`Authorization: Bearer T` or `X-Fusecam-Token: T` header — and as itself wherever a
message quotes it; each is replaced by `***` before the text is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

MASK = "***"
SECRET_OPTIONS = ("--token",)

_SHAPES = (
    re.compile(r"(?P<keep>[?&;]token=)[^&\s'\"<>]+", re.IGNORECASE),
    re.compile(r"(?P<keep>Authorization:\s*Bearer\s+)\S+", re.IGNORECASE),
    re.compile(r"(?P<keep>X-Fusecam-Token:\s*)\S+", re.IGNORECASE),
    re.compile(r"(?P<keep>--token[= ])[^\s'\",\]]+"),
    # A command line logged as a Python list: ['run', '--token', 'T'].
    re.compile(r"(?P<keep>'--token',\s*')[^']*"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every token it holds (in a known shape, or one of `secrets`) masked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    for shape in _SHAPES:
        text = shape.sub(lambda match: match.group("keep") + MASK, text)
    return text


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A command line with the value of every secret option masked."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(MASK)
            hide_next = False
        elif arg in SECRET_OPTIONS:
            out.append(arg)
            hide_next = True
        elif arg.startswith(tuple(f"{option}=" for option in SECRET_OPTIONS)):
            out.append(arg.split("=", 1)[0] + "=" + MASK)
        else:
            out.append(arg)
    return out
