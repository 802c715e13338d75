"""Print ragqa's dependency graph as a Markdown page with two Mermaid diagrams drawn from the code (grimp, imports
inside functions included): the layers (subpackages) and the modules inside them.
.venv/bin/python scripts/draw_dependencies.py > docs/dependencies.md"""
from __future__ import annotations

from collections import defaultdict

import grimp


def _layer(module: str) -> str:
    return module.split(".")[1]  # a subpackage, or a top-level module (pipeline, cli, config …) as its own layer


def main() -> None:
    graph = grimp.build_graph("ragqa")
    modules = sorted(m for m in graph.modules if m.count(".") and not graph.find_children(m))
    edges = sorted({(m, i) for m in modules for i in graph.find_modules_directly_imported_by(m) if i in modules})
    print("# ragqa's dependencies\n\nDrawn from the code: `.venv/bin/python scripts/draw_dependencies.py > "
          "docs/dependencies.md`. An arrow points from the importer to the imported. The layers contract in "
          "pyproject.toml (checked by the test command) keeps every arrow pointing down.\n")
    print("## Layers\n\n```mermaid\ngraph TD")
    for a, b in sorted({(_layer(a), _layer(b)) for a, b in edges if _layer(a) != _layer(b)}):
        print(f"  {a} --> {b}")
    print("```\n\n## Modules\n\n```mermaid\ngraph LR")
    by_layer = defaultdict(list)
    for m in modules:
        by_layer[_layer(m)].append(m)
    for layer, members in sorted(by_layer.items()):
        nodes = [f"{m.removeprefix('ragqa.').replace('.', '_')}[{m.rsplit('.', 1)[1]}]" for m in members]
        print("\n".join([f"  subgraph {layer}", *("    " + n for n in nodes), "  end"]) if members[0].count(".") > 1
              else "  " + nodes[0])
    for a, b in edges:
        print(f"  {a.removeprefix('ragqa.').replace('.', '_')} --> {b.removeprefix('ragqa.').replace('.', '_')}")
    print("```")


if __name__ == "__main__":
    main()
