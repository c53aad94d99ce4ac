"""The X11 libraries Qt's window needs: read from the installed plugin, looked up with the
real dynamic loader, and turned into install commands per distribution."""

from __future__ import annotations

import sys

import pytest

from engine.tools import desktop_libs, doctor

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="X11 libraries are Linux's")


@linux_only
def test_what_qt_needs_is_read_from_its_xcb_plugin() -> None:
    files = desktop_libs.qt_xcb_files()
    if not files:
        pytest.skip("this PySide6 has no xcb plugin")
    needed = desktop_libs.needed_libraries(files)
    assert "libxcb.so.1" in needed
    assert "libxcb-cursor.so.0" in needed  # opened at run time, added
    assert not [n for n in needed if n.startswith("libQt6")]  # Qt's own come with Qt
    # Every library Qt links to has its package named for each distribution.
    assert [n for n in needed if n not in desktop_libs.PACKAGES] == []


@linux_only
def test_the_loader_finds_what_exists_and_not_what_does_not() -> None:
    absent = "libxcb-fusecam-absent.so.9"
    assert desktop_libs.missing_libraries(["libc.so.6", absent]) == [absent]


def test_install_commands_name_the_exact_packages() -> None:
    lines = desktop_libs.install_commands(["libxcb-cursor.so.0", "libxcb-icccm.so.4"])
    assert lines[0].startswith("sudo apt install libxcb-cursor0 libxcb-icccm4 ")
    assert lines[1].startswith("sudo dnf install xcb-util-cursor xcb-util-wm ")
    assert lines[2].startswith("sudo pacman -S xcb-util-cursor xcb-util-wm ")
    unknown = desktop_libs.install_commands(["libxcb-new.so.1"])
    assert unknown == [
        "and the packages providing libxcb-new.so.1 "
        "(Debian: apt-file search NAME; Fedora: dnf provides '*/NAME')"
    ]


def test_doctor_reports_missing_libraries_with_the_fix() -> None:
    check = doctor.desktop_libraries_check(["libxcb-cursor.so.0"])
    assert check.status == "warning" and "libxcb-cursor.so.0" in check.detail
    assert "sudo apt install libxcb-cursor0" in check.fix
    assert doctor.desktop_libraries_check([]).status == "ok"


def test_xcb_is_only_assumed_for_an_x11_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert not desktop_libs.uses_xcb()
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    assert desktop_libs.uses_xcb()
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert not desktop_libs.uses_xcb()  # Qt takes Wayland
    monkeypatch.delenv("WAYLAND_DISPLAY")
    assert desktop_libs.uses_xcb()
