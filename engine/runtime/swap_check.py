"""Did the swap happen on this frame? The one question the output guard asks.

Read from what the stages left on the packet, after they ran, with the settings that
frame used — no stage has to report it:

- the compositor blends every face's `patch` into `output`, so a face that carries a
  patch on a packet the compositor processed without error was replaced;
- the faces the swapper was asked to replace are `assign_sources(faces, settings.swap)`
  (the same rule both swappers follow), so a bystander "main" mode leaves alone is not a
  miss, while a face the swapper skipped (no source latent, outside the frame) is;
- a frame with no face at all is a miss too: the detector may simply have lost the face
  (a fast turn, a hand), and the guard cannot tell that from an empty room.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.core.face_records import Face
from engine.core.packet import Box, FramePacket, SwapCheck, SwapMiss
from engine.core.settings import EngineSettings
from engine.swap.assign import assign_sources

# Around a face's mesh or detector box: hair, ears and jaw also identify a person.
FACE_MARGIN = 0.25


def face_box(face: Face, frame_size: tuple[int, int], margin: float = FACE_MARGIN) -> Box | None:
    """The face's region in frame pixels, grown by `margin` of its size on every side."""
    if face.landmarks is not None:
        lo, hi = face.landmarks[:, :2].min(axis=0), face.landmarks[:, :2].max(axis=0)
    elif face.detection is not None:
        lo, hi = face.detection.box[:2], face.detection.box[2:]
    else:
        return None
    pad = margin * float(max(hi - lo))
    width, height = frame_size
    x0, y0 = np.floor(np.maximum(lo - pad, 0)).astype(int)
    x1, y1 = np.ceil(np.minimum(hi + pad, (width, height))).astype(int)
    return (int(x0), int(y0), int(x1), int(y1)) if x1 > x0 and y1 > y0 else None


def _boxes(faces: Sequence[Face], frame_size: tuple[int, int]) -> tuple[Box, ...]:
    return tuple(b for f in faces if (b := face_box(f, frame_size)) is not None)


def check_swap(packet: FramePacket, settings: EngineSettings) -> SwapCheck:
    """Whether every face the swapper was asked to replace was replaced on `packet`."""
    faces = list(packet.faces)
    miss, exposed = _miss(packet, faces, settings)
    if miss is None:
        return SwapCheck(True)
    shape = np.shape(packet.frame)  # a malformed frame (not H×W×C) has no face to locate
    size = (int(shape[1]), int(shape[0])) if len(shape) >= 2 else (0, 0)
    return SwapCheck(False, miss, _boxes(exposed, size))


def _miss(
    packet: FramePacket, faces: list[Face], settings: EngineSettings
) -> tuple[SwapMiss | None, Sequence[Face]]:
    """Why the swap missed (None: it did not) and which faces were left showing."""
    if packet.error is not None:
        return "stage_failed", faces
    if not packet.composited or packet.face_models_loading:
        return "starting", ()  # no face stages or models yet: nothing was looked for
    if not faces:
        return "no_face", ()
    if not settings.swap.enabled:
        return "swap_off", faces
    return _unreplaced(packet, faces, settings)


def _unreplaced(
    packet: FramePacket, faces: list[Face], settings: EngineSettings
) -> tuple[SwapMiss | None, Sequence[Face]]:
    """Faces were found and swapping is on: did every face asked for get a new face?"""
    wanted = [face for face, _ in assign_sources(faces, settings.swap)]
    if not wanted:
        return "no_source", faces
    missed = [face for face in wanted if face.patch is None]
    if len(missed) == len(wanted) or packet.output is None:
        return "not_swapped", faces  # nothing replaced: any face may be the user's
    return ("not_swapped", missed) if missed else (None, ())
