"""Help → System check, the CPU-fallback message and crash reports, in a real window."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.gui.layout_state import DesktopState, GuiState
from app.gui.widgets.doctor_dialog import DoctorDialog
from app.logs import Diagnostics
from engine.core.settings import EngineSettings, ModelSettings
from engine.models import gpu


def test_the_dialog_shows_the_doctor_report(qtbot) -> None:
    dialog = DoctorDialog("auto", "Log file and crash reports: /somewhere")
    qtbot.addWidget(dialog)
    qtbot.waitUntil(dialog.again.isEnabled, timeout=30000)
    text = dialog.report.toPlainText()
    assert "onnxruntime:" in text and "models run on:" in text and "stream port:" in text


@pytest.mark.skipif(not gpu.ort_build().has_cuda, reason="onnxruntime has no CUDA")
def test_cuda_asked_for_on_the_cpu_shows_a_message_with_the_fix(
    qtbot, make_window, wait_ready
) -> None:
    engine = dataclasses.replace(EngineSettings(), models=ModelSettings(provider="cuda"))
    window = make_window(GuiState(engine=engine, desktop=DesktopState(notice_accepted=True)))
    wait_ready(window)
    if not all(p.startswith("CPU") for p in window.core.providers()):
        pytest.skip("CUDA really runs here")
    qtbot.waitUntil(
        lambda: any("CUDA was asked for" in t for t in window.messages.texts()), timeout=10000
    )


def test_a_crash_report_is_announced_in_the_message_bar(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(start=False)
    diagnostics = Diagnostics(tmp_path)
    window.status.watch_crashes(diagnostics)
    report = tmp_path / "crash-1.txt"
    for listener in diagnostics.listeners:  # as the hook calls them, from any thread
        listener(report)
    qtbot.waitUntil(lambda: any(str(report) in t for t in window.messages.texts()))
