"""One status line that updates in place on a terminal, and plain lines elsewhere.

On a terminal a long run would otherwise scroll a screenful of numbers a minute; in a log
file or a pipe carriage returns make a mess, so there each update is its own line.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from tqdm import tqdm


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


@contextmanager
def video_progress(stream: TextIO | None = None) -> Iterator[Callable[[int, int | None], None]]:
    """A progress bar with rate and time left for `swap_video`'s `progress(done, total)`.

    On a terminal only: in a log or a pipe a bar redrawn with carriage returns is noise,
    and the command prints what it wrote when it is done."""
    stream = stream if stream is not None else sys.stderr
    # A terminal that reports no size (0x0, as some do) would hide the bar: shutil falls
    # back to 80x24 there.
    size = shutil.get_terminal_size()
    bar = tqdm(
        desc="fusecam: swapping",
        unit="frame",
        file=stream,
        disable=not stream.isatty(),
        ncols=size.columns,
        nrows=size.lines,
    )

    def update(done: int, total: int | None) -> None:
        if bar.total is None and total:
            bar.total = total  # known once the video is open
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()
