"""`engine` holds no code that only the desktop GUI uses: such a helper lives in app/gui.

A module of `engine` whose direct importers are all in `app.gui` fails here, unless it is
engine machinery the GUI happens to be the only user of today, listed with the reason.
(Tests and the scripts in tools/ are not users: code only they reach is not shared.)"""

from __future__ import annotations

import grimp
import pytest

GUI = "app.gui"

# module → why it is engine code although only the GUI imports it.
ENGINE_MACHINERY = {
    "engine.runtime.previews": (
        "the gallery's preview renderer: a low-priority engine worker paced by the engine's "
        "output and input drops that runs the stream's swapper (preview_swapper); no Qt"
    ),
    "engine.core.settings_paths": (
        "edits the frozen EngineSettings tree by dotted path, validated by its dataclasses: "
        "engine settings logic with nothing of the GUI in it (a `--set swap.blend=…` flag "
        "could use it)"
    ),
}


def _is_gui(module: str) -> bool:
    return module == GUI or module.startswith(GUI + ".")


def gui_only(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Engine modules imported directly by the GUI and by nothing else: → their importers."""
    found: dict[str, set[str]] = {}
    for module in graph.modules:
        if module != "engine" and not module.startswith("engine."):
            continue
        importers = graph.find_modules_that_directly_import(module)
        if importers and all(_is_gui(importer) for importer in importers):
            found[module] = importers
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("engine", "app", cache_dir=None)


def test_engine_has_no_code_only_the_gui_uses(graph: grimp.ImportGraph) -> None:
    found = gui_only(graph)
    offenders = {m: sorted(i) for m, i in found.items() if m not in ENGINE_MACHINERY}
    assert not offenders, (
        "only app/gui imports these engine modules: move them into app/gui, or list them in "
        f"ENGINE_MACHINERY with why they are engine code: {offenders}"
    )


def test_each_allowed_module_is_still_gui_only(graph: grimp.ImportGraph) -> None:
    # An entry that no longer applies (the module moved, or engine or the CLI use it
    # now) is dropped, so the list stays the short, true one.
    stale = sorted(set(ENGINE_MACHINERY) - set(gui_only(graph)))
    assert not stale, f"no longer imported by the GUI alone; drop from ENGINE_MACHINERY: {stale}"


def test_the_check_sees_a_gui_only_module() -> None:
    graph = grimp.ImportGraph()
    for module in ("app.gui.window", "app.cli.run", "engine.runtime.session"):
        graph.add_module(module)
    graph.add_import(importer="app.gui.window", imported="engine.core.gui_helper")
    graph.add_import(importer="app.gui.window", imported="engine.core.shared")
    graph.add_import(importer="app.cli.run", imported="engine.core.shared")
    graph.add_import(importer="app.gui.window", imported="engine.core.deep")
    graph.add_import(importer="engine.runtime.session", imported="engine.core.deep")
    assert gui_only(graph) == {"engine.core.gui_helper": {"app.gui.window"}}
