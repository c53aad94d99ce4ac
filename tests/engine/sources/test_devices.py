"""Camera names from Linux's sysfs. This machine has no video devices, so the tree is built
in a temp dir with sysfs's layout (a webcam under a USB device, a loopback device under
/virtual/, both linked from class/video4linux)."""

from __future__ import annotations

from pathlib import Path

from engine.sources.devices import camera_label, video_devices


def fake_sysfs(root: Path) -> Path:
    devices = {
        "video0": ("pci0000:00/usb1/1-1/video4linux/video0", "Integrated Webcam: Integrated C"),
        "video10": ("virtual/video4linux/video10", "Fusecam"),
    }
    klass = root / "class" / "video4linux"
    klass.mkdir(parents=True)
    for name, (where, label) in devices.items():
        target = root / "devices" / where
        target.mkdir(parents=True)
        (target / "name").write_text(label + "\n")
        (klass / name).symlink_to(target)
    (klass / "not-a-video").mkdir()
    return klass


def test_names_and_loopback_devices_come_from_sysfs(tmp_path: Path) -> None:
    devices = video_devices(fake_sysfs(tmp_path))
    assert [(d.index, d.name, d.virtual) for d in devices] == [
        (0, "Integrated Webcam: Integrated C", False),
        (10, "Fusecam", True),
    ]
    assert camera_label(0, devices) == "Integrated Webcam: Integrated C (camera 0)"
    assert camera_label(10, devices) == "Fusecam (virtual camera 10)"
    assert camera_label(3, devices) == "Camera 3"


def test_no_sysfs_means_no_names(tmp_path: Path) -> None:
    assert video_devices(tmp_path / "absent") == []
