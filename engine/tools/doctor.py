"""`fusecam doctor`: what this machine can run on and what is missing, each with the fix.

Checks, in the order a user meets them: the onnxruntime build, where the models really
run (a real session on a bundled model), the NVIDIA driver and the CUDA libraries the
installed build needs, the other accelerators, the virtual camera driver and the stream
port. Qt-free: the CLI prints the report, the GUI shows it in a dialog.
"""

from __future__ import annotations

import errno
import platform
import socket
import sys
from dataclasses import dataclass
from typing import Literal

from pyvirtualcam.camera import BACKENDS

from engine.core.paths import MODELS_DIR
from engine.core.settings import ExecutionProvider
from engine.models import gpu
from engine.models.onnx import ModelLoadError, load_model
from engine.outputs.stream.config import DEFAULT_PORT
from engine.outputs.virtualcam_help import driver_help
from engine.sources.devices import video_devices
from engine.tools import desktop_libs

Status = Literal["ok", "info", "warning", "problem"]
PROBE_MODEL = "face_detection_short_range"  # bundled and small: loads in milliseconds


@dataclass(frozen=True, slots=True)
class Check:
    title: str
    status: Status  # "warning": works, slower or with less; "problem": broken as installed
    detail: str
    fix: str = ""


def run_checks(provider: ExecutionProvider = "auto", port: int = DEFAULT_PORT) -> list[Check]:
    build = gpu.ort_build()
    present = gpu.nvidia_gpu_present()
    checks = [onnxruntime_check(build), runs_on_check(provider, present)]
    # CUDA advice only where it can help: an NVIDIA GPU is there, or CUDA was asked for.
    if build.has_cuda and (present or provider in ("cuda", "tensorrt")):
        checks += cuda_checks(build)
    checks += [other_accelerators_check(build)]
    if sys.platform == "linux":
        checks.append(desktop_libraries_check())
    checks += [virtual_camera_check(), stream_port_check(port)]
    return checks


def desktop_libraries_check(missing: list[str] | None = None) -> Check:
    """The X11 libraries Qt's window needs (Linux): without them the window cannot open."""
    missing = desktop_libs.missing_libraries() if missing is None else missing
    if not missing:
        return Check("desktop window", "ok", "the X11 (xcb) libraries Qt needs are installed")
    return Check(
        "desktop window",
        "warning",
        "missing X11 libraries: " + ", ".join(missing) + " — the window cannot open on X11 "
        "(headless `fusecam run` and `swap` work)",
        "\n".join(desktop_libs.install_commands(missing)),
    )


def onnxruntime_check(build: gpu.OrtBuild) -> Check:
    built = f", built for CUDA {build.cuda_version}" if build.cuda_version else ""
    detail = f"{build.package} {build.version}{built}; providers compiled in: " + ", ".join(
        _short(p) for p in build.providers
    )
    if len(build.installed) > 1:
        names = [entry.split()[0] for entry in build.installed]
        return Check(
            "onnxruntime",
            "problem",
            f"{detail}; several builds are installed over each other: "
            + ", ".join(build.installed),
            f'"{sys.executable}" -m pip uninstall -y {" ".join(names)} && '
            f'"{sys.executable}" -m pip install {build.package}=={build.version}',
        )
    return Check("onnxruntime", "ok", detail)


def runs_on_check(provider: ExecutionProvider, nvidia_gpu: bool = True) -> Check:
    """What a real session on a bundled model runs on: the truth, not the compiled list.
    Without an NVIDIA GPU, "auto" on the CPU is the right answer, not a fallback."""
    try:
        model = load_model(MODELS_DIR / f"{PROBE_MODEL}.onnx", name=PROBE_MODEL, provider=provider)
    except ModelLoadError as exc:
        return Check("models run on", "problem", str(exc), "reinstall Fusecam")
    runs = ", ".join(_short(p) for p in model.providers)
    asked = f"asked for {provider!r} ({_short(model.requested[0])} first)"
    if model.fell_back_to_cpu:
        return Check(
            "models run on",
            "warning",
            f"{runs} — {asked}, but it did not load; the checks below say why",
        )
    if not nvidia_gpu and model.providers[0] == "CPUExecutionProvider":
        return Check("models run on", "ok", f"CPU (no NVIDIA GPU found) — {asked}")
    return Check("models run on", "ok", f"{runs} — {asked}")


def cuda_checks(build: gpu.OrtBuild) -> list[Check]:
    major = build.cuda_major or "?"
    minimum = gpu.driver_minimum(major)
    need_driver = f"NVIDIA driver {minimum} or newer" if minimum else "a recent NVIDIA driver"
    version, gpus = gpu.nvidia_driver()
    on_pci = gpu.nvidia_gpus_on_pci()
    if version is None:
        found = (
            f"{on_pci} NVIDIA GPU(s) on the PCI bus, but no NVIDIA driver loaded"
            if on_pci
            else "no NVIDIA GPU found"
        )
        driver = Check(
            "NVIDIA GPU",
            "warning",
            f"{found} (no /proc/driver/nvidia, libcuda not loadable): "
            "CUDA cannot run on this machine and the models run on the CPU. To use CUDA: "
            f"an NVIDIA GPU with {need_driver}, CUDA {build.cuda_version} and cuDNN "
            f"libraries (below)",
            f"install {need_driver} (https://www.nvidia.com/drivers), then run "
            "`fusecam doctor` again",
        )
    else:
        names = ", ".join(gpus) or "GPU model not reported"
        driver = Check("NVIDIA GPU", "ok", f"driver {version}: {names} (needs {need_driver})")
    return [driver, cuda_libraries_check(build)]


def cuda_libraries_check(build: gpu.OrtBuild) -> Check:
    libraries = gpu.cuda_libraries(build)
    lines = [f"{lib.name}: {lib.location or 'MISSING'}" for lib in libraries]
    detail = (
        f"{build.package} {build.version} needs CUDA {build.cuda_version} and cuDNN "
        f"(pinned by its extras: {', '.join(gpu.extra_requirements(build)) or 'none'}):\n"
        + "\n".join(lines)
    )
    missing = [lib for lib in libraries if not lib.found]
    if not missing:
        return Check("CUDA libraries", "ok", detail)
    return Check("CUDA libraries", "warning", detail, cuda_fix(build, missing))


def cuda_fix(build: gpu.OrtBuild, missing: list[gpu.Library]) -> str:
    """One pip command for the libraries NVIDIA ships on PyPI; the driver is separate."""
    pinned = {req.split("~")[0].split("=")[0]: req for req in gpu.extra_requirements(build)}
    packages = []
    for lib in missing:
        if lib.pip_package is not None and lib.pip_package not in packages:
            packages.append(lib.pip_package)
    extras = [p for p in packages if p in pinned]
    others = [p for p in packages if p not in pinned]
    parts = []
    if extras:
        parts.append(f'"{build.package}[cuda,cudnn]=={build.version}"')
    parts += others
    steps = []
    if parts:
        steps.append(f'"{sys.executable}" -m pip install {" ".join(parts)}')
        steps.append(
            f"(or install CUDA {build.cuda_version} and cuDNN system-wide and put their "
            "lib folder on " + ("PATH)" if sys.platform == "win32" else "LD_LIBRARY_PATH)")
        )
    if any(lib.pip_package is None for lib in missing):
        steps.append("the NVIDIA driver library comes with the NVIDIA driver (see above)")
    return "\n".join(steps)


def other_accelerators_check(build: gpu.OrtBuild) -> Check:
    present = [p for p in ("DmlExecutionProvider", "OpenVINOExecutionProvider",
                           "CoreMLExecutionProvider") if p in build.providers]  # fmt: skip
    if present:
        return Check("other accelerators", "ok", ", ".join(_short(p) for p in present))
    if sys.platform == "win32":
        hint = 'AMD/Intel GPUs: `pip install "fusecam[directml]"` (see the README)'
    elif sys.platform == "darwin":
        hint = "CoreML comes with the standard onnxruntime on macOS"
    else:
        hint = 'Intel CPUs/GPUs: `pip install "fusecam[openvino]"` (see the README)'
    return Check("other accelerators", "info", f"none in this onnxruntime build; {hint}")


def virtual_camera_check() -> Check:
    if platform.system() == "Linux":
        loopback = [d for d in video_devices() if d.virtual]
        if not loopback:
            return Check(
                "virtual camera",
                "warning",
                "no v4l2loopback device (the module is not loaded)",
                driver_help("Linux"),
            )
        names = ", ".join(f"/dev/video{d.index} ({d.name})" for d in loopback)
        return Check("virtual camera", "ok", f"v4l2loopback: {names}")
    if not BACKENDS:
        return Check("virtual camera", "warning", "no virtual camera backend", driver_help())
    # Windows/macOS: only opening a camera proves the driver is installed.
    import pyvirtualcam

    try:
        with pyvirtualcam.Camera(64, 64, 30) as camera:
            found = f"{camera.backend}: {camera.device}"
    except Exception as exc:  # pyvirtualcam raises RuntimeError or backend-specific types
        return Check("virtual camera", "warning", str(exc).splitlines()[0], driver_help())
    return Check("virtual camera", "ok", found)


def stream_port_check(port: int) -> Check:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            used = exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1))
            why = "another program listens on it" if used else str(exc)
            return Check(
                "stream port",
                "warning",
                f"port {port} is not free: {why}",
                f"pick another port: `fusecam run --stream {port + 1}` (0: any free port), "
                "or Outputs → Stream port in the app",
            )
    return Check("stream port", "ok", f"port {port} on 127.0.0.1 is free")


def _short(provider: str) -> str:
    return provider.removesuffix("ExecutionProvider")


def format_report(checks: list[Check]) -> str:
    marks = {"ok": "ok", "info": "--", "warning": "!!", "problem": "XX"}
    lines = []
    for check in checks:
        detail = check.detail.replace("\n", "\n       ")
        lines.append(f"[{marks[check.status]}] {check.title}: {detail}")
        if check.fix:
            lines.append("     fix: " + check.fix.replace("\n", "\n          "))
    return "\n".join(lines)


def cpu_fallback_advice(requested: ExecutionProvider, providers: list[str]) -> str | None:
    """The GUI's message when a GPU was asked for and the models run on the CPU: what is
    missing and the fix. None when nothing was lost (CPU asked for, or "auto" on a
    machine without an NVIDIA driver, where the CPU is the right answer)."""
    if not providers or not all(p.startswith("CPU") for p in providers):
        return None
    build = gpu.ort_build()
    wants_nvidia = requested in ("cuda", "tensorrt") or (
        requested == "auto" and build.has_cuda and gpu.nvidia_gpu_present()
    )
    if not wants_nvidia:
        if requested in ("auto", "cpu"):
            return None
        return (
            f"{requested} was asked for, but this onnxruntime ({build.package}) has no "
            "such provider: the models run on the CPU. Help → System check says which "
            "build has it."
        )
    check = cuda_libraries_check(build) if build.has_cuda else None
    missing = [line.split(":")[0] for line in (check.detail if check else "").splitlines()
               if line.endswith("MISSING")]  # fmt: skip
    what = f"missing {', '.join(missing)}" if missing else "the CUDA provider did not load"
    fix = f" Fix: {check.fix.splitlines()[0]}" if check and check.fix else ""
    return (
        f"CUDA was asked for, but the models run on the CPU ({what}).{fix} "
        "Help → System check has the details."
    )
