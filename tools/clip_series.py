"""Per-frame eye, mouth and gaze readings of a swapped clip against its target.

`judge video` reports one carry slope per clip; a few frames where its mesh lands on
another face, or on a face in profile, can decide it (docs/swap.md). This reads the
frames the same way the judge does (its own code: the same landmarks, actions and
iris-refined gaze pass) and writes them per frame, so a slope can be taken apart:

    ~/.cache/facejudge/venv/bin/python tools/clip_series.py TARGET.mp4 OUTPUT.mp4 OUT.json

OUT.json holds, per frame, the target's and the output's eyes_open, mouth_open,
gaze_x, gaze_y (None where the judge found no landmarks), their inter-ocular distance
and eye width in pixels, and the landmarks' mean distance between the two meshes (in
IODs: a large one means the judge's output mesh sits on another face).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

JUDGE = Path(__file__).resolve().parents[2] / "shared" / "tools" / "facejudge"


def frames(path: str):  # type: ignore[no-untyped-def]
    cap = cv2.VideoCapture(path)
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        yield frame
    cap.release()


def main() -> int:
    sys.path.insert(0, str(JUDGE))
    import judge as facejudge  # the judge's module, only importable in its environment

    target, output, out = sys.argv[1:4]
    every = 5
    j = facejudge.Judge()
    rows = []
    hint_t = hint_o = None
    for i, (ft, fo) in enumerate(zip(frames(target), frames(output), strict=False)):
        rt, ro = cv2.cvtColor(ft, cv2.COLOR_BGR2RGB), cv2.cvtColor(fo, cv2.COLOR_BGR2RGB)
        if i % every == 0:
            t, o = j.analyze_rgb(rt), j.analyze_rgb(ro)
            hint_t, hint_o = t["box"] or hint_t, o["box"] or hint_o
            lt, lo = t["lm"], o["lm"]
        else:
            lt, lo = j.landmarks(rt, hint_t), j.landmarks(ro, hint_o)
        row: dict[str, object] = {"frame": i}
        if lt is not None:
            row["T"] = j.actions(lt)
            row["iod"] = float(j.iod(lt[:, :2]))
            row["eye_w"] = float(np.linalg.norm(lt[33, :2] - lt[133, :2]))
        if lo is not None:
            row["O"] = j.actions(lo)
        if lt is not None and lo is not None:
            row["apart"] = float(np.linalg.norm(lt[:, :2] - lo[:, :2], axis=1).mean()) / row["iod"]  # type: ignore[operator]
            if i % facejudge.GAZE_STRIDE == 0:
                gt, go = j.gaze(rt, lt), j.gaze(ro, lo)
                if gt is not None and go is not None:
                    row["gT"], row["gO"] = gt, go
        rows.append(row)
    Path(out).write_text(json.dumps(rows, indent=0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
