"""The debug overlay's drawing: face boxes, the mesh, the mesh's next crop and the
pose axes with their angles, drawn on a copy of the output."""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from engine.core.face_records import Face
from engine.core.types import Frame
from engine.face.mesh import topology
from engine.face.roi import Roi, roi_from_landmarks

_AXIS_COLOURS = ((0, 0, 255), (0, 255, 0), (255, 0, 0))  # x red, y green, z blue (BGR)


def _roi_rect(roi: Roi) -> tuple[tuple[float, float], tuple[float, float], float]:
    return (roi.cx, roi.cy), (roi.size, roi.size), math.degrees(roi.angle)


def draw_tag(out: Frame, text: str, around: np.ndarray) -> None:
    """`text` on a dark box just above the points `around` (below when there is no room),
    kept inside the frame and sized to it, so it never runs into the mesh, the square
    or the frame's edge."""
    h, w = out.shape[:2]
    scale = float(np.clip(min(h, w) / 900, 0.35, 0.8))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    pad = max(2, round(th * 0.35))
    box_w, box_h = tw + 2 * pad, th + base + 2 * pad
    top, bottom = float(around[:, 1].min()), float(around[:, 1].max())
    y0 = round(top) - box_h - 4 if top - box_h - 4 >= 0 else round(bottom) + 4
    y0 = int(np.clip(y0, 0, max(0, h - box_h)))
    x0 = int(np.clip(round(float(around[:, 0].mean()) - box_w / 2), 0, max(0, w - box_w)))
    roi = out[y0 : y0 + box_h, x0 : x0 + box_w]
    roi[:] = (roi.astype(np.uint16) // 4).astype(np.uint8)
    origin = (x0 + pad, y0 + pad + th)
    cv2.putText(out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)


def mesh_edges() -> np.ndarray:
    """Every edge of the mesh's triangles once (E×2 vertex indices)."""
    tris = topology().triangles
    edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    return np.unique(np.sort(edges, axis=1), axis=0)


def draw_faces(out: Frame, faces: Sequence[Face], edges: np.ndarray) -> None:
    """Each face's detector box, mesh (`edges`, from `mesh_edges`), next crop and pose."""
    for face in faces:
        if face.detection is not None:
            x0, y0, x1, y1 = (int(v) for v in face.detection.box)
            cv2.rectangle(out, (x0, y0), (x1, y1), (0, 200, 255), 1, cv2.LINE_AA)
        if face.landmarks is None:
            continue
        # The square the mesh crops next (detector boxes come only on the
        # frames where the detector ran).
        corners = cv2.boxPoints(_roi_rect(roi_from_landmarks(face.landmarks)))
        square = [np.round(corners * 4).astype(np.int32)]
        cv2.polylines(out, square, True, (200, 160, 60), 1, cv2.LINE_AA, shift=2)
        pts = np.round(face.landmarks[:, :2] * 4).astype(np.int32)  # 2 fractional bits
        lines = pts[edges]
        cv2.polylines(out, list(lines), False, (90, 220, 90), 1, cv2.LINE_AA, shift=2)
        if face.fit is not None:
            pose = face.fit.pose
            origin = pose.translation[:2]
            for axis, colour in zip(np.eye(3), _AXIS_COLOURS, strict=True):
                tip = origin + pose.scale * (pose.rotation @ axis)[:2]
                cv2.line(
                    out,
                    tuple(int(v) for v in origin),
                    tuple(int(v) for v in tip),
                    colour,
                    2,
                    cv2.LINE_AA,
                )
            label = (
                f"yaw {round(pose.yaw_deg):+d} pitch {round(pose.pitch_deg):+d} "
                f"roll {round(pose.roll_deg):+d}"
            )
            draw_tag(out, label, corners)
