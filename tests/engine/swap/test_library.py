"""Source faces: loading one or several photos, errors that say why, the content cache.

Every library here gets a cache dir under tmp_path (or FUSECAM_CACHE_DIR pointed there):
the real user cache is never touched.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.core.face_records import Face
from engine.core.imageio import read_image
from engine.core.types import Frame
from engine.face.analyzer import FaceAnalyzer
from engine.render.uvmap import TEXTURE_SIZE, uv_map
from engine.swap.identity import UnwrappedPhoto, combine
from engine.swap.library import (
    MIN_EYE_DISTANCE_PX,
    SourceFaceError,
    SourceLibrary,
    content_key,
    default_cache_dir,
)
from tests.engine.swap.support import (
    EILEEN,
    GRACE,
    analyzer,
    dev,
    two_face_frame,
)


class CountingAnalyzer(FaceAnalyzer):
    """The real analyzer (same ONNX sessions) that counts detections, or refuses them:
    a cache hit must not run a single detection."""

    def __init__(self, refuse: bool = False) -> None:
        real = analyzer()
        super().__init__(real.short, real.full, real.mesh, real.eyes)
        self.calls = 0
        self.refuse = refuse

    def analyze_image(self, frame: Frame, *args: object, **kwargs: object) -> list[Face]:
        self.calls += 1
        if self.refuse:
            raise AssertionError("face detection ran although the source was cached")
        return super().analyze_image(frame, *args, **kwargs)  # type: ignore[arg-type]


def cache_files(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "sources").glob("*.npz"))


@pytest.fixture(scope="module")
def grace_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache dir that already holds Grace Hopper's identity (built once per module)."""
    cache_dir = tmp_path_factory.mktemp("grace-cache")
    SourceLibrary(analyzer(), cache_dir=cache_dir).load_identity([GRACE])
    return cache_dir


# --- loading ------------------------------------------------------------------------------


def test_one_photo_becomes_an_identity(tmp_path: Path) -> None:
    library = SourceLibrary(analyzer(), cache_dir=tmp_path)
    identity = library.load_identity([GRACE])
    assert identity.name == "grace_hopper"
    assert identity.paths == (GRACE,)
    assert identity.warning is None
    assert identity.albedo.shape == (TEXTURE_SIZE, TEXTURE_SIZE, 3)
    assert identity.albedo.dtype == np.float32
    assert identity.canonical.shape == (468, 3)
    assert identity.vertex_albedo.shape == (468, 3)
    assert identity.thumbnail.shape == (128, 128, 3) and identity.thumbnail.dtype == np.uint8
    assert len(identity.images) == len(identity.landmarks) == 1
    # The texture is a face, not black or saturated: skin-range values where it is covered.
    covered = identity.albedo[uv_map().covered]
    assert 60.0 < float(np.median(covered)) < 230.0
    assert library.get(identity.key) is identity
    assert library.keys() == [identity.key]
    info = library.load([GRACE])
    assert (info.key, info.name, info.warning) == (identity.key, "grace_hopper", None)


def test_reloading_in_the_same_library_returns_the_same_identity(tmp_path: Path) -> None:
    counting = CountingAnalyzer()
    library = SourceLibrary(counting, cache_dir=tmp_path)
    first = library.load_identity([GRACE])
    assert library.load_identity([str(GRACE)]) is first
    assert counting.calls == 1


def test_what_every_frame_reads_of_an_identity_is_made_when_it_loads(
    grace_cache: Path, tmp_path: Path
) -> None:
    """The texture, the beard, the skin's departures and the eyeballs are made on the
    loading thread, built fresh or read from the disk cache: made on the first swapped
    frame instead, they cost that frame ~13 ms on a 720p clip, a hitch at every switch
    of source."""
    for cache in (tmp_path, grace_cache):
        identity = SourceLibrary(analyzer(), cache_dir=cache).load_identity([GRACE])
        assert {"beard", "skin", "eyeballs", "iris_colour"} <= vars(identity).keys()


def test_remove_forgets_an_identity(tmp_path: Path) -> None:
    library = SourceLibrary(analyzer(), cache_dir=tmp_path)
    key = library.load_identity([GRACE]).key
    library.remove(key)
    assert library.get(key) is None and library.keys() == []
    assert library.get(None) is None


# --- cache --------------------------------------------------------------------------------


def test_loading_writes_one_cache_entry_named_by_the_content_hash(tmp_path: Path) -> None:
    identity = SourceLibrary(analyzer(), cache_dir=tmp_path).load_identity([GRACE])
    assert identity.key == content_key([GRACE])
    assert cache_files(tmp_path) == [tmp_path / "sources" / f"{identity.key}.npz"]
    assert not list((tmp_path / "sources").glob("*.part*")), "temporary file left behind"


def test_a_new_library_loads_from_the_disk_cache_without_detecting(grace_cache: Path) -> None:
    built = SourceLibrary(analyzer(), cache_dir=grace_cache).load_identity([GRACE])  # memory
    refusing = CountingAnalyzer(refuse=True)
    cached = SourceLibrary(refusing, cache_dir=grace_cache).load_identity([GRACE])
    assert refusing.calls == 0
    assert cached.key == built.key and cached.name == built.name
    assert cached.warning == built.warning
    # The texture is stored as float16: equal to well under one grey level.
    assert np.abs(cached.albedo - built.albedo).max() < 0.5
    np.testing.assert_array_equal(cached.canonical, built.canonical)
    np.testing.assert_array_equal(cached.thumbnail, built.thumbnail)
    np.testing.assert_array_equal(cached.landmarks[0], built.landmarks[0])
    np.testing.assert_array_equal(cached.images[0], read_image(GRACE))
    assert np.abs(cached.vertex_albedo - built.vertex_albedo).max() < 0.5


def test_the_same_bytes_under_another_name_hit_the_cache(grace_cache: Path, tmp_path: Path) -> None:
    copy = tmp_path / "renamed.jpg"
    shutil.copyfile(GRACE, copy)
    refusing = CountingAnalyzer(refuse=True)
    identity = SourceLibrary(refusing, cache_dir=grace_cache).load_identity([copy])
    assert identity.key == content_key([GRACE])
    assert identity.paths == (copy,)


def test_changed_bytes_miss_the_cache(grace_cache: Path, tmp_path: Path) -> None:
    changed = tmp_path / "grace.png"  # the same picture, re-encoded: other bytes
    cv2.imwrite(str(changed), read_image(GRACE))
    counting = CountingAnalyzer()
    cache_dir = tmp_path / "cache"
    shutil.copytree(grace_cache, cache_dir)
    identity = SourceLibrary(counting, cache_dir=cache_dir).load_identity([changed])
    assert counting.calls == 1
    assert identity.key != content_key([GRACE])
    assert len(cache_files(cache_dir)) == 2


def test_without_a_cache_dir_the_library_uses_fusecam_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUSECAM_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path
    identity = SourceLibrary(analyzer()).load_identity([GRACE])
    assert cache_files(tmp_path) == [tmp_path / "sources" / f"{identity.key}.npz"]


def test_an_unwritable_cache_costs_speed_not_the_source(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    not_a_dir = tmp_path / "cache"
    not_a_dir.write_text("a file where the cache dir should be")
    with caplog.at_level(logging.WARNING, logger="engine.swap.library"):
        identity = SourceLibrary(analyzer(), cache_dir=not_a_dir).load_identity([GRACE])
    assert identity.name == "grace_hopper"
    assert any("could not cache" in r.getMessage() for r in caplog.records), caplog.text


def test_a_garbage_cache_entry_is_ignored_and_rebuilt(
    grace_cache: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache_dir = tmp_path / "cache"
    shutil.copytree(grace_cache, cache_dir)
    (entry,) = cache_files(cache_dir)
    entry.write_bytes(b"not a cache entry " * 20)
    counting = CountingAnalyzer()
    with caplog.at_level(logging.WARNING, logger="engine.swap.library"):
        identity = SourceLibrary(counting, cache_dir=cache_dir).load_identity([GRACE])
    assert counting.calls == 1 and identity.name == "grace_hopper"
    assert "its cache entry is unusable" in caplog.text
    with np.load(entry) as data:  # rewritten whole
        assert data["albedo"].shape == (TEXTURE_SIZE, TEXTURE_SIZE, 3)


@pytest.mark.parametrize("damage", ["empty", "truncated"])
def test_a_damaged_cache_entry_is_ignored_and_rebuilt(
    grace_cache: Path, tmp_path: Path, damage: str
) -> None:
    cache_dir = tmp_path / "cache"
    shutil.copytree(grace_cache, cache_dir)
    (entry,) = cache_files(cache_dir)
    data = entry.read_bytes()
    entry.write_bytes(b"" if damage == "empty" else data[: len(data) // 2])
    identity = SourceLibrary(CountingAnalyzer(), cache_dir=cache_dir).load_identity([GRACE])
    assert identity.name == "grace_hopper"


def rewrite_entry(entry: Path, **changes: NDArray[Any]) -> None:
    with np.load(entry) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changes)
    np.savez(entry.with_suffix(""), **arrays)  # np.savez appends ".npz" again


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("albedo", np.zeros((64, 64, 3), np.float16), "albedo has shape"),
        ("albedo", np.full((TEXTURE_SIZE, TEXTURE_SIZE, 3), np.nan, np.float16), "non-finite"),
        ("canonical", np.zeros((400, 3), np.float32), "canonical has shape"),
        ("landmarks", np.full((1, 468, 3), np.inf, np.float32), "non-finite"),
        ("meta", np.array('{"name": "x", "warning": null, "version": "old"}'), "another version"),
    ],
)
def test_a_cache_entry_that_loads_but_is_wrong_is_rebuilt(
    grace_cache: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    field: str,
    value: NDArray[Any],
    reason: str,
) -> None:
    """An entry with a wrong shape, NaNs or an old version loads without error, so it must
    be checked, not trusted: it is rebuilt, and the swap is the same as from a fresh one."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(grace_cache, cache_dir)
    (entry,) = cache_files(cache_dir)
    fresh = SourceLibrary(CountingAnalyzer(), cache_dir=cache_dir).load_identity([GRACE])
    rewrite_entry(entry, **{field: value})
    counting = CountingAnalyzer()
    with caplog.at_level(logging.WARNING, logger="engine.swap.library"):
        rebuilt = SourceLibrary(counting, cache_dir=cache_dir).load_identity([GRACE])
    assert counting.calls == 1, "the damaged entry was trusted"
    assert reason in caplog.text
    np.testing.assert_array_equal(rebuilt.albedo, fresh.albedo)


def test_a_cached_identity_is_the_same_as_a_fresh_build(tmp_path: Path) -> None:
    """The disk cache stores float16; a fresh build is quantised alike, so both swap the
    same (two judged pairs used to flip with the cache's state)."""
    fresh = SourceLibrary(cache_dir=tmp_path).load_identity([GRACE])
    cached = SourceLibrary(cache_dir=tmp_path).load_identity([GRACE])
    np.testing.assert_array_equal(cached.albedo, fresh.albedo)
    np.testing.assert_array_equal(cached.canonical, fresh.canonical)
    assert fresh.forehead_skin is not None and cached.forehead_skin is not None
    np.testing.assert_array_equal(cached.forehead_skin, fresh.forehead_skin)


# --- several photos, several faces ----------------------------------------------------------


def test_several_photos_make_one_identity_led_by_the_best_seen(tmp_path: Path) -> None:
    library = SourceLibrary(analyzer(), cache_dir=tmp_path)
    grace = library.load_identity([GRACE])
    eileen = library.load_identity([EILEEN])
    both = library.load_identity([GRACE, EILEEN])
    assert both.name == "grace_hopper (+1)"
    assert both.paths == (GRACE, EILEEN)
    assert len(both.images) == len(both.landmarks) == 2
    assert both.key not in (grace.key, eileen.key)
    # The shape is the mean of the photos' shapes ...
    np.testing.assert_allclose(both.canonical, (grace.canonical + eileen.canonical) / 2, atol=1e-5)
    # ... and every covered texel a confidence-weighted mix of the photos' texels, between
    # the two, led by one photo: close to it, far from the other.
    # (Each photo is first brought to one skin colour, so compare relative to it.)
    covered = uv_map().covered
    grace_n, eileen_n = (i.albedo[covered] / i.skin_colour for i in (grace, eileen))
    low, high = np.minimum(grace_n, eileen_n), np.maximum(grace_n, eileen_n)
    mixed = both.albedo[covered] / both.skin_colour
    assert np.all((mixed >= low - 3e-3) & (mixed <= high + 3e-3))
    apart = float(np.abs(grace_n - eileen_n).mean())
    near, far = sorted(float(np.abs(mixed - n).mean()) for n in (grace_n, eileen_n))
    assert near < 0.2 * apart < far


def test_the_other_photos_fill_what_the_best_one_saw_badly() -> None:
    """The best-seen photo's texture, except where it saw badly (a shadow, a grazing
    angle): there the other photo's."""
    size = uv_map().size
    seen = np.ones((size, size), np.float32)
    seen[: size // 4] = 0.001  # the best photo's top quarter: in shadow
    colour = np.full(3, 150.0, np.float32)
    shape = np.zeros((468, 3), np.float32)
    best = UnwrappedPhoto(np.full((size, size, 3), 100.0, np.float32), seen, shape, colour)
    other = UnwrappedPhoto(
        np.full((size, size, 3), 200.0, np.float32),
        np.full((size, size), 0.5, np.float32),
        shape,
        colour,
    )
    albedo, _, _ = combine([other, best])  # the order does not matter
    covered = uv_map().covered
    lit, shaded = covered.copy(), covered.copy()
    lit[: size // 4], shaded[size // 4 :] = False, False
    # Measured: 102.4 where the best photo saw well, 196.2 in its shadow.
    assert np.all(np.abs(albedo[lit] - 100.0) < 5.0)
    assert np.all(np.abs(albedo[shaded] - 200.0) < 10.0)


def test_the_key_of_several_photos_ignores_their_order(tmp_path: Path) -> None:
    counting = CountingAnalyzer()
    library = SourceLibrary(counting, cache_dir=tmp_path)
    first = library.load_identity([GRACE, EILEEN])
    assert content_key([EILEEN, GRACE]) == first.key
    assert library.load_identity([EILEEN, GRACE]) is first
    assert counting.calls == 2  # one detection per photo, once


@pytest.mark.testdata
def test_three_photos_of_one_person_average_into_one_identity(tmp_path: Path) -> None:
    paths = [dev("obama_1.jpg"), dev("obama_2.jpg"), dev("obama_3.jpg")]
    library = SourceLibrary(analyzer(), cache_dir=tmp_path)
    singles = [library.load_identity([p]) for p in paths]
    merged = library.load_identity(paths)
    assert merged.name == "obama_1 (+2)"
    expected = np.mean([s.canonical for s in singles], axis=0)
    np.testing.assert_allclose(merged.canonical, expected, atol=1e-5)
    covered = uv_map().covered
    stack = np.stack([s.albedo[covered] / s.skin_colour for s in singles])
    mixed = merged.albedo[covered] / merged.skin_colour
    assert np.all((mixed >= stack.min(axis=0) - 3e-3) & (mixed <= stack.max(axis=0) + 3e-3))


def _warned_about_two_faces(path: Path, identity_warning: str | None, log_text: str) -> None:
    assert identity_warning is not None
    assert path.name in identity_warning and "2 faces" in identity_warning
    assert "main one" in identity_warning
    assert identity_warning in log_text


def test_a_photo_with_two_faces_uses_the_main_one_and_warns(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "two.png"
    frame = two_face_frame()
    cv2.imwrite(str(path), frame)
    with caplog.at_level(logging.WARNING, logger="engine.swap.library"):
        identity = SourceLibrary(analyzer(), cache_dir=tmp_path).load_identity([path])
    _warned_about_two_faces(path, identity.warning, caplog.text)
    main = analyzer().analyze_image(frame)[0]
    assert main.landmarks is not None
    np.testing.assert_array_equal(identity.landmarks[0], main.landmarks)
    # The main face is Grace Hopper's (left half, the larger face).
    assert identity.landmarks[0][:, 0].max() < read_image(GRACE).shape[1]
    # The warning survives the disk cache.
    cached = SourceLibrary(CountingAnalyzer(refuse=True), cache_dir=tmp_path).load_identity([path])
    assert cached.warning == identity.warning


@pytest.mark.testdata
def test_the_dev_group_photo_uses_the_main_face_and_warns(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = dev("group_face_recognition_1.jpg")
    with caplog.at_level(logging.WARNING, logger="engine.swap.library"):
        identity = SourceLibrary(analyzer(), cache_dir=tmp_path).load_identity([path])
    _warned_about_two_faces(path, identity.warning, caplog.text)
    main = analyzer().analyze_image(read_image(path))[0]
    assert main.landmarks is not None
    np.testing.assert_array_equal(identity.landmarks[0], main.landmarks)


# --- errors ---------------------------------------------------------------------------------


def _load_error(library: SourceLibrary, paths: list[Path]) -> str:
    with pytest.raises(SourceFaceError) as info:
        library.load_identity(paths)
    return str(info.value)


@pytest.fixture
def library(tmp_path: Path) -> SourceLibrary:
    return SourceLibrary(analyzer(), cache_dir=tmp_path / "cache")


def test_no_photo_is_an_error(library: SourceLibrary) -> None:
    assert "no source photo" in _load_error(library, [])


def test_a_missing_file_is_named(library: SourceLibrary, tmp_path: Path) -> None:
    missing = tmp_path / "nobody.jpg"
    message = _load_error(library, [missing])
    assert str(missing) in message and "no such file" in message


def test_a_folder_is_not_a_photo(library: SourceLibrary, tmp_path: Path) -> None:
    message = _load_error(library, [tmp_path])
    assert str(tmp_path) in message


def test_an_unreadable_image_is_named_with_the_reason(
    library: SourceLibrary, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff this is not really a JPEG")
    message = _load_error(library, [broken])
    assert str(broken) in message and "unreadable image" in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_a_file_without_read_permission_is_named(library: SourceLibrary, tmp_path: Path) -> None:
    locked = tmp_path / "locked.jpg"
    shutil.copyfile(GRACE, locked)
    locked.chmod(0)
    try:
        message = _load_error(library, [locked])
    finally:
        locked.chmod(0o644)
    assert str(locked) in message and "cannot read" in message


def test_a_photo_without_a_face_is_named(library: SourceLibrary, tmp_path: Path) -> None:
    wall = tmp_path / "wall.png"
    rng = np.random.default_rng(3)
    cv2.imwrite(
        str(wall), cv2.GaussianBlur(rng.integers(0, 255, (240, 320, 3), np.uint8), (9, 9), 3)
    )
    message = _load_error(library, [wall])
    assert str(wall) in message and "no face found" in message


def test_a_face_too_small_is_named_with_its_size(library: SourceLibrary, tmp_path: Path) -> None:
    # Grace Hopper at a fifth of her size on a grey canvas: found, but ~18 px between the eyes.
    small = cv2.resize(read_image(GRACE), None, fx=0.2, fy=0.2, interpolation=cv2.INTER_AREA)
    canvas = np.full((480, 640, 3), 128, np.uint8)
    canvas[100 : 100 + small.shape[0], 100 : 100 + small.shape[1]] = small
    path = tmp_path / "far_away.png"
    cv2.imwrite(str(path), canvas)
    assert analyzer().analyze_image(canvas), "precondition: the small face is detected"
    message = _load_error(library, [path])
    assert str(path) in message and "face too small" in message
    assert f"at least {MIN_EYE_DISTANCE_PX:.0f} px" in message


def test_a_bad_second_photo_is_the_one_named(library: SourceLibrary, tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 200, 3), 90, np.uint8))
    message = _load_error(library, [GRACE, blank])
    assert str(blank) in message and "no face found" in message
    assert str(GRACE) not in message
    assert library.keys() == [], "a failed load must not leave a half identity behind"


def test_errors_leave_no_cache_entry(library: SourceLibrary, tmp_path: Path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 200, 3), 90, np.uint8))
    _load_error(library, [blank])
    assert cache_files(tmp_path / "cache") == []
