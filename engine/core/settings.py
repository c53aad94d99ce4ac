"""Engine settings: a tree of frozen, validated dataclasses.

The GUI or CLI builds a new tree with `dataclasses.replace` and hands it to the engine,
which swaps one reference between frames, so a stage never sees half-applied settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

FaceSelection = Literal["main", "all", "map"]
# Built-in swapper: whose eyeballs show between the lids (docs/swap.md, the eyes).
EyesMode = Literal["yours", "photo", "photo_following"]
# What the outputs show once a frame the swap missed is older than `hold_ms` past the last
# swapped one (engine.outputs.guard): the whole frame blurred or pixelated, only the faces
# it can locate (the whole frame where it can't), a placeholder card, or — "off" — the
# camera image itself (the guard switched off).
FaceLostAction = Literal["blur", "pixelate", "blur-face", "pixelate-face", "card", "off"]
FACE_LOST_ACTIONS: tuple[FaceLostAction, ...] = get_args(FaceLostAction)
MAX_HOLD_MS = 5000
EnhancerMode = Literal["off", "builtin", "neural"]
DetectorModel = Literal["auto", "short", "full"]


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@dataclass(frozen=True, slots=True)
class DetectionSettings:
    model: DetectorModel = "auto"
    score_threshold: float = 0.5
    min_face_px: int = 24
    max_faces: int = 4
    # Re-detect at least this often even while tracking holds (new faces entering).
    redetect_every: int = 30

    def __post_init__(self) -> None:
        _check(self.model in ("auto", "short", "full"), f"unknown detector model {self.model!r}")
        _check(0.0 < self.score_threshold < 1.0, "score_threshold must be in (0, 1)")
        _check(self.min_face_px >= 1, "min_face_px must be >= 1")
        _check(1 <= self.max_faces <= 16, "max_faces must be in 1..16")
        _check(self.redetect_every >= 1, "redetect_every must be >= 1")


@dataclass(frozen=True, slots=True)
class TrackingSettings:
    presence_threshold: float = 0.5
    # One Euro filter: min cutoff (Hz) trades shimmer for lag; beta raises it with speed,
    # measured in face sizes per second (1 face/s → cutoff + beta Hz).
    smoothing: bool = True
    min_cutoff_hz: float = 1.5
    beta: float = 10.0

    def __post_init__(self) -> None:
        _check(0.0 < self.presence_threshold < 1.0, "presence_threshold must be in (0, 1)")
        _check(self.min_cutoff_hz > 0.0, "min_cutoff_hz must be > 0")
        _check(self.beta >= 0.0, "beta must be >= 0")


@dataclass(frozen=True, slots=True)
class SwapSettings:
    enabled: bool = True
    # Built-in swapper: how much of the rendered new face replaces the target's own
    # pixels (a cross-fade, 1: all of it, 0: the target unchanged); it scales how far
    # the face shape moves too (`shape_alpha` is the most it moves, at 1). The neural
    # swapper ignores it.
    blend: float = 1.0
    # Neural swapper: whose identity the model is given — the source's latent mixed
    # with the target's own on the unit sphere (1: the source's alone, 0: the target's).
    # The built-in swapper ignores it.
    latent_blend: float = 1.0
    # Built-in swapper: how far the face shape moves toward the source's (at `blend` 1).
    # The neural swapper takes the shape from its model and ignores it.
    shape_alpha: float = 0.3
    # Built-in swapper: how much of the source photo's broad skin shading and tone the
    # new face keeps on plain skin (1: all; 0: the target's own). What the source's light
    # did at that scale rides along with it, so realism and likeness trade here
    # (docs/swap.md has the measured curve); eyes, brows, lips and shape are the
    # source's at any value. Up to the default the skin's fine texture (pores, grain,
    # stubble) is the target's own; above it the source's comes back, all of it at 1
    # (engine/swap/skin_texture.py `OWN_TEXTURE_UNTIL`).
    likeness: float = 0.65
    # Built-in swapper: what shows between the lids. "yours": your own eyeballs (they
    # blink and look where you look, by construction) with the source's iris colour,
    # and your own lashes and lid line round them; "photo": the source photo's eyes as
    # they were photographed (their gaze stays the photo's); "photo_following": the
    # photo's eyeballs turned to look where you look (experimental, their filled whites
    # look flat). Beyond that the lids are the source's in every mode; docs/swap.md
    # has what each costs in likeness.
    eyes: EyesMode = "yours"
    face_selection: FaceSelection = "main"
    keep_mouth_interior: bool = True
    # Built-in swapper: draw the source photo's own beard, moustache or stubble. Off by
    # default: softened to your camera's detail and put in your light it showed as a grey
    # smear on a clean-shaven face, so there your own chin shows (docs/swap.md, "The
    # source's beard"); on a bearded face your own beard shows either way.
    keep_source_beard: bool = False
    # Content-hash key of the active source face in the SourceLibrary (None: no swap).
    source_key: str | None = None
    # "map" mode: source keys assigned to the faces from left to right.
    source_keys: tuple[str, ...] = ()
    swapper: str = "builtin"  # "builtin" mesh swapper, or a neural model family name

    def __post_init__(self) -> None:
        _check(0.0 <= self.blend <= 1.0, "blend must be in [0, 1]")
        _check(0.0 <= self.latent_blend <= 1.0, "latent_blend must be in [0, 1]")
        _check(0.0 <= self.shape_alpha <= 1.0, "shape_alpha must be in [0, 1]")
        _check(0.0 <= self.likeness <= 1.0, "likeness must be in [0, 1]")
        _check(self.face_selection in ("main", "all", "map"), "face_selection: main|all|map")


@dataclass(frozen=True, slots=True)
class CompositorSettings:
    """How the new face is blended in; widths are fractions of the face's inter-ocular
    distance (IOD), so they mean the same on a face of 90 px and of 600 px."""

    # How far in from the face's edge the frame's own light and colour fade into the new
    # face's (its broad shading; features switch over much sooner: engine/render/composite.py).
    seam_width: float = 0.25
    mask_erode: float = 0.0  # the new face starts this far inside the rendered edge
    color_match: bool = True  # put the new face in the target's light and skin colour

    def __post_init__(self) -> None:
        _check(0.02 <= self.seam_width <= 1.0, "seam_width must be in [0.02, 1]")
        _check(0.0 <= self.mask_erode <= 0.3, "mask_erode must be in [0, 0.3]")


@dataclass(frozen=True, slots=True)
class EnhancerSettings:
    mode: EnhancerMode = "off"
    strength: float = 0.8

    def __post_init__(self) -> None:
        _check(self.mode in ("off", "builtin", "neural"), f"unknown enhancer mode {self.mode!r}")
        _check(0.0 <= self.strength <= 1.0, "strength must be in [0, 1]")


@dataclass(frozen=True, slots=True)
class OutputSettings:
    mirror: bool = False
    debug_overlay: bool = False
    # A visible "SYNTHETIC" badge on every output (virtual camera, stream, recording; not
    # the preview): responsible use, so on unless the user turns it off.
    synthetic_label: bool = True
    # The output guard: never send a frame the swap missed (engine.outputs.guard). The
    # last swapped frame is held this long, then `on_face_lost` covers the frame.
    on_face_lost: FaceLostAction = "blur"
    hold_ms: int = 500

    def __post_init__(self) -> None:
        _check(
            self.on_face_lost in FACE_LOST_ACTIONS, f"unknown on_face_lost {self.on_face_lost!r}"
        )
        _check(0 <= self.hold_ms <= MAX_HOLD_MS, f"hold_ms must be in 0..{MAX_HOLD_MS}")


@dataclass(frozen=True, slots=True)
class HandSettings:
    """Hands in front of the face stay visible (MediaPipe palm + hand landmark models)."""

    enabled: bool = False
    # The palm detector runs every N frames; between, hands are tracked from their last
    # landmarks, so a hand that enters is masked within N frames.
    every_n: int = 3
    max_hands: int = 2
    score_threshold: float = 0.5  # palm detector
    presence_threshold: float = 0.5  # hand landmark model
    grow: float = 0.06  # mask margin around the hand, fraction of its size

    def __post_init__(self) -> None:
        _check(1 <= self.every_n <= 120, "hands.every_n must be in 1..120")
        _check(1 <= self.max_hands <= 4, "hands.max_hands must be in 1..4")
        _check(0.0 < self.score_threshold < 1.0, "hands.score_threshold must be in (0, 1)")
        _check(0.0 < self.presence_threshold < 1.0, "hands.presence_threshold must be in (0, 1)")
        _check(0.0 <= self.grow <= 0.5, "hands.grow must be in [0, 0.5]")


@dataclass(frozen=True, slots=True)
class QualitySettings:
    """The adaptive quality governor's target (engine.runtime.governor) and the internal scale.

    With a target set and `governor` on, the engine steps quality down while the p95
    misses it and back up when there is headroom; the user's settings stay as set.
    """

    target_fps: float | None = None  # processing p95 must fit in 1000/target_fps ms
    target_p95_ms: float | None = None  # end-to-end latency p95 (capture → output)
    governor: bool = True
    # Faces are rendered at this fraction of the frame's resolution, then scaled up.
    internal_scale: float = 1.0

    def __post_init__(self) -> None:
        _check(
            self.target_fps is None or 1.0 <= self.target_fps <= 240.0,
            "quality.target_fps must be in 1..240",
        )
        _check(
            self.target_p95_ms is None or 1.0 <= self.target_p95_ms <= 1000.0,
            "quality.target_p95_ms must be in 1..1000 ms",
        )
        _check(0.25 <= self.internal_scale <= 1.0, "quality.internal_scale must be in [0.25, 1]")

    @property
    def has_target(self) -> bool:
        return self.target_fps is not None or self.target_p95_ms is not None


# Where models may run, as the user picks it (engine.models.onnx maps each to
# onnxruntime's provider name; the GUI labels them). The one list of them.
ExecutionProvider = Literal["auto", "cuda", "tensorrt", "coreml", "directml", "openvino", "cpu"]
EXECUTION_PROVIDERS: tuple[ExecutionProvider, ...] = get_args(ExecutionProvider)


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Neural model choices (engine.models / engine.neural). Changing them means building
    the neural stages again (sessions are created once, never per frame)."""

    # "auto" prefers CUDA, CoreML, DirectML, OpenVINO, then CPU; TensorRT only when chosen.
    provider: ExecutionProvider = "auto"
    swapper_model: str = "inswapper_128"  # a manifest name of family "inswapper"
    recognition_model: str = "w600k_r50"  # a manifest name of family "arcface"
    # Enhancer for EnhancerSettings.mode == "neural": a registered model name
    # (`fusecam models add`) or a path to a GFPGAN-style .onnx; "" = none chosen.
    enhancer_model: str = ""
    io_binding: bool = True  # on CUDA/TensorRT only; ignored on CPU
    prefer_fp16: bool = True  # use a manifest's fp16 variant on GPU when it is present

    def __post_init__(self) -> None:
        _check(self.provider in EXECUTION_PROVIDERS, f"unknown provider {self.provider!r}")
        _check(bool(self.swapper_model), "swapper_model must name a model")
        _check(bool(self.recognition_model), "recognition_model must name a model")


@dataclass(frozen=True, slots=True)
class EngineSettings:
    detection: DetectionSettings = field(default_factory=DetectionSettings)
    tracking: TrackingSettings = field(default_factory=TrackingSettings)
    swap: SwapSettings = field(default_factory=SwapSettings)
    compositor: CompositorSettings = field(default_factory=CompositorSettings)
    enhancer: EnhancerSettings = field(default_factory=EnhancerSettings)
    output: OutputSettings = field(default_factory=OutputSettings)
    models: ModelSettings = field(default_factory=ModelSettings)
    hands: HandSettings = field(default_factory=HandSettings)
    quality: QualitySettings = field(default_factory=QualitySettings)
