"""What the output guard is doing, in words: the preview's RAW tag, the Outputs panel's
line and the status bar's few words."""

from __future__ import annotations

from app.gui.i18n import QT_TR_NOOP, tr
from engine.core.packet import SwapCheck, SwapMiss
from engine.core.settings import OutputSettings
from engine.outputs.guard import GuardStatus

# Why the swap missed (engine.core.packet.SwapMiss), in words.
MISS_TEXT: dict[SwapMiss, str] = {
    "starting": QT_TR_NOOP("starting"),
    "stage_failed": QT_TR_NOOP("a processing step failed"),
    "no_face": QT_TR_NOOP("no face found"),
    "swap_off": QT_TR_NOOP("face swap is off"),
    "no_source": QT_TR_NOOP("no source face chosen"),
    "not_swapped": QT_TR_NOOP("a face was not swapped"),
}
COVERS = {
    "blur": QT_TR_NOOP("blurred"),
    "pixelate": QT_TR_NOOP("pixelated"),
    "blur-face": QT_TR_NOOP("faces blurred"),
    "pixelate-face": QT_TR_NOOP("faces pixelated"),
    "card": QT_TR_NOOP("a card"),
}


def raw_marker(check: SwapCheck | None, output: OutputSettings) -> str:
    """The preview's tag for a frame the swap missed ("" for a swapped one)."""
    if check is not None and check.swapped:
        return ""
    why = tr(MISS_TEXT[check.miss]) if check is not None and check.miss else tr("starting")
    if output.on_face_lost == "off":
        return tr("RAW ({why}) — SENT TO THE OUTPUTS: protection is off").format(why=why)
    cover = tr(COVERS[output.on_face_lost])
    return tr("RAW ({why}) — the outputs show {cover}").format(why=why, cover=cover)


def short_guard_text(status: GuardStatus) -> str:
    """The status bar's few words on what the outputs show."""
    why = tr(MISS_TEXT[status.miss]) if status.miss else ""
    texts = {
        None: tr("Outputs: waiting"),
        "swapped": tr("Outputs: swapped ✓"),
        "held": tr("Outputs: holding ({why})"),
        "covered": tr("Outputs: covered ({why})"),
        "card": tr("Outputs: card ({why})"),
        "raw": tr("Outputs: UNPROTECTED"),
    }
    return texts[status.decision].format(why=why)


def guard_text(status: GuardStatus) -> str:
    """What the outputs show now, in words."""
    why = tr(MISS_TEXT[status.miss]) if status.miss else ""
    texts = {
        None: tr("Protection: waiting for the first frame"),
        "swapped": tr("Protection: the outputs show the swapped picture"),
        "held": tr("Protection: holding the last swapped frame ({why})"),
        "covered": tr("Protection: the outputs are covered ({why})"),
        "card": tr("Protection: the outputs show a card ({why})"),
        "raw": tr("Protection OFF: the outputs show your camera image"),
    }
    return texts[status.decision].format(why=why)
