"""The GUI thread never waits on a worker while the app runs: every join of a thread
(switching the source stops the old one; new stages close the ones they replace; an
output switched off stops its thread) happens on a worker thread. Only the window's
close may join, to end the stream cleanly."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from app.gui.layout_state import DesktopState, GuiState
from engine.core.paths import DEMO_PORTRAIT
from engine.sources.choice import InputChoice
from tests.app.gui.conftest import SMALL


@pytest.fixture
def gui_joins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the threads the GUI (main) thread joined, as it joins them."""
    joined: list[str] = []
    gui = threading.main_thread()
    original = threading.Thread.join

    def join(self: threading.Thread, timeout: float | None = None) -> None:
        if threading.current_thread() is gui:
            joined.append(self.name)
        original(self, timeout)

    monkeypatch.setattr(threading.Thread, "join", join)
    yield joined


def test_the_gui_thread_never_joins_a_worker_in_a_live_session(
    qtbot, make_window, wait_ready, gui_joins
) -> None:
    window = make_window(state=GuiState(desktop=DesktopState(notice_accepted=True), stream_port=0))
    wait_ready(window)
    core = window.core
    first = core.session.source

    # Switch sources: to a file, to a camera that cannot open, to another demo.
    portrait = InputChoice(kind="file", path=str(DEMO_PORTRAIT), width=SMALL[0], height=SMALL[1])
    window.controls.input_changed.emit(portrait)
    qtbot.waitUntil(lambda: core.choice == portrait, timeout=10000)
    assert not first.alive and core.session.source.kind == "image"
    window.controls.input_changed.emit(InputChoice(kind="camera", device=7))
    qtbot.waitUntil(lambda: any("camera 7" in t for t in window.messages.texts()), timeout=15000)
    demo = InputChoice(kind="demo", width=SMALL[0], height=SMALL[1])
    window.controls.input_changed.emit(demo)
    qtbot.waitUntil(lambda: core.choice == demo, timeout=10000)
    shown = window.preview.frames_shown
    qtbot.waitUntil(lambda: window.preview.frames_shown > shown + 2, timeout=10000)

    # New stages replace the running ones (their model loaders are closed).
    old_stages = core.engine.stages
    core.build_stages()
    qtbot.waitUntil(lambda: core.engine.stages != old_stages and not core.io.busy, timeout=60000)

    # An output switched on and off again.
    outputs = window.outputs
    outputs.set_on("stream", True)
    qtbot.waitUntil(lambda: outputs.is_on("stream") and not outputs._busy, timeout=10000)
    server = outputs.outputs.stream
    assert server is not None
    outputs.set_on("stream", False)
    qtbot.waitUntil(lambda: not outputs._busy, timeout=10000)
    assert not outputs.is_on("stream") and not server.alive

    # The Models dialog closes without waiting for its job thread.
    dialog = window.commands.show_models()
    dialog.reject()

    assert gui_joins == []
    window.close()  # closing may join: the stream ends cleanly
    assert gui_joins, "the probe did not see the joins at close"
