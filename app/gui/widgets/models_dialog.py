"""The Models dialog: every neural model, its state and licence; download (with progress
and cancel), verify, add your own, remove, and choose which one the app uses.

The same operations as `fusecam models` (engine.models), run on the dialog's own job
thread so a 500 MB download or hash never blocks the window. A licence notice is shown
beside the download button for the selected model, never behind a modal box: starting
the download is accepting it. Choosing a model emits the settings it sets; the window
applies them like any control's edit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.gui.i18n import tr
from app.gui.widgets.models_text import COLUMNS, FAMILY_TEXT, USE, mb, state_text
from engine.models import (
    FAMILIES,
    DownloadCancelled,
    ModelError,
    ModelStatus,
    ModelStore,
    download_missing,
    needs_licence_acceptance,
)
from engine.neural.signature import register_user_model


class Jobs(Protocol):
    """Runs a job off the GUI thread and hands its result back on it (TaskRunner)."""

    def submit(
        self, job: Callable[[], Any], done: Callable[[Any, BaseException | None], None]
    ) -> None: ...

    def stop(self, timeout: float = 0.5) -> bool: ...

    def cancel(self) -> None: ...


class ModelsDialog(QDialog):
    """`use_requested(list of (path, value))`: the user chose a model."""

    use_requested = Signal(list)
    changed = Signal()  # a model was downloaded, added or removed
    _progress = Signal(int, int)  # bytes done, total (0: unknown); from the job thread

    def __init__(
        self,
        store: ModelStore,
        jobs: Jobs,
        in_use: Sequence[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Models"))
        self.setObjectName("modelsDialog")
        self.resize(820, 460)
        self.store = store
        self.in_use = set(in_use)
        self.statuses: list[ModelStatus] = []
        self.jobs = jobs
        self._cancel = threading.Event()
        self.busy: str | None = None  # the model a job runs for
        self._build()
        self._progress.connect(self._show_progress)
        self.refresh()

    # --- construction -----------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        intro = QLabel(
            tr(
                "Neural models are optional: the built-in swapper and enhancer need none. "
                "Nothing downloads unless you ask; every download is checked against the "
                "SHA-256 pinned in Fusecam."
            )
        )
        intro.setWordWrap(True)
        # No enhancer is in the list to download: say where one comes from.
        self.enhancer_hint = QLabel(
            tr(
                "No face enhancer can be downloaded here: GFPGAN's authors publish only "
                "PyTorch weights. If you have a GFPGAN-style ONNX file (for example "
                "converted from GFPGANv1.4.pth, or GPEN-BFR-512), pick “face enhancer” "
                "below and click Add…; it is then offered under Swap → Enhancer → Model. "
                "It must take and give 1×3×512×512 RGB in [-1, 1] (docs/models.md)."
            )
        )
        self.enhancer_hint.setWordWrap(True)
        self.enhancer_hint.setObjectName("hint")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([tr(c) for c in COLUMNS])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setAccessibleName(tr("Models"))
        self.table.itemSelectionChanged.connect(self._on_selected)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setObjectName("hint")
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setAccessibleName(tr("Download progress"))
        self.progress.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(intro)
        layout.addWidget(self.enhancer_hint)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addLayout(self._buttons())

    def _button(self, text: str, tip: str, slot: object) -> QPushButton:
        button = QPushButton(text)
        button.setToolTip(tip)
        button.setAccessibleName(text.rstrip("…"))
        button.clicked.connect(slot)
        return button

    def _buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.download_button = self._button(
            tr("Download"), tr("Download the selected model (and what it needs)"), self.download
        )
        self.cancel_button = self._button(tr("Cancel"), tr("Stop the download"), self.cancel)
        self.verify_button = self._button(
            tr("Verify"), tr("Hash the selected model's file against its SHA-256"), self.verify
        )
        self.use_button = self._button(
            tr("Use"), tr("Make the app use the selected model"), self.use
        )
        self.remove_button = self._button(
            tr("Remove"),
            tr("Forget a model you added, or delete a downloaded model's file"),
            self.remove,
        )
        self.add_family = QComboBox()
        for family in FAMILIES:
            self.add_family.addItem(tr(FAMILY_TEXT[family]), family)
        self.add_family.setCurrentIndex(FAMILIES.index("gfpgan"))
        self.add_family.setAccessibleName(tr("Kind of model to add"))
        self.add_button = self._button(
            tr("Add…"), tr("Register an ONNX model file you have (checked before use)"), self.add
        )
        close = self._button(tr("Close"), tr("Close this dialog"), self.accept)
        for widget in (
            self.download_button,
            self.cancel_button,
            self.verify_button,
            self.use_button,
            self.remove_button,
        ):
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(self.add_family)
        row.addWidget(self.add_button)
        row.addWidget(close)
        return row

    # --- the table --------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read every model's state (the selection is kept)."""
        selected = self.selected()
        name = selected.spec.name if selected else None
        self.statuses = [s for s in self.store.list_status() if not s.spec.bundled]
        self.table.setRowCount(len(self.statuses))
        for row, status in enumerate(self.statuses):
            spec = status.spec
            state = state_text(status) + (tr(" — in use") if spec.name in self.in_use else "")
            cells = (
                spec.name,
                tr(FAMILY_TEXT.get(spec.family or "", spec.family or "-")),
                mb(spec.size_bytes or status.size_on_disk),
                state,
                spec.licence,
            )
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.select(name or (self.statuses[0].spec.name if self.statuses else ""))
        self._update_buttons()

    def select(self, name: str) -> None:
        for row, status in enumerate(self.statuses):
            if status.spec.name == name:
                self.table.selectRow(row)
                return

    def selected(self) -> ModelStatus | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self.statuses):
            return None
        return self.statuses[rows[0].row()]

    def _on_selected(self) -> None:
        status = self.selected()
        if status is None:
            self.details.setText("")
        else:
            spec = status.spec
            lines = [f"<b>{spec.name}</b> — {spec.licence or tr('licence not stated')}"]
            if spec.notice:
                lines.append(spec.notice)
            if spec.user_supplied:
                text = tr("Added by you from {path}; Fusecam cannot know where it came from.")
                lines.append(text.format(path=spec.local_path))
            if status.detail:
                lines.append(status.detail)
            self.details.setText("<br>".join(lines))
        self._update_buttons()

    def _update_buttons(self) -> None:
        status = self.selected()
        idle = self.busy is None
        spec = status.spec if status else None
        downloadable = bool(spec and spec.downloadable and status and status.state != "ready")
        self.download_button.setEnabled(idle and downloadable)
        licence = bool(spec and needs_licence_acceptance(spec))
        self.download_button.setText(
            tr("Accept licence and download") if licence else tr("Download")
        )
        self.cancel_button.setEnabled(not idle)
        self.verify_button.setEnabled(idle and bool(status and status.size_on_disk))
        self.use_button.setEnabled(
            bool(status and status.available and spec and spec.family in USE)
        )
        removable = bool(spec and (spec.user_supplied or (status and status.size_on_disk)))
        self.remove_button.setEnabled(idle and removable)
        self.add_button.setEnabled(idle)

    # --- jobs -------------------------------------------------------------------------
    def _start(self, name: str, text: str, job: object, done: object) -> None:
        self.busy = name
        self._cancel.clear()
        self.status.setText(text)
        self.progress.setValue(0)
        self.progress.show()
        self._update_buttons()
        self.jobs.submit(job, done)  # type: ignore[arg-type]

    def _finish(self, text: str) -> None:
        self.busy = None
        self.progress.hide()
        self.status.setText(text)
        self.refresh()

    def _show_progress(self, done: int, total: int) -> None:
        if total > 0:
            self.progress.setValue(round(1000 * done / total))
        self.progress.setFormat(f"{mb(done)} / {mb(total) if total else '?'}")

    def _report(self, done: int, total: int | None) -> None:
        """Job thread: progress of the current download or hash."""
        self._progress.emit(done, total or 0)

    def download(self) -> None:
        """Download the selected model and what it needs (the notice shown beside the
        button is accepted by starting it)."""
        status = self.selected()
        if status is None or self.busy is not None:
            return
        name = status.spec.name

        def job() -> list[str]:
            return download_missing(
                self.store, name, progress=self._report, cancel=self._cancel.is_set
            )

        self._start(name, tr("Downloading {name}…").format(name=name), job, self._downloaded)

    def _downloaded(self, fetched: list[str] | None, error: BaseException | None) -> None:
        if isinstance(error, DownloadCancelled):
            self._finish(tr("Download cancelled; what arrived is kept to resume later."))
        elif error is not None:
            self._finish(tr("Download failed: {error}").format(error=error))
        else:
            self._finish(
                tr("Downloaded and verified: {name}").format(name=", ".join(fetched or []))
            )
            self.changed.emit()

    def cancel(self) -> None:
        self._cancel.set()

    def verify(self) -> None:
        status = self.selected()
        if status is None or self.busy is not None:
            return
        name = status.spec.name
        job = lambda: self.store.verify(name, self._report, self._cancel.is_set)  # noqa: E731
        self._start(name, tr("Checking {name}…").format(name=name), job, self._verified)

    def _verified(self, result: ModelStatus | None, error: BaseException | None) -> None:
        if error is not None:
            self._finish(tr("Check failed: {error}").format(error=error))
        elif result is not None and result.state == "ready":
            self._finish(tr("{name}: the file matches its SHA-256.").format(name=result.spec.name))
        elif result is not None:
            text = f"{result.spec.name}: {state_text(result)}. {result.detail}"
            self._finish(text.strip())

    def add(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Add an ONNX model"), "", tr("ONNX models (*.onnx)")
        )
        if path:
            self.add_model(Path(path), str(self.add_family.currentData()))

    def add_model(self, path: Path, family: str) -> None:
        """Register `path` as a model of `family` once its signature checks out."""
        if self.busy is not None:
            return
        job = lambda: register_user_model(self.store, path, family)  # noqa: E731
        self._start(path.name, tr("Checking {name}…").format(name=path.name), job, self._added)

    def _added(self, spec: object, error: BaseException | None) -> None:
        if error is not None:
            self._finish(tr("Not added: {error}").format(error=error))
            return
        name = getattr(spec, "name", "")
        self._finish(tr("Added {name} (user supplied, unverified).").format(name=name))
        self.select(name)
        self.changed.emit()

    def remove(self) -> None:
        status = self.selected()
        if status is None or self.busy is not None:
            return
        spec = status.spec
        try:
            if spec.user_supplied:
                self.store.unregister_user_model(spec.name)
                text = tr("Forgot {name} (its file was left where it is).")
            else:
                self.store.remove_download(spec.name)
                text = tr("Deleted the downloaded file of {name}.")
        except (OSError, ModelError) as exc:
            self.status.setText(tr("Not removed: {error}").format(error=exc))
            return
        self.status.setText(text.format(name=spec.name))
        self.refresh()
        self.changed.emit()

    def use(self) -> None:
        status = self.selected()
        if status is None or status.spec.family not in USE:
            return
        name = status.spec.name
        edits = [
            (path, value if value is not None else name) for path, value in USE[status.spec.family]
        ]
        self.in_use.add(name)
        self.use_requested.emit(edits)
        self.status.setText(tr("The app now uses {name}.").format(name=name))
        self.refresh()

    def done(self, result: int) -> None:
        self._cancel.set()  # a download in flight stops (its .part stays to resume)
        self.jobs.cancel()  # the job thread ends by itself: the window never waits on it
        super().done(result)
