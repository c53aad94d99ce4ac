"""How far each swap is from a tie in the judge's identity retrieval.

`make quality` counts leave-source-out and ID@1 hits; 10–14 of the 61
leave-source-out pairs sit within ±0.02 of a tie, so a change of a few pixels flips
some of them either way. This prints, per run, the mean and median *margin*: the dlib
distance from the output to the nearest other identity minus its distance to the
source's identity (for leave-source-out, the mean of the source's other photos). It uses
the judge's own code and feature cache, so it runs in the judge's environment:

    ~/.cache/facejudge/venv/bin/python tools/identity_margins.py out/quality [more runs]

Each run folder is one `make quality` output (its combined.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

JUDGE = Path(__file__).resolve().parents[2] / "shared" / "tools" / "facejudge"
GALLERY = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "wide"


def margins(judge: object, gallery: object, run: Path) -> tuple[list[float], list[float]]:
    """(leave-source-out margins, ID@1 margins) of one run's outputs."""
    items = json.loads((run / "combined.json").read_text())["items"]
    loo, full = [], []
    for item in items:
        emb = judge.analyze_file(str(run / item["output"]))["emb"]  # type: ignore[attr-defined]
        if emb is None:
            continue
        source_id = item["source_identity"]
        means = gallery.means  # type: ignore[attr-defined]
        others = {k: float(np.linalg.norm(emb - v)) for k, v in means.items() if k != source_id}
        nearest_other = min(others.values())
        full.append(nearest_other - float(np.linalg.norm(emb - means[source_id])))
        if item.get("ref_loo_ok"):
            source = str(Path(item["source"]).resolve())
            members = gallery.member_embs[source_id]  # type: ignore[attr-defined]
            rest = np.mean([e for path, _, e in members if path != source], axis=0)
            loo.append(nearest_other - float(np.linalg.norm(emb - rest)))
    return loo, full


def main() -> int:
    sys.path.insert(0, str(JUDGE))
    import judge as facejudge  # the judge's module, only importable in its environment

    judge = facejudge.Judge()
    gallery = facejudge.Gallery(judge, str(GALLERY))
    for run in sys.argv[1:]:
        loo, full = (np.asarray(m) for m in margins(judge, gallery, Path(run)))
        print(
            f"{run}: leave-source-out {int((loo > 0).sum())}/{len(loo)} "
            f"margin mean {loo.mean():.4f} median {np.median(loo):.4f} | "
            f"ID@1 {int((full > 0).sum())}/{len(full)} "
            f"margin mean {full.mean():.4f} median {np.median(full):.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
