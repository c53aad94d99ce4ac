"""`fusecam models …`: list, download, verify, locate and register neural models."""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from app.cli.options import Subparsers
from engine.models import (
    FAMILIES,
    ModelError,
    ModelStatus,
    ModelStore,
    download_model,
    load_manifest,
    needs_licence_acceptance,
)
from engine.models.manifest import MANIFEST_PATH, ModelSpec, url_allowed
from engine.neural.signature import register_user_model


def add_parser(sub: Subparsers) -> None:
    models = sub.add_parser(
        "models",
        help="list, download and verify the optional neural models",
        description="Neural models are optional; nothing downloads unless you ask for it "
        "here. Downloads resume and are checked against the SHA-256 pinned in Fusecam's "
        "manifest.",
    )
    models.add_argument("--manifest", type=Path, default=MANIFEST_PATH, help=argparse.SUPPRESS)
    action = models.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    action.add_parser("list", help="every known model and its state")
    get = action.add_parser("download", help="download a model (and what it needs)")
    get.add_argument("name", metavar="NAME")
    get.add_argument("--yes", action="store_true", help="accept the licence notice(s)")
    get.add_argument(
        "--url",
        action="append",
        type=_mirror_url,
        metavar="URL",
        help="download from this mirror instead (the pinned hash still applies)",
    )
    check = action.add_parser("verify", help="hash model files against the pinned SHA-256")
    check.add_argument("name", nargs="?", metavar="NAME")
    where = action.add_parser("path", help="the models folder, or one model's file")
    where.add_argument("name", nargs="?", metavar="NAME")
    add = action.add_parser("add", help="register a model file you supply (e.g. GFPGAN)")
    add.add_argument("path", type=Path, metavar="FILE.onnx")
    add.add_argument("--family", required=True, choices=FAMILIES)
    add.add_argument("--name", metavar="NAME", help="name to use (default: from the file)")
    remove = action.add_parser("remove", help="forget a model registered with `add`")
    remove.add_argument("name", metavar="NAME")


def _mirror_url(text: str) -> str:
    if not url_allowed(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an https URL (plain http only to this machine)"
        )
    return text


def _mb(size: int | None) -> str:
    return "?" if size is None else f"{size / 1e6:.1f} MB"


def _print_table(statuses: list[ModelStatus], out: TextIO) -> None:
    rows = [
        (s.spec.name, s.spec.family or "-", _mb(s.spec.size_bytes), s.label, s.spec.licence)
        for s in statuses
    ]
    header = ("NAME", "FAMILY", "SIZE", "STATUS", "LICENCE")
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(4)]
    for row in (header, *rows):
        cells = [cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)]
        print("  ".join((*cells, row[4])).rstrip(), file=out)


class _Progress:
    """One self-overwriting line on stderr, redrawn at most 10 times a second."""

    def __init__(self, name: str, err: TextIO) -> None:
        self.name = name
        self.err = err
        self.last = 0.0

    def __call__(self, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - self.last < 0.1 and done != total:
            return
        self.last = now
        share = f"{100 * done / total:5.1f}% " if total else ""
        print(f"\r  {self.name}: {share}{_mb(done)} of {_mb(total)}", end="", file=self.err)

    def finish(self) -> None:
        print(file=self.err)


def _confirm(specs: list[ModelSpec], assume_yes: bool, err: TextIO) -> bool:
    for spec in specs:
        notice = textwrap.fill(spec.notice, 88, initial_indent="  ", subsequent_indent="  ")
        print(f"\n{spec.name} — {spec.licence}\n{notice}", file=err)
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        print("fusecam: not a terminal; pass --yes to accept the notice above", file=err)
        return False
    answer = input("Accept these terms and download? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _cmd_download(store: ModelStore, args: argparse.Namespace, err: TextIO) -> int:
    wanted = store.requirements(args.name)
    states: dict[str, ModelStatus] = {}
    for spec in wanted:
        status = store.status_of(spec)
        if status.state == "unverified":  # placed by hand: accepted if its hash matches
            print(f"fusecam: checking {status.path} …", file=err)
            status = store.verify(spec.name)
        states[spec.name] = status
    to_fetch = [s for s in wanted if states[s.name].state != "ready"]
    if not to_fetch:
        print(f"fusecam: {args.name} is ready", file=err)
        return 0
    total = sum(s.size_bytes or 0 for s in to_fetch)
    print(
        f"fusecam: will download {', '.join(s.name for s in to_fetch)} ({_mb(total)}) "
        f"into {store.models_dir}",
        file=err,
    )
    needs_notice = [s for s in to_fetch if needs_licence_acceptance(s)]
    if needs_notice and not _confirm(needs_notice, args.yes, err):
        print("fusecam: nothing downloaded", file=err)
        return 1
    for spec in to_fetch:
        progress = _Progress(spec.name, err)
        urls = tuple(args.url) if args.url and spec.name == args.name else None
        try:
            result = download_model(
                store, spec.name, accept_licence=True, progress=progress, urls=urls
            )
        finally:
            progress.finish()
        print(f"fusecam: {spec.name}: downloaded: {result.path}", file=err)
    return 0


def _cmd_verify(store: ModelStore, name: str | None, out: TextIO) -> int:
    names = [name] if name else [s.spec.name for s in store.list_status() if s.size_on_disk]
    failed = 0
    for model in names:
        status = store.verify(model)
        if status.state == "ready":
            print(f"{model}: ok ({status.path})", file=out)
        elif status.state == "corrupt":
            failed += 1
            print(f"{model}: MISMATCH — {status.detail} ({status.path})", file=out)
        else:
            failed += 1
            print(f"{model}: {status.label} ({status.path})", file=out)
    if not names:
        print("no model files to verify", file=out)
    return 1 if failed else 0


def _cmd_list(store: ModelStore, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    for problem in store.registry_problems():
        print(f"fusecam: warning: {problem}", file=err)
    _print_table(store.list_status(), out)
    print(f"\ndownloaded models live in {store.models_dir}", file=out)
    return 0


def _cmd_path(store: ModelStore, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    path = store.path(args.name) if args.name else store.models_dir
    print(path, file=out)
    return 0 if args.name is None or path.is_file() else 1


def _cmd_add(store: ModelStore, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    spec = register_user_model(store, args.path, args.family, args.name)
    print(
        f"fusecam: registered {spec.name} ({spec.family}, user supplied, "
        f"unverified): {spec.local_path}",
        file=err,
    )
    print(spec.name, file=out)
    return 0


def _cmd_remove(store: ModelStore, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if store.unregister_user_model(args.name):
        return 0
    print(f"fusecam: error: {args.name!r} is not a registered user model", file=err)
    return 2


_Command = Callable[[ModelStore, argparse.Namespace, TextIO, TextIO], int]
_COMMANDS: dict[str, _Command] = {
    "list": _cmd_list,
    "download": lambda store, args, out, err: _cmd_download(store, args, err),
    "verify": lambda store, args, out, err: _cmd_verify(store, args.name, out),
    "path": _cmd_path,
    "add": _cmd_add,
    "remove": _cmd_remove,
}


def run_models(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout  # looked up per call, so redirected streams are honoured
    err = err or sys.stderr
    try:
        store = ModelStore(load_manifest(args.manifest))
        return _COMMANDS[args.models_command](store, args, out, err)
    except ModelError as exc:
        print(f"fusecam: error: {exc}", file=err)
        return 2
