"""Where the bundled data lives: models, face-mesh data and sample faces.

They ship inside the `engine` package (engine/resources/), so one relative path finds them
in a checkout, in an installed wheel (package data) and in a PyInstaller bundle (which
keeps the package layout under its own folder). The GUI's style sheet and icons are the
GUI's: app/gui/resources/.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parents[1] / "resources"  # engine/resources
MODELS_DIR = RESOURCES_DIR / "models"
SAMPLE_FACES_DIR = RESOURCES_DIR / "faces"
DEMO_PORTRAIT = SAMPLE_FACES_DIR / "astronaut_eileen_collins.png"
DEFAULT_SOURCE_FACE = SAMPLE_FACES_DIR / "grace_hopper.jpg"
