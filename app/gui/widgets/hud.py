"""Heads-up display over the preview: fps, latency, per-stage time bar, execution provider.

It paints a small translucent card in a corner of the picture. Numbers come from
`FrameStats.snapshot()` a few times a second (a cheap read, not engine work). The card
is compact (one line and the bar) when the picture is small, so it never covers the
face; drag it to another corner, double-click it to switch compact ↔ full.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from app.gui.i18n import tr
from app.gui.layout_state import Corner, HudSize
from engine.core.stats import StatsSnapshot
from engine.runtime.governor import GovernorStatus

BUDGET_MS = 50.0  # the per-frame budget the design sets; the bar's full width
# Calm, distinguishable colours, assigned by stage order.
PALETTE = (
    "#5fa8d3",
    "#7bc47f",
    "#e0b050",
    "#d9735b",
    "#a88fd8",
    "#5cc4b8",
    "#c98fb1",
    "#9aa5b1",
    "#d8d27a",
    "#8fb0e8",
    "#e39a6f",
    "#6fd3a0",
)
CARD_W = 300
PAD = 10
# "auto": compact while the picture is smaller than this (the full card covers a head).
FULL_MIN_PICTURE = (760, 430)
CORNERS: tuple[Corner, ...] = ("top-left", "top-right", "bottom-left", "bottom-right")
HUD_SIZES: tuple[HudSize, ...] = ("auto", "compact", "full")


@dataclass(frozen=True, slots=True)
class StageTime:
    name: str
    p50_ms: float  # over the frames the stage ran in
    skipped: str = ""  # why it did not run in the newest frame ("tracking", "off")

    def text(self) -> str:
        return (
            f"{self.name} {self.skipped}" if self.skipped else f"{self.name} {self.p50_ms:.1f} ms"
        )


@dataclass(frozen=True, slots=True)
class HudData:
    fps: float = 0.0
    latency_p50_ms: float = 0.0
    latency_p95_ms: float = 0.0
    stages: tuple[StageTime, ...] = ()
    providers: tuple[str, ...] = ()
    dropped: int = 0
    quality: str = ""  # the quality governor's step ("" when no target is set)
    quality_reason: str = ""
    enhancer_costs: tuple[str, ...] = ()  # measured per mode, e.g. "builtin: −8.0 fps, …"
    on_air: str = ""  # what the outputs send, e.g. "on air: stream http://… · recorder 00:42"
    live: bool = False  # something is on air (the compact card shows it too)

    @staticmethod
    def from_snapshot(
        snap: StatsSnapshot,
        providers: Sequence[str],
        order: Sequence[str] = (),
        governor: GovernorStatus | None = None,
        enhancer_costs: Sequence[str] = (),
        on_air: tuple[str, bool] = ("", False),
    ) -> HudData:
        """`order`: stage names in pipeline order (stats list them by first appearance)."""
        rank = {name: i for i, name in enumerate(order)}
        names = sorted({*snap.stages, *snap.last_skipped}, key=lambda n: rank.get(n, len(rank)))
        stages = tuple(
            StageTime(
                n, snap.stages[n].p50_ms if n in snap.stages else 0.0, snap.last_skipped.get(n, "")
            )
            for n in names
        )
        return HudData(
            fps=snap.fps,
            latency_p50_ms=snap.end_to_end.p50_ms,
            latency_p95_ms=snap.end_to_end.p95_ms,
            stages=stages,
            providers=tuple(providers),
            dropped=snap.dropped,
            quality=quality_step_text(governor),
            quality_reason=governor.reason if governor is not None and governor.active else "",
            enhancer_costs=tuple(enhancer_costs),
            on_air=on_air[0],
            live=on_air[1],
        )

    def lines(self) -> list[str]:
        provider = ", ".join(p.removesuffix("ExecutionProvider") for p in self.providers)
        return [
            f"{self.fps:4.1f} fps   latency p50 {self.latency_p50_ms:3.0f} ms · "
            f"p95 {self.latency_p95_ms:3.0f} ms",
            f"provider {provider or 'none (no models)'}   skipped {self.dropped} camera frames",
            *([self.on_air] if self.on_air else []),
            *([self.quality] if self.quality else []),
            *([f"  {self.quality_reason}"] if self.quality_reason else []),
            *(f"enhancer {cost}" for cost in self.enhancer_costs),
        ]


def quality_step_text(governor: GovernorStatus | None) -> str:
    """The governor's step, e.g. `quality 1/3: enhancer off`, while a target is set."""
    if governor is None or not governor.active:
        return ""
    return f"quality {governor.step}/{governor.steps - 1}: {governor.name}"


class HudOverlay(QWidget):
    """Child of the preview, placed by it in `corner` of the picture. Drag to move (it
    snaps to the nearest corner: `moved(corner)`), double-click to toggle its size
    (`size_changed(mode)`)."""

    moved = Signal(str)
    size_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data = HudData()
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setAccessibleName(tr("Performance"))
        self.setToolTip(
            tr(
                "Skipped camera frames: frames a newer one replaced before the engine was "
                "free. Normal when a frame takes longer than the camera's interval; the "
                "newest frame is always the one processed, so nothing lags."
            )
        )
        self._font = QFont(self.font())
        self._font.setPointSizeF(9.0)
        self._small = QFont(self._font)
        self._small.setPointSizeF(8.0)
        self.updates = 0
        self.corner: Corner = "top-left"
        self.size_mode: HudSize = "auto"
        self._small_picture = False
        self._drag_from: QPoint | None = None
        self._resize()

    # --- size and place -------------------------------------------------------------------
    @property
    def compact(self) -> bool:
        return self.size_mode == "compact" or (self.size_mode == "auto" and self._small_picture)

    def fit_picture(self, width: float, height: float) -> None:
        """The preview tells the size of the picture it shows (for "auto")."""
        small = width < FULL_MIN_PICTURE[0] or height < FULL_MIN_PICTURE[1]
        if small != self._small_picture:
            self._small_picture = small
            self._resize()

    def set_size_mode(self, mode: HudSize) -> None:
        self.size_mode = mode
        self._resize()

    def set_corner(self, corner: Corner) -> None:
        self.corner = corner

    def _lines(self) -> list[str]:
        lines = self.data.lines()
        if not self.compact:
            return lines
        # What is on air stays in view in the small card too.
        return [lines[0], self.data.on_air] if self.data.live else lines[:1]

    def _width(self) -> int:
        """Full: a fixed card. Compact: as wide as its one line (never wider than full)."""
        if not self.compact:
            return CARD_W
        metrics = QFontMetrics(self._font)
        widest = max(metrics.horizontalAdvance(line) for line in self._lines())
        return min(CARD_W, widest + 2 * PAD + 4)

    def _height(self) -> int:
        legend_rows = 0 if self.compact else (len(self.data.stages) + 1) // 2
        legend = 10 + legend_rows * 14 if legend_rows else 0
        return 2 * PAD + len(self._lines()) * 16 + 8 + 10 + legend

    def _resize(self) -> None:
        self.resize(self._width(), self._height())
        # The preview re-places the card when it changes size (its event filter).
        self.setAccessibleDescription(" · ".join(self.data.lines()))

    def set_data(self, data: HudData) -> None:
        self.data = data
        self.updates += 1
        self._resize()
        self.update()

    # --- mouse: drag to a corner, double-click for the other size ---------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_from = event.position().toPoint()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None:
            self.move(self.mapToParent(event.position().toPoint() - self._drag_from))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is None:
            return
        self._drag_from = None
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        parent = self.parentWidget()
        if parent is None:
            return
        centre = self.geometry().center()
        right = centre.x() > parent.width() / 2
        bottom = centre.y() > parent.height() / 2
        self.corner = f"{'bottom' if bottom else 'top'}-{'right' if right else 'left'}"  # type: ignore[assignment]
        self.moved.emit(self.corner)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.set_size_mode("full" if self.compact else "compact")
        self.size_changed.emit(self.size_mode)

    # --- painting -------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(12, 13, 16, 190))
        p.drawRoundedRect(QRectF(self.rect()), 8, 8)
        p.setFont(self._font)
        p.setPen(QColor(230, 232, 236))
        width = self._width()
        y = PAD + 12
        metrics = p.fontMetrics()
        for line in self._lines():
            # Governor reasons can be long: elide rather than run off the card.
            shown = metrics.elidedText(line, Qt.TextElideMode.ElideRight, width - 2 * PAD)
            p.drawText(PAD, y, shown)
            y += 16
        y += 4
        self._paint_bar(p, QRectF(PAD, y, width - 2 * PAD, 10))
        if not self.compact:
            self._paint_legend(p, y + 14 + 10)
        p.end()

    def _paint_legend(self, p: QPainter, y: int) -> None:
        p.setFont(self._small)
        col_w = (CARD_W - 2 * PAD) / 2
        for i, stage in enumerate(self.data.stages):
            x = PAD + (i % 2) * col_w
            row_y = y + (i // 2) * 14
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(PALETTE[i % len(PALETTE)]))
            p.drawRect(QRectF(x, row_y - 8, 8, 8))
            p.setPen(QColor(200, 204, 210))
            p.drawText(int(x + 12), int(row_y), stage.text())

    def _paint_bar(self, p: QPainter, rect: QRectF) -> None:
        """Stacked p50 stage times against the 50 ms budget; a tick marks the budget.
        Stages that did not run in the newest frame take no room."""
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(255, 255, 255, 28))
        p.drawRect(rect)
        total = sum(s.p50_ms for s in self.data.stages if not s.skipped)
        scale_ms = max(BUDGET_MS, total)
        x = rect.left()
        for i, stage in enumerate(self.data.stages):
            if stage.skipped:
                continue
            w = rect.width() * stage.p50_ms / scale_ms
            p.setBrush(QColor(PALETTE[i % len(PALETTE)]))
            p.drawRect(QRectF(x, rect.top(), w, rect.height()))
            x += w
        budget_x = rect.left() + rect.width() * BUDGET_MS / scale_ms
        p.setPen(QColor(255, 255, 255, 160))
        p.drawLine(int(budget_x), int(rect.top() - 2), int(budget_x), int(rect.bottom() + 2))
