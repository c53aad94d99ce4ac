"""Names of the video devices, where the OS tells them by the index OpenCV opens.

Linux only: /dev/videoN and /sys/class/video4linux/videoN/name are one device, so the name
belongs to the index for certain. On Windows and macOS the order of the OS's device list
(DirectShow, AVFoundation) is not promised to be OpenCV's, and a wrong name is worse than
"Camera N", so none is given there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SYSFS = Path("/sys/class/video4linux")


@dataclass(frozen=True, slots=True)
class VideoDevice:
    index: int  # N of /dev/videoN, the index OpenCV opens
    name: str
    virtual: bool  # a loopback device (v4l2loopback: a virtual camera, not a webcam)


def video_devices(root: Path = SYSFS) -> list[VideoDevice]:
    devices = []
    for entry in sorted(root.glob("video*")):
        found = re.fullmatch(r"video(\d+)", entry.name)
        if found is None:
            continue
        try:
            name = (entry / "name").read_text(errors="replace").strip()
            # Loopback devices have no hardware behind them: they live under /virtual/.
            virtual = "/virtual/" in str(entry.resolve())
        except OSError:
            continue
        devices.append(VideoDevice(int(found.group(1)), name or entry.name, virtual))
    return sorted(devices, key=lambda d: d.index)


def camera_label(index: int, devices: list[VideoDevice]) -> str:
    """'Integrated Webcam (camera 0)', or 'Camera 0' when the OS gives no name."""
    for device in devices:
        if device.index == index:
            kind = "virtual camera" if device.virtual else "camera"
            return f"{device.name} ({kind} {index})"
    return f"Camera {index}"
