"""Re-extracts the window's strings into the Qt Linguist files and compiles them.

For each shipped language (app/gui/i18n.py LANGUAGES) it runs `pyside6-lupdate` over
app/gui (translations already made are kept; strings no longer in the code are dropped)
into app/gui/resources/i18n/fusecam_<lang>.ts, then `pyside6-lrelease` into the .qm the
app loads. Both tools ship with PySide6-Essentials. Translate the new entries in the .ts
(Qt Linguist: `pyside6-linguist FILE.ts`, or any editor), then run this again;
tests/app/gui/test_translation.py fails while a string is untranslated or a .qm is stale.

Run: .venv/bin/python tools/update_translations.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUI = ROOT / "app" / "gui"
I18N = GUI / "resources" / "i18n"
LANGUAGES = ("de",)  # as app/gui/i18n.py (this script runs without the app installed)


def tool(name: str) -> str:
    """A PySide6 command-line tool from the interpreter's own environment."""
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def sources() -> list[Path]:
    return sorted(p for p in GUI.rglob("*.py") if "resources" not in p.parts)


def lupdate(ts: Path, files: list[Path]) -> None:
    """Update `ts` from the sources (no line numbers, so an edit elsewhere in a file does
    not change the file; obsolete entries dropped)."""
    command = [tool("pyside6-lupdate"), *map(str, files), "-no-obsolete", "-locations", "none"]
    command += ["-ts", str(ts)]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)


def lrelease(ts: Path, qm: Path) -> None:
    command = [tool("pyside6-lrelease"), str(ts), "-qm", str(qm)]
    subprocess.run(command, check=True, capture_output=True)


def main() -> int:
    files = sources()
    for language in LANGUAGES:
        ts = I18N / f"fusecam_{language}.ts"
        lupdate(ts, files)
        lrelease(ts, ts.with_suffix(".qm"))
        print(f"{ts.relative_to(ROOT)} and its .qm updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
