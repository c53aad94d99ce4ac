"""The no-display hint names the command as the user can type it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.gui import display


def test_the_hint_names_the_venv_program_when_it_is_not_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / ".venv" / "bin" / "fusecam"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(program)])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert display.program() == ".venv/bin/fusecam"
    assert ".venv/bin/fusecam run --demo" in display.headless_hint()
    monkeypatch.setenv("PATH", f"{program.parent}:/usr/bin")
    assert display.program() == "fusecam"  # on PATH: the short name works
