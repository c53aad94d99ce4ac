"""Builds the stage list the engine runs, from settings and the chosen source faces."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine.settings import EngineSettings
from engine.stages.base import Stage
from engine.stages.passthrough import PassThrough


def build_stages(settings: EngineSettings, source_faces: Sequence[Path] = ()) -> list[Stage]:
    """The live pipeline. Until the face stages exist this is a single pass-through."""
    del settings, source_faces
    return [PassThrough()]


def providers_of(stages: Sequence[Stage]) -> list[str]:
    """Execution providers actually in use by the stages that run models."""
    seen: list[str] = []
    for stage in stages:
        for provider in getattr(stage, "providers", ()):
            if provider not in seen:
                seen.append(provider)
    return seen
