"""Draws the import graph between Fusecam's packages as a Mermaid flowchart, from the code.

It reads the imports with grimp (the library import-linter checks the contracts with),
keeps the direct imports between the packages below and drops every edge another path
already implies (A → C when A → B → C), so the picture shows the layering rather than
every line. docs/architecture.md embeds the output between two markers, and
tests/test_architecture_doc.py fails when the code and the picture disagree.

Run: .venv/bin/python tools/import_graph.py            # print the diagram
     .venv/bin/python tools/import_graph.py --write    # update docs/architecture.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- import-graph:begin (tools/import_graph.py --write) -->"
END = "<!-- import-graph:end -->"

# The packages drawn, top (front-ends) to bottom, with what each holds.
PACKAGES = {
    "app.cli": "app/cli — argparse: run, swap, bench, check, models",
    "app.gui": "app/gui — Qt: window, widgets, controllers",
    "engine.tools": "tools — bench, doctor, offline runs (fusecam swap)",
    "engine.runtime": "runtime — LiveSession, Engine thread, stage assembly, governor",
    "engine.persist": "persist — the app's saved state (settings file)",
    "engine.outputs": "outputs — OutputSet, delay line, virtual camera, stream, recorder",
    "engine.sources": "sources — camera, video, image, demo",
    "engine.stages": "stages — Stage base and one thin wrapper per step",
    "engine.swap": "swap — identities, renderer, shape, colour, internal scale",
    "engine.hands": "hands — palm detector, hand landmarks, mask",
    "engine.neural": "neural — ArcFace, inswapper, GFPGAN on onnxruntime",
    "engine.render": "render — rasteriser, UV map, compositor maths",
    "engine.face": "face — detector, mesh, tracking, fit",
    "engine.models": "models — manifest, store, downloads, onnx sessions",
    "engine.watermark": "watermark — invisible mark: embed, detect, check",
    "engine.core": "core — packet and face records, settings, threads, slots, stats, types",
}


def direct_edges() -> set[tuple[str, str]]:
    graph = grimp.build_graph("engine", "app", cache_dir=None)
    return {
        (a, b)
        for a in PACKAGES
        for b in PACKAGES
        if a != b and graph.direct_import_exists(importer=a, imported=b, as_packages=True)
    }


def reduce(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The transitive reduction: an edge stays only if no longer path through the engine
    joins its ends (paths through the other front-end do not count: the CLI starts the
    GUI, but its commands drive the engine themselves)."""

    def reachable(start: str, skip: tuple[str, str]) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            node = todo.pop()
            for a, b in edges:
                if a == node and (a, b) != skip and b not in seen:
                    seen.add(b)
                    if b.startswith("engine."):
                        todo.append(b)
        return seen

    return {(a, b) for a, b in edges if b not in reachable(a, (a, b))}


def mermaid(edges: set[tuple[str, str]]) -> str:
    def node(name: str) -> str:
        return name.replace(".", "_")

    lines = ["```mermaid", "flowchart TD"]
    lines += [f'    {node(name)}["{label}"]' for name, label in PACKAGES.items()]
    order = list(PACKAGES)
    for a, b in sorted(edges, key=lambda e: (order.index(e[0]), order.index(e[1]))):
        lines.append(f"    {node(a)} --> {node(b)}")
    lines.append("```")
    return "\n".join(lines)


def diagram() -> str:
    return mermaid(reduce(direct_edges()))


def embedded(text: str) -> str:
    """The diagram currently between the markers of a document."""
    return text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"update {DOC.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    drawn = diagram()
    if not args.write:
        print(drawn)
        return 0
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + drawn + "\n" + text[end:], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
