"""The Models dialog's words: columns, model families, states, what "Use" sets."""

from __future__ import annotations

from app.gui.i18n import QT_TR_NOOP, tr
from engine.models import ModelStatus

COLUMNS = (
    QT_TR_NOOP("Name"),
    QT_TR_NOOP("Family"),
    QT_TR_NOOP("Size"),
    QT_TR_NOOP("State"),
    QT_TR_NOOP("Licence"),
)
# What "Use" sets for a model of each family (settings path, value is the model name).
USE: dict[str, tuple[tuple[str, str | None], ...]] = {
    "inswapper": (("swap.swapper", "inswapper"), ("models.swapper_model", None)),
    "gfpgan": (("enhancer.mode", "neural"), ("models.enhancer_model", None)),
    "arcface": (("models.recognition_model", None),),
}
FAMILY_TEXT = {
    "inswapper": QT_TR_NOOP("face swapper"),
    "arcface": QT_TR_NOOP("identity (for the swapper)"),
    "gfpgan": QT_TR_NOOP("face enhancer"),
}


STATES = {
    "ready": QT_TR_NOOP("ready"),
    "unverified": QT_TR_NOOP("present (not verified yet)"),
    "missing": QT_TR_NOOP("not downloaded"),
    "partial": QT_TR_NOOP("partly downloaded ({mb})"),
    "corrupt": QT_TR_NOOP("hash mismatch"),
}


def state_text(status: ModelStatus) -> str:
    """A model's state in the user's language (ModelStatus.label, translated)."""
    text = tr(STATES[status.state]).format(mb=mb(status.part_bytes))
    if status.spec.user_supplied:
        text += tr(" — user supplied, unverified")
    return text


def mb(size: int | None) -> str:
    return "?" if not size else f"{size / 1e6:.1f} MB"
