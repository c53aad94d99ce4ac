"""ArcFace-style recognition: an aligned 112×112 face in, a unit-length identity vector out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.core.settings import ExecutionProvider
from engine.core.types import F32
from engine.models.errors import SignatureError
from engine.neural.align import arcface_template, similarity_transform, warp_crop
from engine.neural.latent import normalise
from engine.neural.runner import OnnxRunner, rgb_blob


class ArcFaceEmbedder:
    """Embeds faces; `mean`/`std` come from the manifest (w600k_r50: 127.5 / 127.5, RGB)."""

    def __init__(self, runner: OnnxRunner, *, mean: float = 127.5, std: float = 127.5) -> None:
        label = runner.model.path.name
        image = [i for i in runner.inputs if i.rank == 4]
        if len(runner.inputs) != 1 or not image or image[0].dim(1) != 3:
            raise SignatureError(f"{label}: an ArcFace model takes one N×3×H×W image")
        size = image[0].dim(2)
        if size is None or size != image[0].dim(3) or size % 112 != 0:
            raise SignatureError(f"{label}: ArcFace input must be square, a multiple of 112")
        out = runner.outputs[0] if runner.outputs else None
        if out is None or out.rank != 2:
            raise SignatureError(f"{label}: an ArcFace model returns one N×D embedding")
        if std == 0:
            raise SignatureError(f"{label}: preprocessing std must not be 0")
        self.runner = runner
        self.input_name = image[0].name
        self.size = size
        self.template = arcface_template(size)
        self.mean = mean
        self.std = std

    @classmethod
    def load(
        cls,
        path: Path,
        *,
        provider: ExecutionProvider = "auto",
        io_binding: bool | None = None,
        mean: float = 127.5,
        std: float = 127.5,
    ) -> ArcFaceEmbedder:
        runner = OnnxRunner.load(path, name=path.stem, provider=provider, io_binding=io_binding)
        return cls(runner, mean=mean, std=std)

    @property
    def providers(self) -> tuple[str, ...]:
        return self.runner.providers

    def align(self, image: NDArray[np.uint8], points: F32) -> NDArray[np.uint8]:
        affine = similarity_transform(points, self.template)
        return np.asarray(warp_crop(image, affine, self.size), dtype=np.uint8)

    def embed_crop(self, crop: NDArray[np.generic]) -> F32:
        """Unit-length embedding of an aligned BGR crop (uint8 or float 0..255)."""
        blob = rgb_blob(crop, self.mean, self.std)
        (embedding, *_) = self.runner.run({self.input_name: blob})
        return normalise(embedding.reshape(-1))

    def embed(self, image: NDArray[np.uint8], points: F32) -> F32:
        return self.embed_crop(self.align(image, points))
