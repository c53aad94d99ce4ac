"""Heads-up display over the preview: fps, latency, per-stage time bar, execution provider.

It paints a small translucent card in the preview's corner. Numbers come from
`FrameStats.snapshot()` a few times a second (a cheap read, not engine work).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

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
    showing_original: bool = False
    quality: str = ""  # the quality governor's step ("" when no target is set)
    quality_reason: str = ""
    enhancer_costs: tuple[str, ...] = ()  # measured per mode, e.g. "builtin: −8.0 fps, …"

    @staticmethod
    def from_snapshot(
        snap: StatsSnapshot,
        providers: Sequence[str],
        showing_original: bool = False,
        order: Sequence[str] = (),
        governor: GovernorStatus | None = None,
        enhancer_costs: Sequence[str] = (),
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
            showing_original=showing_original,
            quality=quality_step_text(governor),
            quality_reason=governor.reason if governor is not None and governor.active else "",
            enhancer_costs=tuple(enhancer_costs),
        )

    def lines(self) -> list[str]:
        provider = ", ".join(p.removesuffix("ExecutionProvider") for p in self.providers)
        return [
            f"{self.fps:4.1f} fps   latency p50 {self.latency_p50_ms:3.0f} ms · "
            f"p95 {self.latency_p95_ms:3.0f} ms",
            f"provider {provider or 'none (no models)'}   dropped {self.dropped}",
            *([self.quality] if self.quality else []),
            *([f"  {self.quality_reason}"] if self.quality_reason else []),
            *(f"enhancer {cost}" for cost in self.enhancer_costs),
        ]


def quality_step_text(governor: GovernorStatus | None) -> str:
    """The governor's step, e.g. `quality 1/3: enhancer off`, while a target is set."""
    if governor is None or not governor.active:
        return ""
    return f"quality {governor.step}/{governor.steps - 1}: {governor.name}"


def short_provider(name: str) -> str:
    return name.removesuffix("ExecutionProvider")


class HudOverlay(QWidget):
    """Child of the preview; transparent for the mouse so it never steals clicks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data = HudData()
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self._font = QFont(self.font())
        self._font.setPointSizeF(9.0)
        self._small = QFont(self._font)
        self._small.setPointSizeF(8.0)
        self.updates = 0
        self.resize(CARD_W, self._height())

    def _height(self) -> int:
        legend_rows = (len(self.data.stages) + 1) // 2
        return (
            2 * PAD
            + len(self.data.lines()) * 16
            + 8
            + 10
            + 4
            + legend_rows * 14
            + (16 if self.data.showing_original else 0)
        )

    def set_data(self, data: HudData) -> None:
        self.data = data
        self.updates += 1
        self.resize(CARD_W, self._height())
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(12, 13, 16, 190))
        p.drawRoundedRect(QRectF(self.rect()), 8, 8)
        p.setFont(self._font)
        p.setPen(QColor(230, 232, 236))
        y = PAD + 12
        metrics = p.fontMetrics()
        for line in self.data.lines():
            # Governor reasons can be long: elide rather than run off the card.
            shown = metrics.elidedText(line, Qt.TextElideMode.ElideRight, CARD_W - 2 * PAD)
            p.drawText(PAD, y, shown)
            y += 16
        y += 4
        self._paint_bar(p, QRectF(PAD, y, CARD_W - 2 * PAD, 10))
        y += 14 + 10
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
        if self.data.showing_original:
            p.setFont(self._font)
            p.setPen(QColor(240, 200, 90))
            p.drawText(PAD, self.height() - PAD, "ORIGINAL (release Space)")
        p.end()

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
