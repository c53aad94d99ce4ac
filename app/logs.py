"""Where a run leaves its traces: a rotating log file, and a report for every crash.

The log file lives in the platform's log folder (platformdirs; `$FUSECAM_LOG_DIR`
overrides it). An uncaught exception, on any thread, writes a crash report beside it;
faulthandler writes native crashes (a segfault in a driver or Qt) to `faults.log`, which a
Python hook never sees. Front-ends call `setup()` once at start.

Nothing written there holds the stream's access token (app.redact: command lines,
URLs, headers, and the token itself once `keep_secret` was told it), and the files are
the user's alone (0600): they name the user's files and folders too.
"""

from __future__ import annotations

import faulthandler
import io
import logging
import logging.handlers
import os
import platform
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO

import platformdirs

from app import __version__
from app.redact import redact, redact_argv

LOG_DIR_ENV = "FUSECAM_LOG_DIR"
LOG_FILE = "fusecam.log"
FAULT_FILE = "faults.log"
MAX_LOG_BYTES = 1_000_000
LOG_BACKUPS = 3  # fusecam.log.1 … .3: about four runs of a busy session
FILE_FORMAT = "%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s"
PRIVATE = 0o600

# Told the path of each crash report (the GUI shows it in its message bar).
CrashListener = Callable[[Path], None]


def log_dir() -> Path:
    override = os.environ.get(LOG_DIR_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_log_dir("fusecam", appauthor=False))


class Diagnostics:
    """The file handler, the fault file and the exception hooks of one process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log_file = folder / LOG_FILE
        self.listeners: list[CrashListener] = []
        self.secrets: set[str] = set()
        self._faults: IO[str] | None = None

    def keep_secret(self, secret: str | None) -> None:
        """Mask `secret` wherever it appears in the log file and crash reports."""
        if secret:
            self.secrets.add(secret)

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def install(self) -> None:
        root = logging.getLogger()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handler = _LogFile(self, self.log_file)
            self._faults = _private_open(self.folder / FAULT_FILE)
        except OSError as exc:  # a read-only home must not stop the app
            logging.getLogger(__name__).warning("no log file in %s: %s", self.folder, exc)
            return
        handler.setFormatter(_Redacting(self, FILE_FORMAT))
        root.addHandler(handler)
        faulthandler.enable(self._faults)
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_excepthook
        logging.getLogger(__name__).info(
            "fusecam %s, Python %s, %s; argv %s",
            __version__,
            platform.python_version(),
            platform.platform(),
            redact_argv(sys.argv[1:]),
        )

    def write_crash_report(
        self,
        kind: type[BaseException],
        value: BaseException,
        tb: TracebackType | None,
        thread: str,
    ) -> Path | None:
        """The report's path, or None when it could not be written (then only stderr)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.folder / f"crash-{stamp}-{os.getpid()}.txt"
        text = (
            f"Fusecam {__version__} crashed on thread {thread!r} at {time.ctime()}\n"
            f"Python {platform.python_version()} on {platform.platform()}\n"
            f"argv: {redact_argv(sys.argv)}\n\n"
            + "".join(traceback.format_exception(kind, value, tb))
        )
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with _private_open(path) as f:
                f.write(self.redact(text))
        except OSError:
            return None
        return path

    def _report(
        self, kind: type[BaseException], value: BaseException, tb: TracebackType | None, thread: str
    ) -> None:
        logging.getLogger(__name__).critical(
            "uncaught exception on %s", thread, exc_info=(kind, value, tb)
        )
        path = self.write_crash_report(kind, value, tb, thread)
        where = f"; report: {path}" if path else ""
        print(f"fusecam: internal error: {kind.__name__}: {value}{where}", file=sys.stderr)
        if path is not None:
            for listener in list(self.listeners):
                listener(path)

    def _excepthook(
        self, kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        self._report(kind, value, tb, threading.current_thread().name)

    def _thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        name = args.thread.name if args.thread is not None else "unknown"
        self._report(args.exc_type, args.exc_value, args.exc_traceback, name)


def _private_open(path: Path) -> io.TextIOWrapper:
    """`path` for appending, created 0600 (an existing file is made so too)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE)
    os.chmod(path, PRIVATE)
    return open(fd, "a", encoding="utf-8")


class _Redacting(logging.Formatter):
    """The file's lines with the token masked (the console, the user's own, keeps it)."""

    def __init__(self, diagnostics: Diagnostics, fmt: str) -> None:
        super().__init__(fmt)
        self.diagnostics = diagnostics

    def format(self, record: logging.LogRecord) -> str:
        return self.diagnostics.redact(super().format(record))


class _LogFile(logging.handlers.RotatingFileHandler):
    """The log file; knows its Diagnostics, so a second `setup()` finds them."""

    def __init__(self, diagnostics: Diagnostics, path: Path) -> None:
        super().__init__(path, maxBytes=MAX_LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8")
        self.diagnostics = diagnostics

    def _open(self) -> io.TextIOWrapper:
        return _private_open(Path(self.baseFilename))


def setup(console_level: int) -> Diagnostics:
    """Console logging at `console_level`, INFO and up to the log file, and the crash hooks;
    returns them so a front-end can listen for crash reports. Once per process: a second
    call (tests run `main` many times) only sets the console level again."""
    root = logging.getLogger()
    before = set(root.handlers)
    logging.basicConfig(format="fusecam: %(levelname)s %(name)s: %(message)s")
    for handler in set(root.handlers) - before:  # the console shows what was asked for
        handler.setLevel(console_level)
    root.setLevel(min(console_level, logging.INFO))
    for handler in root.handlers:
        if isinstance(handler, _LogFile):
            return handler.diagnostics
    diagnostics = Diagnostics(log_dir())
    diagnostics.install()
    return diagnostics
