"""`fusecam models …` end to end: a custom manifest, a real HTTP server on 127.0.0.1 serving
the files, and the user data folder in a temporary directory."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from app.cli.main import main

BASE = b"base model bytes " * 5000
TOP = b"top model bytes " * 9000


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "www"
    root.mkdir()
    (root / "base.onnx").write_bytes(BASE)
    (root / "top.onnx").write_bytes(TOP)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, name="test-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def manifest(tmp_path: Path, served: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FUSECAM_DATA_DIR", str(tmp_path / "data"))

    def entry(name: str, data: bytes, **extra: object) -> dict[str, object]:
        return {
            "name": name,
            "file": f"{name}.onnx",
            "sha256": hashlib.sha256(data).hexdigest(),
            "size_bytes": len(data),
            "urls": [f"{served}/{name}.onnx"],
            "family": "arcface",
            "licence": "research only",
            "notice": f"{name} is for research use only.",
            **extra,
        }

    path = tmp_path / "manifest.json"
    models = [entry("base", BASE), entry("top", TOP, family="inswapper", requires=["base"])]
    path.write_text(json.dumps({"models": models}))
    return path


def _run(manifest: Path, *args: str) -> int:
    return main(["models", "--manifest", str(manifest), *args])


def test_list_shows_states_and_licences(manifest: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(manifest, "list") == 0
    out = capsys.readouterr().out
    assert "base" in out and "top" in out and "not downloaded" in out and "research only" in out


def test_download_needs_the_licence_accepted(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(manifest, "download", "top") == 1  # stdin is not a terminal under pytest
    err = capsys.readouterr().err
    assert "top is for research use only." in err and "pass --yes" in err
    assert not (tmp_path / "data" / "models" / "top.onnx").exists()


def test_download_fetches_requirements_and_verifies(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(manifest, "download", "top", "--yes") == 0
    err = capsys.readouterr().err
    models = tmp_path / "data" / "models"
    assert (models / "base.onnx").read_bytes() == BASE and (models / "top.onnx").read_bytes() == TOP
    assert err.index("base: downloaded") < err.index("top: downloaded")
    assert "100.0%" in err  # progress went to stderr
    assert _run(manifest, "verify") == 0
    out = capsys.readouterr().out
    assert "base: ok" in out and "top: ok" in out
    assert _run(manifest, "download", "top") == 0  # nothing to fetch: no prompt needed
    assert "top is ready" in capsys.readouterr().err


def test_verify_reports_a_mismatch(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = tmp_path / "data" / "models"
    models.mkdir(parents=True)
    (models / "base.onnx").write_bytes(BASE[:-1] + b"!")
    assert _run(manifest, "verify", "base") == 1
    assert "base: MISMATCH" in capsys.readouterr().out
    assert _run(manifest, "verify", "top") == 1
    assert "top: not downloaded" in capsys.readouterr().out


def test_path_prints_where_files_go(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(manifest, "path") == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "data" / "models")
    assert _run(manifest, "path", "top") == 1  # not there yet
    assert capsys.readouterr().out.strip() == str(tmp_path / "data" / "models" / "top.onnx")


def test_unknown_model_is_a_one_line_error(
    manifest: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(manifest, "download", "nothing", "--yes") == 2
    assert "unknown model 'nothing'; known models: base, top" in capsys.readouterr().err


def test_add_registers_a_user_supplied_enhancer(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A minimal GFPGAN-shaped model: 1×3×512×512 in and out.
    graph = helper.make_graph(
        [helper.make_node("Neg", ["input"], ["output"])],
        "gfpgan_like",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 512, 512])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 3, 512, 512])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    path = tmp_path / "GFPGANv1.4.onnx"
    onnx.save(model, str(path))
    assert _run(manifest, "add", str(path), "--family", "gfpgan") == 0
    assert capsys.readouterr().out.strip() == "user-gfpganv1.4"
    assert _run(manifest, "list") == 0
    assert "user supplied, unverified" in capsys.readouterr().out
    assert _run(manifest, "verify", "user-gfpganv1.4") == 0
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(np.zeros(100, np.uint8).tobytes())
    assert _run(manifest, "add", str(bad), "--family", "gfpgan") == 2
    assert "cannot be loaded" in capsys.readouterr().err
    assert _run(manifest, "remove", "user-gfpganv1.4") == 0


def test_hand_placed_files_are_checked_not_fetched_again(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = tmp_path / "data" / "models"
    models.mkdir(parents=True)
    (models / "base.onnx").write_bytes(BASE)  # good copy placed by hand
    (models / "top.onnx").write_bytes(TOP[:-1])  # damaged copy
    assert _run(manifest, "download", "top", "--yes") == 0
    err = capsys.readouterr().err
    assert "checking" in err and "will download top (" in err and "base: downloaded" not in err
    assert (models / "top.onnx").read_bytes() == TOP


# --- issue 14: errors that were tracebacks or walls of text -----------------------------------


def test_a_url_that_is_not_one_is_a_one_line_error(
    manifest: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: `models download --url notaurl` ended in a traceback."""
    with pytest.raises(SystemExit) as exit_info:
        _run(manifest, "download", "base", "--yes", "--url", "notaurl")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --url: 'notaurl' is not an https URL" in err and err.count("\n") == 1, err


def test_a_failing_download_says_each_url_once(
    manifest: Path, served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: every retry's failure repeated on one long line."""
    missing, closed = f"{served}/gone.onnx", "http://127.0.0.1:9/base.onnx"
    assert _run(manifest, "download", "base", "--yes", "--url", missing, "--url", closed) == 2
    err = capsys.readouterr().err
    failures = [line for line in err.splitlines() if line.startswith("  http")]
    assert failures[0] == f"  {missing}: HTTP 404 File not found", err  # not retried
    assert failures[1].startswith(f"  {closed}: ") and failures[1].endswith("(3 tries)"), err
    assert len(failures) == 2 and failures[1].count("refused") == 1, err


def test_a_corrupt_user_model_registry_does_not_block_the_list(
    manifest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: a corrupt user_models.json made `models list` fail."""
    registry = tmp_path / "data" / "models" / "user_models.json"
    registry.parent.mkdir(parents=True)
    for text in ('{"models": [', '{"models": [{"name": "x"}, 7]}'):
        registry.write_text(text)
        assert _run(manifest, "list") == 0
        out, err = capsys.readouterr()
        assert "base" in out and "top" in out
        assert "warning:" in err and str(registry) in err
        assert registry.read_text() == text  # left for the user to fix
