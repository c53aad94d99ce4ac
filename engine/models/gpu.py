"""What the installed onnxruntime is, and what its CUDA build still needs to run on a GPU.

onnxruntime-gpu lists CUDAExecutionProvider whether or not the CUDA libraries exist and
then quietly runs on the CPU. The requirement is read from the installed build itself,
never from a table that goes stale with the next release: the CUDA version it was built
for (`onnxruntime.capi.build_and_package_info`), the libraries its CUDA provider is
linked against (the ELF `DT_NEEDED` entries of libonnxruntime_providers_cuda.so) and the
NVIDIA pip packages its own `[cuda,cudnn]` extras pin (its installed metadata).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.metadata
import io
import logging
import platform
import re
import struct
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import onnxruntime as ort

log = logging.getLogger(__name__)

# Every onnxruntime build ships the same `onnxruntime` import package; two installed at
# once overwrite each other's files.
ORT_DISTRIBUTIONS = (
    "onnxruntime",
    "onnxruntime-gpu",
    "onnxruntime-directml",
    "onnxruntime-openvino",
    "onnxruntime-silicon",
)
# cuDNN is opened with dlopen, so it is not among the linked libraries; the major version
# comes from the build's `cudnn` extra when it has one (9 since onnxruntime 1.19).
DEFAULT_CUDNN_MAJOR = "9"
# Minimum NVIDIA driver per CUDA major version (Linux, Windows), from NVIDIA's CUDA
# toolkit release notes (table "CUDA Toolkit and Corresponding Driver Versions").
DRIVER_MINIMUM = {"12": ("525.60.13", "528.33"), "13": ("580.65.06", "580.88")}
_LIB_PACKAGES = (  # library name fragment → NVIDIA pip package stem ("{suffix}" added)
    ("cublas", "nvidia-cublas{suffix}"),
    ("cudart", "nvidia-cuda-runtime{suffix}"),
    ("curand", "nvidia-curand{suffix}"),
    ("cufft", "nvidia-cufft{suffix}"),
    ("nvrtc", "nvidia-cuda-nvrtc{suffix}"),
    ("cudnn", "nvidia-cudnn-cu{major}"),
)


@dataclass(frozen=True, slots=True)
class OrtBuild:
    package: str  # the distribution this onnxruntime came from, e.g. "onnxruntime-gpu"
    version: str
    cuda_version: str | None  # what a CUDA build was compiled against, e.g. "13.0"
    providers: tuple[str, ...]  # compiled in; not a promise that they load
    installed: tuple[str, ...]  # every onnxruntime distribution present ("name version")

    @property
    def cuda_major(self) -> str | None:
        return self.cuda_version.split(".")[0] if self.cuda_version else None

    @property
    def has_cuda(self) -> bool:
        return "CUDAExecutionProvider" in self.providers


@dataclass(frozen=True, slots=True)
class Library:
    name: str  # file name the loader looks for, e.g. "libcudnn.so.9"
    location: str | None  # where it was found; None: missing
    pip_package: str | None  # the NVIDIA pip package that ships it; None: the driver

    @property
    def found(self) -> bool:
        return self.location is not None


def ort_build() -> OrtBuild:
    info = _build_info()
    installed = []
    for dist in ORT_DISTRIBUTIONS:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            installed.append(f"{dist} {importlib.metadata.version(dist)}")
    return OrtBuild(
        package=str(getattr(info, "package_name", "onnxruntime")),
        version=ort.__version__,
        cuda_version=getattr(info, "cuda_version", None) or None,
        providers=tuple(ort.get_available_providers()),
        installed=tuple(installed),
    )


def _build_info() -> object:
    try:
        from onnxruntime.capi import build_and_package_info
    except ImportError:  # very old builds
        return object()
    return build_and_package_info


def extra_requirements(build: OrtBuild, extras: tuple[str, ...] = ("cuda", "cudnn")) -> list[str]:
    """The pip requirements (`name~=version`) that the build's own extras pin."""
    requires = _requires(build.package)
    wanted = []
    for line in requires:
        spec, _, marker = line.partition(";")
        if any(re.search(rf"extra\s*==\s*['\"]{e}['\"]", marker) for e in extras):
            wanted.append(spec.strip().replace(" ", ""))
    return wanted


def _requires(package: str) -> list[str]:
    try:
        return importlib.metadata.requires(package) or []
    except importlib.metadata.PackageNotFoundError:
        return []


def cuda_libraries(build: OrtBuild) -> list[Library]:
    """The libraries the CUDA provider needs, each found (with where) or missing."""
    major = build.cuda_major
    if not build.has_cuda or major is None:
        return []
    cudnn = DEFAULT_CUDNN_MAJOR
    for req in extra_requirements(build, ("cudnn",)):
        found = re.search(r"cudnn[^~=<>]*[~=<>]=?(\d+)", req)
        cudnn = found.group(1) if found else cudnn
    if sys.platform == "win32":
        names = [
            f"cublasLt64_{major}.dll",
            f"cublas64_{major}.dll",
            f"cudart64_{major}.dll",
            "curand64_10.dll",
            f"cudnn64_{cudnn}.dll",
            "nvcuda.dll",
        ]
    else:
        linked = elf_needed(Path(ort.__file__).parent / "capi" / "libonnxruntime_providers_cuda.so")
        names = [n for n in linked if n.startswith(("libcu", "libnv"))]
        names.append(f"libcudnn.so.{cudnn}")
    return [Library(n, find_library(n), pip_package(n, major)) for n in names]


def pip_package(library: str, cuda_major: str) -> str | None:
    suffix = "" if int(cuda_major) >= 13 else f"-cu{cuda_major}"
    for fragment, package in _LIB_PACKAGES:
        if fragment in library.lower():
            return package.format(suffix=suffix, major=cuda_major)
    return None  # libcuda / nvcuda: the NVIDIA driver, not a pip package


def find_library(name: str) -> str | None:
    """Where `name` loads from: an NVIDIA pip package folder or the system's search path."""
    for folder in _nvidia_pip_folders():
        for candidate in folder.glob(f"*/**/{name}"):
            return str(candidate)
    try:
        ctypes.CDLL(name)
    except OSError:
        return None
    return _loaded_from(name) or "the system library path"


def _loaded_from(name: str) -> str | None:
    """The file a library just loaded from (Linux: this process's memory map)."""
    maps = Path("/proc/self/maps")
    if not maps.is_file():
        return None
    for line in maps.read_text().splitlines():
        if line.endswith("/" + name) or f"/{name}." in line:
            return line.split(maxsplit=5)[-1]
    return None


def _nvidia_pip_folders() -> list[Path]:
    return [Path(p) / "nvidia" for p in sys.path if (Path(p) / "nvidia").is_dir()]


def elf_needed(path: Path) -> list[str]:
    """The `DT_NEEDED` entries of a 64-bit little-endian ELF file ([] if it is not one).

    Reads only the section headers, the dynamic section and its string table."""
    try:
        with path.open("rb") as f:
            header = f.read(64)
            if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
                return []
            (shoff,) = struct.unpack_from("<Q", header, 0x28)
            shentsize, shnum = struct.unpack_from("<HH", header, 0x3A)
            f.seek(shoff)
            table = f.read(shentsize * shnum)
            sections = [
                struct.unpack_from("<IIQQQQIIQQ", table, i * shentsize) for i in range(shnum)
            ]
            for _, kind, _, _, offset, size, link, _, _, _ in sections:
                if kind == 6:  # SHT_DYNAMIC
                    f.seek(offset)
                    dynamic = f.read(size)
                    f.seek(sections[link][4])
                    strings = f.read(sections[link][5])
                    return _needed(dynamic, strings)
    except (OSError, struct.error, IndexError):
        return []
    return []


def _needed(dynamic: bytes, strings: bytes) -> list[str]:
    names = []
    for tag, value in struct.iter_unpack("<qQ", dynamic[: len(dynamic) // 16 * 16]):
        if tag == 1:  # DT_NEEDED
            names.append(strings[value : strings.index(b"\0", value)].decode())
    return names


def nvidia_driver() -> tuple[str | None, list[str]]:
    """(driver version, GPU names) as the loaded NVIDIA kernel driver reports them (Linux);
    elsewhere whether the driver library loads: ("present", [])."""
    proc = Path("/proc/driver/nvidia")
    if proc.is_dir():
        text = (
            (proc / "version").read_text(errors="replace") if (proc / "version").is_file() else ""
        )
        found = re.search(r"Kernel Module\s+(?:for \S+\s+)?([\d.]+)", text)
        gpus = []
        for info in sorted((proc / "gpus").glob("*/information")):
            model = re.search(r"Model:\s*(.+)", info.read_text(errors="replace"))
            gpus.append(model.group(1).strip() if model else info.parent.name)
        return (found.group(1) if found else "unknown version"), gpus
    if sys.platform != "linux" and find_library(_driver_library()) is not None:
        return "present", []
    return None, []


NVIDIA_PCI_VENDOR = "0x10de"
PCI_DISPLAY_CLASS = "0x03"  # VGA, 3D and other display controllers


def nvidia_gpus_on_pci(devices: Path = Path("/sys/bus/pci/devices")) -> int:
    """How many NVIDIA display controllers the PCI bus lists (Linux; 0 elsewhere). Sees a
    card whose driver is not installed, which the driver checks cannot."""
    if not devices.is_dir():
        return 0
    count = 0
    for device in devices.iterdir():
        try:
            vendor = (device / "vendor").read_text().strip().lower()
            kind = (device / "class").read_text().strip().lower()
        except OSError:
            continue
        count += vendor == NVIDIA_PCI_VENDOR and kind.startswith(PCI_DISPLAY_CLASS)
    return count


@cache
def nvidia_gpu_present() -> bool:
    """Whether this machine has an NVIDIA GPU, driver or not. Without one the CPU is the
    right place for the models, and nothing about CUDA is worth saying."""
    return nvidia_driver()[0] is not None or nvidia_gpus_on_pci() > 0


def _driver_library() -> str:
    return "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def driver_minimum(cuda_major: str) -> str | None:
    versions = DRIVER_MINIMUM.get(cuda_major)
    if versions is None:
        return None
    return versions[1] if platform.system() == "Windows" else versions[0]


@cache
def preload_cuda_libraries() -> None:
    """Make CUDA libraries from NVIDIA's pip packages loadable (`fusecam[cuda]` installs
    them outside the system search path); onnxruntime's own loader does it. Once."""
    if not _nvidia_pip_folders() or not hasattr(ort, "preload_dlls"):
        return
    said = io.StringIO()
    with contextlib.redirect_stdout(said):  # it prints; we log
        ort.preload_dlls()
    for line in said.getvalue().splitlines():
        log.info("onnxruntime.preload_dlls: %s", line)
