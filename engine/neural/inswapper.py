"""inswapper-style swapping: an aligned target crop plus an identity latent in, a swapped
crop out. The crop is aligned to the ArcFace template at the model's size (128)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.core.settings import ExecutionProvider
from engine.core.types import F32
from engine.models.errors import SignatureError
from engine.neural.align import arcface_template
from engine.neural.latent import project
from engine.neural.onnx_initializer import read_last_initializer
from engine.neural.runner import OnnxRunner, rgb_blob


class InSwapper:
    """One loaded swapper. `emap` maps unit ArcFace embeddings to the model's latent."""

    def __init__(
        self, runner: OnnxRunner, emap: F32, *, mean: float = 0.0, std: float = 255.0
    ) -> None:
        label = runner.model.path.name
        images = [i for i in runner.inputs if i.rank == 4]
        latents = [i for i in runner.inputs if i.rank == 2]
        if len(runner.inputs) != 2 or len(images) != 1 or len(latents) != 1:
            raise SignatureError(
                f"{label}: an inswapper model takes an N×3×S×S crop and an N×D latent"
            )
        image, latent = images[0], latents[0]
        size = image.dim(2)
        if image.dim(1) != 3 or size is None or size != image.dim(3):
            raise SignatureError(f"{label}: target input must be N×3×S×S, got {image.shape}")
        width = latent.dim(1)
        if emap.ndim != 2 or emap.shape[0] != emap.shape[1] or (width and width != emap.shape[1]):
            raise SignatureError(
                f"{label}: last initializer (emap) has shape {emap.shape}; "
                f"expected a square matrix matching the latent input {latent.shape}"
            )
        outputs = [k for k, o in enumerate(runner.outputs) if o.rank == 4]
        if not outputs:
            raise SignatureError(f"{label}: an inswapper model returns an N×3×S×S crop")
        if std == 0:
            raise SignatureError(f"{label}: preprocessing std must not be 0")
        self.runner = runner
        self.emap = emap.astype(np.float32)
        self.image_name = image.name
        self.latent_name = latent.name
        self.size = size
        self.output_index = outputs[0]
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
        mean: float = 0.0,
        std: float = 255.0,
    ) -> InSwapper:
        _, emap = read_last_initializer(path)
        runner = OnnxRunner.load(path, name=path.stem, provider=provider, io_binding=io_binding)
        return cls(runner, emap, mean=mean, std=std)

    @property
    def providers(self) -> tuple[str, ...]:
        return self.runner.providers

    def latent(self, embedding: NDArray[np.floating]) -> F32:
        return project(embedding, self.emap)

    def swap(self, crop: NDArray[np.generic], latent: F32) -> F32:
        """Swapped BGR crop, float32 0..255, from an aligned BGR crop (uint8 or float)."""
        blob = rgb_blob(crop, self.mean, self.std)
        feeds = {self.image_name: blob, self.latent_name: latent.reshape(1, -1)}
        out = self.runner.run(feeds)[self.output_index]
        # Undo the input scaling; inswapper_128 returns RGB in [0, 1] for mean 0, std 255.
        rgb_out = out[0].transpose(1, 2, 0) * self.std + self.mean
        return np.ascontiguousarray(np.clip(rgb_out, 0.0, 255.0)[:, :, ::-1], dtype=np.float32)
