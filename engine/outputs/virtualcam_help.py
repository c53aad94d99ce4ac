"""What to do when no virtual camera driver is found: exact steps for each OS."""

from __future__ import annotations

import platform

LINUX_DEVICE = "/dev/video10"

LINUX_HELP = f"""\
Fusecam writes to a v4l2loopback device; none is loaded. Install and load it:
  sudo apt install v4l2loopback-dkms          # Debian/Ubuntu
  sudo dnf install akmod-v4l2loopback         # Fedora (RPM Fusion)
  sudo pacman -S v4l2loopback-dkms            # Arch
  sudo modprobe v4l2loopback devices=1 video_nr=10 card_label="Fusecam" exclusive_caps=1
exclusive_caps=1 is what lets Chrome, Zoom and Meet list the camera. Then run
  fusecam run --virtual-cam {LINUX_DEVICE}
To load it at every boot:
  echo v4l2loopback | sudo tee /etc/modules-load.d/v4l2loopback.conf
  echo 'options v4l2loopback devices=1 video_nr=10 card_label="Fusecam" exclusive_caps=1' \\
    | sudo tee /etc/modprobe.d/v4l2loopback.conf
With Secure Boot on, the DKMS module must be signed (enrol the key when the installer asks).
"Permission denied" on {LINUX_DEVICE}: sudo usermod -aG video $USER, then log in again."""

WINDOWS_HELP = """\
Fusecam sends frames to the OBS Virtual Camera or to Unity Capture; neither was found.
  Either install OBS Studio 26 or newer (https://obsproject.com), open it once, click
  "Start Virtual Camera", then "Stop Virtual Camera" and close OBS (the camera stays
  installed; OBS must not run its own virtual camera while Fusecam uses it);
  or install Unity Capture (https://github.com/schellingb/UnityCapture): run
  Install\\Install.bat as administrator, then pass --virtual-cam "Unity Video Capture".
In Zoom, Teams or the browser, pick "OBS Virtual Camera" (or "Unity Video Capture")."""

MACOS_HELP = """\
Fusecam sends frames to the OBS Virtual Camera; it was not found or is not allowed.
  Install OBS Studio 30 or newer (https://obsproject.com) into /Applications, open it,
  click "Start Virtual Camera" and allow the camera extension when asked (System Settings
  > General > Login Items & Extensions > Camera Extensions on macOS 15; Privacy &
  Security on macOS 13-14), then "Stop Virtual Camera" and quit OBS.
Restart Zoom or the browser afterwards and pick "OBS Virtual Camera"."""

OTHER_HELP = """\
No virtual camera backend exists for this operating system. Use the network stream
instead (fusecam run --stream 8080) and open http://127.0.0.1:8080/stream.mjpg in OBS."""


def driver_help(system: str | None = None) -> str:
    """Setup steps for `system` (a `platform.system()` name; default: this machine)."""
    system = system or platform.system()
    return {"Linux": LINUX_HELP, "Windows": WINDOWS_HELP, "Darwin": MACOS_HELP}.get(
        system, OTHER_HELP
    )


def normalize_device(device: str | None, system: str | None = None) -> str | None:
    """Accept a bare loopback number on Linux ("10" → "/dev/video10"); else as given."""
    if device is None or device == "":
        return None
    system = system or platform.system()
    if system == "Linux" and device.isdigit():
        return f"/dev/video{device}"
    return device
