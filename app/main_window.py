"""The main window: live preview fed by the engine bridge."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from app.bridge import EngineBridge
from app.preview import PreviewWidget
from engine.factory import build_stages
from engine.pipeline import Engine
from engine.session import Session
from engine.settings import EngineSettings
from engine.sources.base import FrameSource


class MainWindow(QMainWindow):
    def __init__(
        self,
        source: FrameSource,
        settings: EngineSettings,
        source_faces: Sequence[Path] = (),
    ) -> None:
        super().__init__()
        self.setWindowTitle("Fusecam")
        self.resize(1100, 700)
        self.engine = Engine(build_stages(settings, source_faces), settings)
        self.session = Session(source, self.engine)
        self.bridge = EngineBridge(self.engine, self)
        self.engine.on_error = self.bridge.report_error
        self.preview = PreviewWidget()
        self.status = QLabel("starting…")
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.status)
        self.setCentralWidget(central)
        self.bridge.frame_ready.connect(self._pull_frame)

    def start(self) -> None:
        self.session.start()

    def _pull_frame(self, _frame_id: int) -> None:
        self.bridge.acknowledge()
        _, packet = self.engine.output.read()
        if packet is None:
            return
        self.preview.show_frame(packet.result)
        snap = self.engine.stats.snapshot()
        self.status.setText(
            f"{snap.fps:.1f} fps · latency p50 {snap.end_to_end.p50_ms:.1f} ms "
            f"p95 {snap.end_to_end.p95_ms:.1f} ms · dropped {snap.dropped}"
        )

    def save_screenshot(self, path: Path) -> bool:
        path.parent.mkdir(parents=True, exist_ok=True)
        return bool(self.grab().save(str(path)))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.bridge.detach()
        self.session.stop(timeout=1.0)
        super().closeEvent(event)
