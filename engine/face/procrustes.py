"""Weighted similarity Procrustes (Umeyama) and rotation ↔ yaw/pitch/roll."""

from __future__ import annotations

import math

import numpy as np

from engine.core.types import F64


def similarity(src: F64, dst: F64, weights: F64 | None = None) -> tuple[float, F64, F64]:
    """s, R, t minimising Σ w‖s·R·src + t − dst‖² (proper rotation, no reflection)."""
    w = np.full(len(src), 1.0 / len(src)) if weights is None else weights / weights.sum()
    mu_s = w @ src
    mu_d = w @ dst
    a = src - mu_s
    b = dst - mu_d
    cov = (b * w[:, None]).T @ a
    u, sig, vt = np.linalg.svd(cov)
    d = np.ones(len(sig))
    if np.linalg.det(u) * np.linalg.det(vt) < 0:
        d[-1] = -1.0
    r = (u * d) @ vt
    var_s = float(w @ (a * a).sum(axis=1))
    s = float((sig * d).sum() / var_s) if var_s > 0 else 1.0
    t = mu_d - s * r @ mu_s
    return s, r, t


def euler_deg(r: F64) -> tuple[float, float, float]:
    """(yaw, pitch, roll) with R = Rz(roll)·Ry(yaw)·Rx(pitch), image axes (x right, y down,
    z away) — the same split the project's quality judge uses."""
    yaw = math.asin(max(-1.0, min(1.0, -float(r[2, 0]))))
    pitch = math.atan2(float(r[2, 1]), float(r[2, 2]))
    roll = math.atan2(float(r[1, 0]), float(r[0, 0]))
    return math.degrees(yaw), math.degrees(pitch), math.degrees(roll)


def rotation_from_euler_deg(yaw: float, pitch: float, roll: float) -> F64:
    y, p, r = (math.radians(v) for v in (yaw, pitch, roll))
    rx = np.array([[1, 0, 0], [0, math.cos(p), -math.sin(p)], [0, math.sin(p), math.cos(p)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    return rz @ ry @ rx
