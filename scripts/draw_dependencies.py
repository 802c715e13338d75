"""Print ragqa's module dependency graph as a Markdown page with a Mermaid diagram, drawn from the code (grimp, imports
inside functions included): .venv/bin/python scripts/draw_dependencies.py > docs/dependencies.md"""
from __future__ import annotations

import grimp


def main() -> None:
    graph = grimp.build_graph("ragqa")
    modules = sorted(m for m in graph.modules if m != "ragqa" and not m.startswith("ragqa.calibration"))
    print("# ragqa's module dependencies\n\nDrawn from the code: `.venv/bin/python scripts/draw_dependencies.py > "
          "docs/dependencies.md`. An arrow points from the importing module to the imported one.\n\n```mermaid\ngraph LR")
    for module in modules:
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported in modules:
                print(f"  {module.removeprefix('ragqa.')} --> {imported.removeprefix('ragqa.')}")
    print("```")


if __name__ == "__main__":
    main()
