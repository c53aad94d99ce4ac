"""Where bundled resources and models live (relative to the source checkout)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # engine/core/paths.py → the checkout
RESOURCES_DIR = ROOT / "resources"
MODELS_DIR = ROOT / "models"
SAMPLE_FACES_DIR = RESOURCES_DIR / "faces"
DEMO_PORTRAIT = SAMPLE_FACES_DIR / "astronaut_eileen_collins.png"
DEFAULT_SOURCE_FACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"
