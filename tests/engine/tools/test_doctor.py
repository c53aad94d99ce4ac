"""`fusecam doctor`'s checks on this machine: the real onnxruntime build, a real session,
the real CUDA provider library, a real socket."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from engine.models import gpu, onnx
from engine.tools import doctor

BUILD = gpu.ort_build()
needs_cuda_build = pytest.mark.skipif(not BUILD.has_cuda, reason="onnxruntime has no CUDA")


def by_title(checks: list[doctor.Check]) -> dict[str, doctor.Check]:
    return {check.title: check for check in checks}


NO_NVIDIA_GPU = not gpu.nvidia_gpu_present()
needs_no_gpu = pytest.mark.skipif(not NO_NVIDIA_GPU, reason="this machine has an NVIDIA GPU")


@needs_no_gpu
@needs_cuda_build
def test_without_a_gpu_auto_runs_on_the_cpu_and_that_is_fine() -> None:
    checks = by_title(doctor.run_checks("auto", port=0))
    runs = checks["models run on"]
    assert runs.status == "ok" and runs.detail.startswith("CPU (no NVIDIA GPU found)")
    # No driver or CUDA advice for a machine that has no NVIDIA card.
    assert "NVIDIA GPU" not in checks and "CUDA libraries" not in checks
    assert "CUDAExecutionProvider" not in onnx.requested_providers("auto")
    assert onnx.requested_providers("cuda")[0] == "CUDAExecutionProvider"  # asked: tried


@needs_no_gpu
@needs_cuda_build
def test_cuda_asked_for_without_a_gpu_says_what_would_be_needed() -> None:
    checks = by_title(doctor.run_checks("cuda", port=0))
    runs = checks["models run on"]
    assert runs.status == "warning" and runs.detail.startswith("CPU")
    gpu_check = checks["NVIDIA GPU"]
    assert "no NVIDIA GPU found" in gpu_check.detail
    assert f"CUDA {BUILD.cuda_version}" in gpu_check.detail
    minimum = gpu.driver_minimum(BUILD.cuda_major or "")
    assert minimum is not None and minimum in gpu_check.fix
    libraries = checks["CUDA libraries"]
    assert libraries.status == "warning"
    assert "libcuda.so.1: MISSING" in libraries.detail  # the driver's library
    assert f'"{BUILD.package}[cuda,cudnn]=={BUILD.version}"' in libraries.fix
    # Nothing is broken: the app runs, on the CPU.
    assert not [c for c in checks.values() if c.status == "problem"]


def _pci_device(root: Path, name: str, vendor: str, kind: str) -> None:
    device = root / name
    device.mkdir(parents=True)
    (device / "vendor").write_text(vendor + "\n")
    (device / "class").write_text(kind + "\n")


def test_an_nvidia_card_is_seen_on_the_pci_bus_without_its_driver(tmp_path: Path) -> None:
    # A stand-in for /sys/bus/pci/devices: this machine has no NVIDIA card to list.
    _pci_device(tmp_path, "0000:00:02.0", "0x8086", "0x030000")  # Intel graphics
    _pci_device(tmp_path, "0000:00:1f.3", "0x10de", "0x040300")  # NVIDIA HDMI audio
    assert gpu.nvidia_gpus_on_pci(tmp_path) == 0
    _pci_device(tmp_path, "0000:01:00.0", "0x10de", "0x030200")  # NVIDIA 3D controller
    assert gpu.nvidia_gpus_on_pci(tmp_path) == 1
    assert gpu.nvidia_gpus_on_pci(tmp_path / "absent") == 0


@needs_cuda_build
def test_the_required_libraries_come_from_the_installed_build() -> None:
    provider_lib = Path(gpu.ort.__file__).parent / "capi" / "libonnxruntime_providers_cuda.so"
    if not provider_lib.is_file():
        pytest.skip("not a Linux CUDA build")
    linked = gpu.elf_needed(provider_lib)
    assert f"libcudart.so.{BUILD.cuda_major}" in linked and "libc.so.6" in linked
    names = [lib.name for lib in gpu.cuda_libraries(BUILD)]
    assert f"libcudart.so.{BUILD.cuda_major}" in names
    assert "libc.so.6" not in names  # system libraries are not CUDA's
    assert any(name.startswith("libcudnn.so.") for name in names)  # dlopened, added


def test_elf_reader_refuses_what_is_not_elf(tmp_path: Path) -> None:
    text = tmp_path / "not.so"
    text.write_text("hello")
    assert gpu.elf_needed(text) == []
    assert gpu.elf_needed(tmp_path / "missing.so") == []


def test_cuda_fix_names_pip_packages_and_the_driver() -> None:
    build = gpu.OrtBuild("onnxruntime-gpu", "1.31.1", "13.0", ("CUDAExecutionProvider",), ())
    missing = [
        gpu.Library("libcublas.so.13", None, gpu.pip_package("libcublas.so.13", "13")),
        gpu.Library("libcuda.so.1", None, gpu.pip_package("libcuda.so.1", "13")),
    ]
    fix = doctor.cuda_fix(build, missing)
    assert "-m pip install nvidia-cublas" in fix
    assert "NVIDIA driver" in fix
    assert gpu.pip_package("libcudnn.so.9", "12") == "nvidia-cudnn-cu12"
    assert gpu.pip_package("libcublasLt.so.12", "12") == "nvidia-cublas-cu12"


def test_two_onnxruntime_builds_are_a_problem_with_the_fix() -> None:
    build = gpu.OrtBuild(
        "onnxruntime-gpu",
        "1.31.1",
        None,
        ("CPUExecutionProvider",),
        ("onnxruntime 1.31.1", "onnxruntime-gpu 1.31.1"),
    )
    check = doctor.onnxruntime_check(build)
    assert check.status == "problem"
    assert "pip uninstall -y onnxruntime onnxruntime-gpu" in check.fix
    assert check.fix.endswith("pip install onnxruntime-gpu==1.31.1")


def test_a_busy_stream_port_is_reported_with_another_port() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        check = doctor.stream_port_check(port)
    assert check.status == "warning"
    assert f"--stream {port + 1}" in check.fix
    assert doctor.stream_port_check(port).status == "ok"  # free again


def test_the_gui_message_only_when_a_gpu_was_asked_for() -> None:
    assert doctor.cpu_fallback_advice("cpu", ["CPUExecutionProvider"]) is None
    assert doctor.cpu_fallback_advice("cuda", ["CUDAExecutionProvider"]) is None
    if BUILD.has_cuda:
        advice = doctor.cpu_fallback_advice("cuda", ["CPUExecutionProvider"])
        assert advice is not None
        assert "CUDA was asked for, but the models run on the CPU" in advice
        missing = [lib for lib in gpu.cuda_libraries(BUILD) if not lib.found]
        if missing:
            assert missing[0].name in advice and "pip install" in advice
    if NO_NVIDIA_GPU:  # "auto" on a machine without a GPU: the CPU is the right answer
        assert doctor.cpu_fallback_advice("auto", ["CPUExecutionProvider"]) is None


def test_the_report_marks_each_status() -> None:
    text = doctor.format_report(
        [doctor.Check("a", "ok", "fine"), doctor.Check("b", "warning", "x\ny", "do z")]
    )
    assert text.splitlines() == ["[ok] a: fine", "[!!] b: x", "       y", "     fix: do z"]
