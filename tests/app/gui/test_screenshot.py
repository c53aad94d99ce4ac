"""`fusecam --demo --screenshot OUT.png --quit-after-ms N`, headless, as docs and CI run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2


def test_screenshot_command_writes_the_window(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env["FUSECAM_CONFIG_DIR"] = str(tmp_path / "config")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "--demo",
            "--screenshot",
            str(out),
            "--quit-after-ms",
            "300",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    image = cv2.imread(str(out))
    assert image is not None and image.shape[0] >= 600 and image.shape[1] >= 1000
    # The preview (upper left) holds real frames, not the empty dark canvas.
    preview = image[60:500, 20:880]
    assert preview.std() > 20 and preview.mean() > 50
    # No first-launch notice blocked it, and a screenshot run saves no settings.
    assert not (tmp_path / "config" / "settings.json").exists()
