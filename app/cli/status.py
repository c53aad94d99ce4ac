"""One status line that updates in place on a terminal, and plain lines elsewhere.

On a terminal a long run would otherwise scroll a screenful of numbers a minute; in a log
file or a pipe carriage returns make a mess, so there each update is its own line.
"""

from __future__ import annotations

import sys
from typing import TextIO


class StatusLine:
    def __init__(self, stream: TextIO | None = None, prefix: str = "fusecam: ") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.prefix = prefix
        self.live = self.stream.isatty()
        self._open = False  # a line is on screen without its newline

    def update(self, text: str) -> None:
        if self.live:
            # \r back to the start, ESC[K erases what a longer previous line left.
            self.stream.write(f"\r\x1b[K{self.prefix}{text}")
            self._open = True
        else:
            self.stream.write(f"{self.prefix}{text}\n")
        self.stream.flush()

    def close(self) -> None:
        """End the line in place, so what is printed next starts on its own line."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
