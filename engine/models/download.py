"""Downloading a model the user asked for: resumable, verified, then renamed into place.

Bytes go to `FILE.part` (resumed with an HTTP Range request when it exists), are hashed
while they arrive, and the file is renamed to its final name only when the SHA-256 matches
the hash pinned in the manifest. A mismatch deletes the `.part` file and says so. Nothing
here runs unless a caller asks for a specific model; there is no background fetching.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

from engine.core.atomic import describe_os_error
from engine.models.errors import (
    ChecksumMismatch,
    DownloadCancelled,
    DownloadError,
    LicenceNotAccepted,
)
from engine.models.hashing import CancelCheck, ProgressCallback, write_stamp
from engine.models.manifest import ModelSpec, url_allowed
from engine.models.store import ModelStore

log = logging.getLogger(__name__)

USER_AGENT = "fusecam-model-manager/0.1"
CHUNK_BYTES = 256 * 1024
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


@dataclass(frozen=True, slots=True)
class DownloadResult:
    name: str
    path: Path
    already_present: bool  # the file was there (downloaded before or placed by hand)
    url: str | None = None
    bytes_fetched: int = 0
    resumed_from: int = 0


class _Interrupted(Exception):
    """This URL failed; `retry` says whether asking the same URL again may help."""

    def __init__(self, message: str, *, retry: bool = True) -> None:
        super().__init__(message)
        self.retry = retry


def needs_licence_acceptance(spec: ModelSpec) -> bool:
    return bool(spec.notice) and spec.downloadable


def download_model(
    store: ModelStore,
    name: str,
    *,
    accept_licence: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    urls: tuple[str, ...] | None = None,
    retries: int = 2,
    timeout_s: float = 30.0,
) -> DownloadResult:
    """Fetch `name` into the user's models folder (only `name`; see store.requirements).

    `accept_licence` must be True for a model with a licence notice: the caller confirms
    the user was shown `spec.notice`. `progress(done, total)` is called from this thread;
    `cancel()` is polled between chunks and raises DownloadCancelled, keeping the `.part`
    file for a later resume. `urls` overrides the manifest's mirrors (the hash still rules).
    """
    spec = store.spec(name)
    if spec.bundled:
        raise DownloadError(f"model {name!r} is bundled with Fusecam; nothing to download")
    if spec.user_supplied:
        raise DownloadError(f"model {name!r} is user supplied; there is nothing to download")
    final = store.path_of(spec)
    if final.is_file():
        status = store.verify(name, cancel=cancel)
        if status.state == "ready":
            return DownloadResult(name, final, already_present=True)
        log.warning("model %s: %s; downloading a fresh copy", name, status.detail)
    mirrors = _mirrors(store, spec, urls, accept_licence)
    store.models_dir.mkdir(parents=True, exist_ok=True)
    fetch = _Fetch(spec, store.part_path(spec), final, progress, cancel, timeout_s)
    for url in mirrors:
        result = fetch.from_mirror(url, retries, only_mirror=len(mirrors) == 1)
        if result is not None:
            return result
    part = fetch.part
    kept = f" ({part.stat().st_size} bytes kept in {part} to resume)" if part.is_file() else ""
    raise DownloadError(f"model {name!r} could not be downloaded{kept}:\n" + fetch.summary())


def download_missing(
    store: ModelStore,
    name: str,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
) -> list[str]:
    """`name` and every model it needs that is not ready yet, dependencies first; the
    caller has shown each one's licence notice and the user accepted them by asking.
    Returns the names fetched."""
    fetched = []
    for spec in store.requirements(name):
        if not spec.downloadable or store.status_of(spec).state == "ready":
            continue
        download_model(store, spec.name, accept_licence=True, progress=progress, cancel=cancel)
        fetched.append(spec.name)
    return fetched


def _mirrors(
    store: ModelStore, spec: ModelSpec, urls: tuple[str, ...] | None, accept_licence: bool
) -> tuple[str, ...]:
    """Where to download from; refuses a model without a URL or an unconfirmed licence."""
    mirrors = tuple(dict.fromkeys(urls)) if urls else spec.urls  # each once
    for url in mirrors:
        if not url_allowed(url):
            raise DownloadError(
                f"--url {url!r} is not an https URL (plain http only to this machine)"
            )
    if not mirrors:
        raise DownloadError(
            f"model {spec.name!r} has no download URL; place {spec.file} "
            f"(SHA-256 {spec.sha256}) in {store.models_dir}"
        )
    if needs_licence_acceptance(spec) and not accept_licence:
        raise LicenceNotAccepted(
            f"model {spec.name!r}: show the licence notice and confirm it first ({spec.licence})"
        )
    return mirrors


@dataclass(slots=True)
class _Fetch:
    """One model's download: tries mirrors in turn, resuming the `.part` file."""

    spec: ModelSpec
    part: Path
    final: Path
    progress: ProgressCallback | None
    cancel: CancelCheck | None
    timeout_s: float
    failures: dict[str, list[str]] = field(default_factory=dict)  # url → what each try got

    def failed(self, url: str, reason: str) -> None:
        self.failures.setdefault(url, []).append(reason)

    def summary(self) -> str:
        """One line per URL, each reason once ("… (3 tries)" when it repeated)."""
        lines = []
        for url, reasons in self.failures.items():
            distinct = list(dict.fromkeys(reasons))
            tries = f" ({len(reasons)} tries)" if len(reasons) > 1 else ""
            lines.append(f"  {url}: {'; '.join(distinct)}{tries}")
        return "\n".join(lines)

    def from_mirror(self, url: str, retries: int, *, only_mirror: bool) -> DownloadResult | None:
        """The finished download from `url`, or None to try the next mirror."""
        spec = self.spec
        for attempt in range(retries + 1):
            resumed_from = self.part.stat().st_size if self.part.is_file() else 0
            try:
                fetched = _fetch(
                    url,
                    self.part,
                    spec,
                    progress=self.progress,
                    cancel=self.cancel,
                    timeout_s=self.timeout_s,
                )
            except _Interrupted as exc:
                self.failed(url, str(exc))
                log.info(
                    "model %s: attempt %d from %s failed: %s", spec.name, attempt + 1, url, exc
                )
                if exc.retry:
                    continue
                return None
            digest = _sha256_of(self.part)
            if digest != spec.sha256:
                self._bad_file(url, digest, only_mirror)
                return None  # a bad mirror: next URL, from scratch
            os.replace(self.part, self.final)
            write_stamp(self.final, digest)
            return DownloadResult(spec.name, self.final, False, url, fetched, resumed_from)
        return None

    def _bad_file(self, url: str, digest: str, only_mirror: bool) -> None:
        spec = self.spec
        self.part.unlink(missing_ok=True)
        self.failed(url, f"SHA-256 {digest} instead of {spec.sha256}")
        if only_mirror:
            raise ChecksumMismatch(
                f"model {spec.name!r}: the file from {url} has SHA-256 {digest}, expected "
                f"{spec.sha256}; it was deleted. The mirror serves a different or "
                "damaged file; try again later, another --url, or place the file by hand"
            )


def _sha256_of(path: Path) -> str:
    # Hashing after the fact keeps the resume logic simple; the file is in the page cache.
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _fetch(
    url: str,
    part: Path,
    spec: ModelSpec,
    *,
    progress: ProgressCallback | None,
    cancel: CancelCheck | None,
    timeout_s: float,
) -> int:
    """Append the rest of `url` to `part`; returns bytes received. Raises _Interrupted."""
    offset = part.stat().st_size if part.is_file() else 0
    if spec.size_bytes is not None and offset > spec.size_bytes:
        part.unlink()  # longer than the model can be: not ours to resume
        offset = 0
    response = _open(url, offset, timeout_s)
    if response is None:
        return 0  # the server has nothing past our offset: the .part is complete
    with response:
        start = _resume_point(response, offset)
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.isdigit() else None
        total = start + expected if expected is not None else spec.size_bytes
        try:
            with part.open("r+b" if start else "wb") as out:
                out.seek(start)
                out.truncate()
                received = _copy(response, out, start, total, spec, part, progress, cancel)
                out.flush()
                os.fsync(out.fileno())  # a full disk can surface only here
        except OSError as exc:  # the file, not the connection (_copy wraps that)
            kept = part.stat().st_size if part.is_file() else 0
            raise DownloadError(
                f"model {spec.name!r}: cannot write {part} ({describe_os_error(exc)}); "
                f"{kept} bytes kept there to resume"
            ) from None
        if expected is not None and received < expected:
            raise _Interrupted(f"connection closed after {start + received} of {total} bytes")
    return received


def _open(url: str, offset: int, timeout_s: float) -> Any:
    """The HTTP response for `url` from byte `offset`; None when nothing is left past it."""
    request = Request(url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        return urlopen(request, timeout=timeout_s)
    except HTTPError as exc:
        if exc.code == 416 and offset:
            return None
        # 4xx means this URL will not work however often we ask (timeouts/limits aside).
        retry = exc.code >= 500 or exc.code in (408, 429)
        raise _Interrupted(f"HTTP {exc.code} {exc.reason}", retry=retry) from None
    except (URLError, OSError, http.client.HTTPException) as exc:
        raise _Interrupted(str(getattr(exc, "reason", exc))) from None


def _resume_point(response: Any, offset: int) -> int:
    """Where the response's bytes go in the file: `offset` when the server resumed."""
    if offset and response.status == 206:
        match = _CONTENT_RANGE.match(response.headers.get("Content-Range", ""))
        if match is None or int(match.group(1)) != offset:
            raise _Interrupted("server answered the resume with the wrong byte range")
        return offset
    if response.status == 200:
        return 0  # no range support: start over
    raise _Interrupted(f"unexpected HTTP status {response.status}")


def _copy(
    response: Any,
    out: BinaryIO,
    start: int,
    total: int | None,
    spec: ModelSpec,
    part: Path,
    progress: ProgressCallback | None,
    cancel: CancelCheck | None,
) -> int:
    """Response body → file, chunk by chunk; returns the bytes received."""
    limit = 2 * spec.size_bytes if spec.size_bytes else None
    received = 0
    done = start
    if progress is not None:
        progress(done, total)
    while True:
        if cancel is not None and cancel():
            raise DownloadCancelled(
                f"download of {spec.name!r} cancelled; {done} bytes kept in {part}"
            )
        try:
            chunk = response.read(CHUNK_BYTES)
        except (OSError, http.client.HTTPException) as exc:
            raise _Interrupted(f"connection lost after {done} bytes ({exc!r})") from None
        if not chunk:
            return received
        out.write(chunk)
        received += len(chunk)
        done += len(chunk)
        if progress is not None:
            progress(done, total)
        if limit is not None and done > limit:
            raise _Interrupted(f"server sent more than {limit} bytes")
