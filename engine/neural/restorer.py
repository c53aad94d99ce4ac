"""GFPGAN-style face restoration: an FFHQ-aligned 512×512 face in [-1, 1] RGB in, the
restored face out. GPEN-BFR-512 has the same signature; CodeFormer's extra fidelity input
(one number) is fed `fidelity`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.core.settings import ExecutionProvider
from engine.core.types import F32
from engine.models.errors import SignatureError
from engine.neural.align import ffhq_template
from engine.neural.runner import OnnxRunner


class FaceRestorer:
    def __init__(self, runner: OnnxRunner, *, fidelity: float = 0.5) -> None:
        label = runner.model.path.name
        images = [i for i in runner.inputs if i.rank == 4]
        # Only single numbers besides the image (CodeFormer's "weight"): anything else is a
        # model family we do not know how to feed.
        extras = [i for i in runner.inputs if i.rank != 4]
        if len(images) != 1 or any(i.rank > 1 or (i.dim(0) or 1) != 1 for i in extras):
            raise SignatureError(
                f"{label}: a GFPGAN-style model takes one N×3×S×S image "
                f"(plus at most single numbers); got {[i.shape for i in runner.inputs]}"
            )
        image = images[0]
        size = image.dim(2)
        if image.dim(1) != 3 or size is None or size != image.dim(3) or size % 128 != 0:
            raise SignatureError(
                f"{label}: image input must be N×3×S×S with S a multiple of 128 "
                f"(512 for GFPGAN), got {image.shape}"
            )
        outputs = [k for k, o in enumerate(runner.outputs) if o.rank == 4]
        if not outputs:
            raise SignatureError(f"{label}: the model must return an N×3×S×S image")
        out_shape = runner.outputs[outputs[0]].shape
        if any(
            isinstance(d, int) and d != want
            for d, want in zip(out_shape[1:], (3, size, size), strict=True)
        ):
            raise SignatureError(f"{label}: output {out_shape} does not match the input size")
        self.runner = runner
        self.image_name = image.name
        self.extras = {i.name: np.full(tuple(1 for _ in i.shape), fidelity) for i in extras}
        self.output_index = outputs[0]
        self.size = size
        self.template = ffhq_template(size)

    @classmethod
    def load(
        cls,
        path: Path,
        *,
        provider: ExecutionProvider = "auto",
        io_binding: bool | None = None,
        fidelity: float = 0.5,
    ) -> FaceRestorer:
        runner = OnnxRunner.load(path, name=path.stem, provider=provider, io_binding=io_binding)
        return cls(runner, fidelity=fidelity)

    @property
    def providers(self) -> tuple[str, ...]:
        return self.runner.providers

    def restore(self, crop: NDArray[np.generic]) -> F32:
        """Restored BGR crop, float32 0..255, from an aligned BGR crop (uint8 or float)."""
        rgb = np.asarray(crop, np.float32)[:, :, ::-1]
        blob = (rgb / 127.5 - 1.0).transpose(2, 0, 1)[None]
        out = self.runner.run({self.image_name: blob, **self.extras})[self.output_index]
        restored = (np.clip(out[0], -1.0, 1.0).transpose(1, 2, 0) + 1.0) * 127.5
        return np.ascontiguousarray(restored[:, :, ::-1], dtype=np.float32)
