"""The control panel: every engine setting a streamer touches, on four tabs.

Swap (the face, its blend, enhancer) · Outputs (the window adds the output toggles; the
guard's policy, the label) · Input · Models. Tabs keep everything one click away in a
640-pixel-high window, where one long column put Outputs and Models below the fold.
Each control names the settings path it edits (app/gui/widgets/bound.py) and emits
`setting_changed(path, value)`; the window applies it to the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.gui.i18n import QT_TR_NOOP, tr
from app.gui.widgets.bound import Binding, Bindings
from app.gui.widgets.input_picker import InputPicker
from engine.core.settings import MAX_HOLD_MS, EngineSettings
from engine.core.settings_paths import get_path, has_path
from engine.models.onnx import offered_providers
from engine.sources.base import SourceInfo
from engine.sources.choice import InputChoice

PROVIDER_LABELS = {
    "auto": QT_TR_NOOP("Automatic"),  # the best available; fits the narrow panel
    "cuda": "NVIDIA CUDA",
    "tensorrt": "NVIDIA TensorRT",
    "coreml": "Apple CoreML",
    "directml": QT_TR_NOOP("DirectML (Windows GPU)"),
    "openvino": "Intel OpenVINO",
    "cpu": "CPU",
}
FACE_LOST = (
    (QT_TR_NOOP("Blur the picture"), "blur"),
    (QT_TR_NOOP("Pixelate the picture"), "pixelate"),
    (QT_TR_NOOP("Blur the faces"), "blur-face"),
    (QT_TR_NOOP("Pixelate the faces"), "pixelate-face"),
    (QT_TR_NOOP("Show a “Be right back” card"), "card"),
    (QT_TR_NOOP("Send the camera image (unsafe)"), "off"),
)

# Occlusion options appear only when the engine's settings offer them.
OPTIONAL_TOGGLES: tuple[tuple[str, str], ...] = (
    ("hands.enabled", QT_TR_NOOP("Keep hands over the face visible")),
)
TABS = (QT_TR_NOOP("Swap"), QT_TR_NOOP("Outputs"), QT_TR_NOOP("Input"), QT_TR_NOOP("Models"))


def _page(*groups: QWidget) -> tuple[QScrollArea, QVBoxLayout]:
    """A tab's page: groups stacked at the top, scrolling when the window is short."""
    body = QWidget()
    layout = QVBoxLayout(body)
    layout.setContentsMargins(8, 8, 8, 8)
    layout.setSpacing(10)
    for group in groups:
        layout.addWidget(group)
    layout.addStretch(1)
    scroll = QScrollArea()
    scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the controls (it follows)
    scroll.setWidgetResizable(True)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setWidget(body)
    return scroll, layout


def _hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("hint")
    label.setWordWrap(True)
    return label


class ControlPanel(QWidget):
    setting_changed = Signal(str, object)
    input_changed = Signal(object)  # InputChoice
    browse_input_requested = Signal()
    refresh_cameras_requested = Signal()
    manage_models_requested = Signal()

    def __init__(self, settings: EngineSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("controlPanel")
        self._bound = Bindings(self)
        self._bound.changed.connect(self.setting_changed)
        self.bindings: dict[str, Binding] = self._bound.items
        self.picker = InputPicker()
        self.picker.input_changed.connect(self.input_changed)
        self.picker.browse_input_requested.connect(self.browse_input_requested)
        self.picker.refresh_cameras_requested.connect(self.refresh_cameras_requested)
        self.input_combo = self.picker.input_combo
        self.resolution_combo = self.picker.resolution_combo
        self.fps_combo = self.picker.fps_combo
        self.tabs = QTabWidget()
        self.tabs.setObjectName("controlTabs")
        self.tabs.setAccessibleName(tr("Control panel"))
        swap_page, _ = _page(self._swap_group(settings), self._enhancer_group())
        outputs_page, self.outputs_layout = _page(self._guard_group(), self._look_group())
        input_page, _ = _page(self._input_group())
        models_page, _ = _page(self._models_group())
        for page, title in zip(
            (swap_page, outputs_page, input_page, models_page), TABS, strict=True
        ):
            self.tabs.addTab(page, tr(title))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.sync(settings)

    def content_width(self) -> int:
        """The width the widest tab's controls need, scroll bar and frame included."""
        widths = []
        for index in range(self.tabs.count()):
            page = self.tabs.widget(index)
            body = page.widget() if isinstance(page, QScrollArea) else None
            if body is not None:
                widths.append(body.sizeHint().width())
        scrollbar = self.style().pixelMetric(self.style().PixelMetric.PM_ScrollBarExtent)
        return max(widths, default=0) + scrollbar + 12

    def add_to_outputs(self, widget: QWidget) -> None:
        """The window's output toggles go first on the Outputs tab."""
        self.outputs_layout.insertWidget(0, widget)

    # --- groups -------------------------------------------------------------------------
    def _swap_group(self, settings: EngineSettings) -> QGroupBox:
        b = self._bound
        group = QGroupBox(tr("Face swap"))
        form = QFormLayout(group)
        form.addRow(b.check("swap.enabled", tr("Swap faces (S)")))
        # Each swapper has its own amount; only the active one's is shown.
        self.blend = b.slider("swap.blend", tr("Blend"), 100, 0, 100)
        self.blend.setToolTip(
            tr(
                "Built-in swapper: how much of the new face replaces yours, and how far "
                "the face shape moves. 100 %: all of it."
            )
        )
        form.addRow(tr("Blend"), self.blend)
        self.latent_blend = b.slider("swap.latent_blend", tr("Identity mix"), 100, 0, 100)
        self.latent_blend.setToolTip(
            tr(
                "Neural swapper: how much of the source's identity the model is given, "
                "mixed with yours. 100 %: the source's alone."
            )
        )
        form.addRow(tr("Identity mix"), self.latent_blend)
        self.face_shape = b.slider("swap.shape_alpha", tr("Face shape"), 100, 0, 100)
        form.addRow(tr("Face shape"), self.face_shape)
        self._swap_form = form
        self.likeness = b.slider("swap.likeness", tr("Likeness"), 100, 0, 100)
        self.likeness.setToolTip(
            tr(
                "How much of the source photo's own skin shading the built-in swap keeps. "
                "Higher looks more like the photo, lower sits more naturally in your light."
            )
        )
        form.addRow(tr("Likeness"), self.likeness)
        eyes = (
            (tr("Yours"), "yours"),
            (tr("The photo's"), "photo"),
            (tr("The photo's, following you"), "photo_following"),
        )
        self.eyes = b.combo("swap.eyes", tr("Eyes"), eyes)
        self.eyes.setToolTip(
            tr(
                "What shows between the lids. Yours: your own eyes in the source's iris "
                "colour; they blink and look where you look. The photo's: as the source "
                "was photographed (looks more like the photo, never blinks or looks "
                "around). Following you (experimental): the photo's eyes turned to look "
                "where you look; their whites look flat."
            )
        )
        form.addRow(tr("Eyes"), self.eyes)
        faces = (
            (tr("Main face"), "main"),
            (tr("All faces"), "all"),
            (tr("Map left → right"), "map"),
        )
        form.addRow(tr("Faces"), b.combo("swap.face_selection", tr("Faces"), faces))
        self.mapping_label = _hint("")
        form.addRow(self.mapping_label)
        form.addRow(b.check("swap.keep_mouth_interior", tr("Keep my mouth interior")))
        self.source_beard = b.check("swap.keep_source_beard", tr("Draw the source's beard"))
        self.source_beard.setToolTip(
            tr(
                "Off: where the source photo has a beard, moustache or stubble, your own "
                "chin shows (drawn in your light it looks like a grey smear). On: the "
                "source's beard is drawn; it looks more like the photo."
            )
        )
        form.addRow(self.source_beard)
        self.color_match = b.check("compositor.color_match", tr("Match skin colour"))
        form.addRow(self.color_match)
        # The built-in swapper's own controls, and why each does nothing under a neural
        # swapper (it renders the whole face itself): shown disabled, with the reason.
        self._builtin_only: list[tuple[QWidget, str]] = [
            (
                self.face_shape,
                tr("Built-in swapper only: the neural swapper's model shapes the face."),
            ),
            (
                self.likeness,
                tr(
                    "Built-in swapper only: the neural swapper's model draws the skin "
                    "and its shading."
                ),
            ),
            (
                self.eyes,
                tr(
                    "Built-in swapper only: the neural swapper's model draws the eyes "
                    "looking where yours look."
                ),
            ),
            (
                self.color_match,
                tr("Built-in swapper only: the neural swapper's model sets the skin colour."),
            ),
            (
                self.source_beard,
                tr("Built-in swapper only: the neural swapper's model draws the whole face."),
            ),
        ]
        self._own_tips = {widget: widget.toolTip() for widget, _ in self._builtin_only}
        feather = b.slider("compositor.seam_width", tr("Edge softness"), 100, 2, 60)
        form.addRow(tr("Edge softness"), feather)
        for path, text in OPTIONAL_TOGGLES:
            if has_path(settings, path) and isinstance(get_path(settings, path), bool):
                form.addRow(b.check(path, tr(text)))
        return group

    def _enhancer_group(self) -> QGroupBox:
        b = self._bound
        group = QGroupBox(tr("Enhancer"))
        form = QFormLayout(group)
        modes = ((tr("Off"), "off"), (tr("Built-in"), "builtin"), (tr("Neural (ONNX)"), "neural"))
        form.addRow(tr("Mode (E)"), b.combo("enhancer.mode", tr("Enhancer mode"), modes))
        self.enhancer_model = b.combo("models.enhancer_model", tr("Neural enhancer model"), ())
        self.enhancer_model.setToolTip(tr("Add GFPGAN-style models in Models → Manage models"))
        form.addRow(tr("Model"), self.enhancer_model)
        self.set_enhancer_models(())
        form.addRow(
            tr("Strength"), b.slider("enhancer.strength", tr("Enhancer strength"), 100, 0, 100)
        )
        self.enhancer_cost = _hint(tr("cost: toggle to measure"))
        form.addRow(self.enhancer_cost)
        # The quality governor steps the enhancer (then more) down to hold this rate.
        targets = ((tr("Off"), None), ("24 fps", 24.0), ("30 fps", 30.0), ("60 fps", 60.0))
        target = b.combo("quality.target_fps", tr("Minimum frame rate"), targets)
        target.setToolTip(
            tr(
                "When processing cannot keep this frame rate, quality steps down by itself "
                "(the enhancer first, then face search and render scale) and back up when "
                "it can. Off: always full quality, whatever the frame rate."
            )
        )
        form.addRow(tr("Min. fps"), target)
        return group

    def _guard_group(self) -> QGroupBox:
        b = self._bound
        group = QGroupBox(tr("When the swap misses"))
        form = QFormLayout(group)
        form.addRow(
            _hint(
                tr(
                    "Face lost, no face, or still loading: the outputs show the last swapped "
                    "frame for a moment, then this — never your camera image."
                )
            )
        )
        hold = b.spin(
            "output.hold_ms", tr("Hold the last swapped frame"), 0, MAX_HOLD_MS, 100, " ms"
        )
        form.addRow(tr("Hold"), hold)
        options = [(tr(text), value) for text, value in FACE_LOST]
        form.addRow(tr("Then"), b.combo("output.on_face_lost", tr("Then show"), options))
        return group

    def _look_group(self) -> QGroupBox:
        b = self._bound
        group = QGroupBox(tr("Label and overlay"))
        form = QFormLayout(group)
        form.addRow(
            b.check(
                "output.synthetic_label",
                tr("Show a “SYNTHETIC” label"),
                tr("On every output: virtual camera, stream and recording"),
            )
        )
        form.addRow(b.check("output.debug_overlay", tr("Debug overlay")))
        return group

    def _input_group(self) -> QGroupBox:
        group = QGroupBox(tr("Input"))
        layout = QVBoxLayout(group)
        layout.addWidget(self.picker)
        layout.addWidget(self._bound.check("output.mirror", tr("Mirror (M)")))
        return group

    def _models_group(self) -> QGroupBox:
        b = self._bound
        group = QGroupBox(tr("Models"))
        form = QFormLayout(group)
        swappers = (
            (tr("Built-in (no download)"), "builtin"),
            (tr("Neural (inswapper)"), "inswapper"),
        )
        form.addRow(tr("Swapper"), b.combo("swap.swapper", tr("Swapper"), swappers))
        providers = [(tr(PROVIDER_LABELS.get(p, p)), p) for p in offered_providers()]
        run_on = b.combo("models.provider", tr("Run on"), providers)
        run_on.setToolTip(
            tr(
                "Automatic: the best available (an NVIDIA GPU with CUDA when there is "
                "one, else the CPU)"
            )
        )
        form.addRow(tr("Run on"), run_on)
        form.addRow(_hint(tr("Changing these reloads the models in the background.")))
        manage = QPushButton(tr("Manage models…"))
        manage.setAccessibleName(tr("Manage models"))
        manage.setToolTip(tr("List, download, verify, add, remove and choose neural models"))
        manage.clicked.connect(self.manage_models_requested)
        self.manage_models_button = manage
        form.addRow(manage)
        return group

    # --- input (delegated to the picker) ------------------------------------------------
    def set_cameras(self, indices: Sequence[int]) -> None:
        self.picker.set_cameras(indices)

    def set_input(self, choice: InputChoice, info: SourceInfo | None = None) -> None:
        self.picker.set_input(choice, info)

    @property
    def choice(self) -> InputChoice:
        return self.picker.choice

    # --- display --------------------------------------------------------------------
    def sync(self, settings: EngineSettings) -> None:
        """Show a settings tree (no signals)."""
        chosen = settings.models.enhancer_model
        if chosen and self.enhancer_model.findData(chosen) < 0:
            self.enhancer_model.addItem(chosen, chosen)  # a path, or a model since removed
        self._bound.show(settings)
        self.mapping_label.setVisible(settings.swap.face_selection == "map")
        self._show_swapper_controls(settings.swap.swapper == "builtin")

    def _show_swapper_controls(self, builtin: bool) -> None:
        """The active swapper's amount; the built-in swapper's own controls (face shape,
        likeness, eyes, skin colour) disabled under a neural one, their tooltip saying
        why (their own tooltip again under the built-in one)."""
        self._swap_form.setRowVisible(self.blend, builtin)
        self._swap_form.setRowVisible(self.latent_blend, not builtin)
        for control, why in self._builtin_only:
            tip = self._own_tips[control] if builtin else why
            label = self._swap_form.labelForField(control)
            for widget in (control, label):
                if widget is not None:
                    widget.setEnabled(builtin)
                    widget.setToolTip(tip)

    def set_enhancer_models(self, names: Sequence[str]) -> None:
        """The neural enhancers to choose from (registered GFPGAN-style models)."""
        combo = self.enhancer_model
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(tr("None chosen"), "")
        for name in names:
            combo.addItem(name, name)
        index = combo.findData(current)
        if current and index < 0:
            combo.addItem(str(current), current)
            index = combo.count() - 1
        combo.setCurrentIndex(max(0, index))
        combo.blockSignals(False)

    def set_mapping_text(self, names: Sequence[str], mapping: bool) -> None:
        """The left → right mapping in map mode (or how to make one)."""
        if names:
            self.mapping_label.setText(tr("Left → right: {names}").format(names=", ".join(names)))
        else:
            self.mapping_label.setText(
                tr(
                    "Nothing mapped: no face is swapped. Ctrl+click faces in the gallery "
                    "to map them left → right."
                )
            )
        self.mapping_label.setVisible(mapping)

    def set_enhancer_cost(self, text: str) -> None:
        self.enhancer_cost.setText(text)
