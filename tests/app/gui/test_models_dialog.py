"""The Models dialog with a real store and a real HTTP server on 127.0.0.1: list,
download with progress (and cancel), verify, add, remove, choose."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from app.gui.controllers.tasks import TaskRunner
from app.gui.widgets.models_dialog import ModelsDialog
from engine.models import Manifest, ModelSpec, ModelStore
from engine.neural.signature import register_user_model
from tests.engine.neural_fakes import make_gfpgan

PAYLOAD = np.random.default_rng(3).integers(0, 256, 2_000_000, dtype=np.uint8).tobytes()
SHA = hashlib.sha256(PAYLOAD).hexdigest()
NOTICE = "For research only; you accept the licence by downloading."


class _Handler(BaseHTTPRequestHandler):
    delay_s = 0.0  # per 64 KiB chunk: a slow mirror, so a download can be cancelled

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(PAYLOAD)))
        self.end_headers()
        for start in range(0, len(PAYLOAD), 65536):
            try:
                self.wfile.write(PAYLOAD[start : start + 65536])
            except OSError:
                return  # the client went away (cancelled)
            time.sleep(self.server.delay_s)  # type: ignore[attr-defined]


@pytest.fixture
def mirror() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.delay_s = 0.0  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, name="test-mirror", daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


@pytest.fixture
def store(tmp_path: Path, mirror: ThreadingHTTPServer) -> ModelStore:
    spec = ModelSpec(
        name="demo_enhancer",
        file="demo_enhancer.onnx",
        sha256=SHA,
        size_bytes=len(PAYLOAD),
        urls=(f"http://127.0.0.1:{mirror.server_port}/demo_enhancer.onnx",),
        licence="test licence",
        notice=NOTICE,
        family="gfpgan",
    )
    return ModelStore(Manifest((spec,)), data_dir=tmp_path / "data", bundled_dir=tmp_path)


@pytest.fixture
def dialog(qtbot, store: ModelStore) -> Iterator[ModelsDialog]:  # type: ignore[no-untyped-def]
    jobs = TaskRunner("test-models")
    widget = ModelsDialog(store, jobs)
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    jobs.stop(1.0)


def _state(dialog: ModelsDialog, name: str) -> str:
    row = next(i for i, s in enumerate(dialog.statuses) if s.spec.name == name)
    return dialog.table.item(row, 3).text()


def test_download_with_progress_verify_use_and_remove(qtbot, dialog, store) -> None:  # type: ignore[no-untyped-def]
    assert _state(dialog, "demo_enhancer") == "not downloaded"
    # The licence notice is on screen beside the button that accepts it.
    assert NOTICE in dialog.details.text()
    assert dialog.download_button.text() == "Accept licence and download"
    progress: list[int] = []
    dialog._progress.connect(lambda done, _total: progress.append(done))
    dialog.download_button.click()
    qtbot.waitUntil(lambda: "Downloaded and verified" in dialog.status.text(), timeout=20000)
    assert progress and progress[-1] == len(PAYLOAD) and progress == sorted(progress)
    assert _state(dialog, "demo_enhancer") == "ready"
    assert (store.models_dir / "demo_enhancer.onnx").read_bytes() == PAYLOAD
    dialog.verify_button.click()
    qtbot.waitUntil(lambda: "matches its SHA-256" in dialog.status.text(), timeout=20000)
    chosen: list[list[tuple[str, str]]] = []
    dialog.use_requested.connect(chosen.append)
    dialog.use_button.click()
    assert chosen == [[("enhancer.mode", "neural"), ("models.enhancer_model", "demo_enhancer")]]
    assert "in use" in _state(dialog, "demo_enhancer")
    dialog.remove_button.click()
    assert not (store.models_dir / "demo_enhancer.onnx").exists()
    assert _state(dialog, "demo_enhancer").startswith("not downloaded")


def test_a_download_can_be_cancelled_and_kept_to_resume(qtbot, dialog, store, mirror) -> None:  # type: ignore[no-untyped-def]
    mirror.delay_s = 0.05  # ~1.5 s for the whole file
    dialog.download_button.click()
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=10000)
    assert dialog.cancel_button.isEnabled() and not dialog.download_button.isEnabled()
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: "cancelled" in dialog.status.text(), timeout=10000)
    assert store.part_path(store.spec("demo_enhancer")).is_file()
    assert _state(dialog, "demo_enhancer").startswith("partly downloaded")
    assert not (store.models_dir / "demo_enhancer.onnx").exists()


def test_adding_a_model_checks_it_and_removing_forgets_it(qtbot, dialog, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = make_gfpgan(tmp_path / "my_restorer.onnx", size=128)
    dialog.add_model(model, "gfpgan")
    qtbot.waitUntil(lambda: "Added" in dialog.status.text(), timeout=20000)
    added = dialog.selected()
    assert added is not None and added.spec.user_supplied and added.spec.local_path == model
    assert "user supplied" in _state(dialog, added.spec.name)
    dialog.remove_button.click()
    assert added.spec.name not in [s.spec.name for s in dialog.statuses]
    assert model.is_file()  # the user's own file is never deleted
    # A file that is not a model of that kind is refused, with the reason.
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not onnx")
    dialog.add_model(junk, "gfpgan")
    qtbot.waitUntil(lambda: "Not added" in dialog.status.text(), timeout=20000)


def test_the_window_lists_registered_enhancers_and_uses_the_chosen_one(
    qtbot, make_window, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FUSECAM_DATA_DIR", str(tmp_path / "data"))
    spec = register_user_model(
        ModelStore(), make_gfpgan(tmp_path / "mine.onnx", size=128), "gfpgan"
    )
    window = make_window(start=False)
    combo = window.controls.enhancer_model
    assert combo.findData(spec.name) >= 0, "the registered enhancer is offered"
    dialog = window.commands.show_models()
    qtbot.waitUntil(dialog.isVisible)
    assert spec.name in [s.spec.name for s in dialog.statuses]
    dialog.select(spec.name)
    dialog.use_button.click()
    settings = window.core.engine.settings
    assert settings.enhancer.mode == "neural" and settings.models.enhancer_model == spec.name
    assert combo.currentData() == spec.name
    dialog.close()
