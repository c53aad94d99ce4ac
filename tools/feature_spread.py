"""How far apart the judge's expression error puts real photos: of two people, of one.

The judge's `expr_err` compares the lips, eyes and brows of an output with the target's
after aligning them on rigid points. Its README says that it also counts the *shape* of
those features, so that a perfect swap does not score 0. This prints the same error
between every two single-person gallery photos (DEV and WIDE), split into pairs of
different people and pairs of photos of one person. It uses the judge's own code and
feature cache, so it runs in the judge's environment:

    ~/.cache/facejudge/venv/bin/python tools/feature_spread.py
"""

from __future__ import annotations

import sys
from itertools import permutations

import numpy as np
from identity_margins import GALLERY, JUDGE  # one place for the paths; tools/ is on sys.path

PERCENTILES = (5, 10, 25, 50)
TARGET = 0.025  # the expression target of issue 12


def spread(judge: object, gallery: object) -> tuple[list[float], list[float]]:
    """(different people, same person): `expr_err` of every ordered pair of gallery
    photos, the first photo scored as the output and the second as the target."""
    photos = []
    for identity, members in gallery.member_embs.items():  # type: ignore[attr-defined]
        for path, _, _ in members:
            landmarks = judge.analyze_file(path)["lm"]  # type: ignore[attr-defined]
            if landmarks is not None:
                photos.append((identity, np.asarray(landmarks)))
    different, same = [], []
    for (id_o, lm_o), (id_t, lm_t) in permutations(photos, 2):
        error, _ = judge.expression_error(lm_o, lm_t)  # type: ignore[attr-defined]
        (same if id_o == id_t else different).append(float(error))
    return different, same


def main() -> int:
    sys.path.insert(0, str(JUDGE))
    import judge as facejudge  # the judge's module, only importable in its environment

    judge = facejudge.Judge()
    gallery = facejudge.Gallery(judge, str(GALLERY))
    for label, values in zip(
        ("different people", "same person"), spread(judge, gallery), strict=True
    ):
        v = np.asarray(values)
        cuts = " ".join(
            f"p{p} {q:.4f}" for p, q in zip(PERCENTILES, np.percentile(v, PERCENTILES), strict=True)
        )
        print(f"{label}: {len(v)} pairs, {cuts}, below {TARGET}: {int((v < TARGET).sum())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
