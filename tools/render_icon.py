"""Dev-time: render the app icon (app/gui/resources/icons/fusecam.svg) to the files the
window, the desktop entry and the bundles use: PNGs (16…512 px), a Windows .ico and a
macOS .icns, both holding PNG images (Windows Vista+ and macOS 10.7+ read those).

    .venv/bin/python tools/render_icon.py
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "app" / "gui" / "resources" / "icons"
SVG = ICONS / "fusecam.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 32, 48, 256)
ICNS_TYPES = {32: b"ic11", 64: b"ic12", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render(renderer: QSvgRenderer, size: int) -> bytes:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    header = struct.pack("<HHH", 0, 1, len(ICO_SIZES))
    offset = 6 + 16 * len(ICO_SIZES)
    entries, blobs = b"", b""
    for size in ICO_SIZES:
        blob = pngs[size]
        side = size % 256  # 0 means 256 in an ICO directory
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    body = b"".join(
        kind + struct.pack(">I", len(pngs[size]) + 8) + pngs[size]
        for size, kind in ICNS_TYPES.items()
    )
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def main() -> int:
    app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"cannot read {SVG}", file=sys.stderr)
        return 1
    pngs = {size: render(renderer, size) for size in PNG_SIZES}
    for size, blob in pngs.items():
        (ICONS / f"fusecam-{size}.png").write_bytes(blob)
    packaging = ROOT / "packaging"
    (packaging / "fusecam.ico").write_bytes(ico(pngs))
    (packaging / "fusecam.icns").write_bytes(icns(pngs))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
