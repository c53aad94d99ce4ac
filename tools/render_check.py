"""Dev-time: draw the tick mark the style sheet puts in checked boxes and menu items
(app/gui/resources/icons/check.png and check@2x.png, which Qt picks on HiDPI screens).

Style sheets that colour an indicator replace the style's own drawing, tick included, so
the tick comes back as an image. Drawn here with QPainter (no SVG plugin needed at run
time, which the desktop bundle leaves out).

    .venv/bin/python tools/render_check.py
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QPen

ICONS = Path(__file__).resolve().parent.parent / "app" / "gui" / "resources" / "icons"
SIZE = 14  # px at 1x: the indicator's size in fusecam.qss


def tick(scale: int) -> QImage:
    size = SIZE * scale
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(QColor("#ffffff"), 2.2 * scale)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    s = size / 14
    painter.drawPolyline([QPointF(3.0 * s, 7.4 * s), QPointF(5.9 * s, 10.2 * s),
                          QPointF(11.0 * s, 4.0 * s)])  # fmt: skip
    painter.end()
    return image


def main() -> None:
    app = QGuiApplication([])
    for scale, name in ((1, "check.png"), (2, "check@2x.png")):
        tick(scale).save(str(ICONS / name))
        print(ICONS / name)
    del app


if __name__ == "__main__":
    main()
