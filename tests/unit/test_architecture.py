"""The package's shape, checked as the test command runs: import-linter's contracts in pyproject.toml (ragqa never
imports ui or evals, ui never imports evals, ragqa's layers import only downwards, no import cycles among each
package's modules, imports inside functions included) hold, no module imports itself back through others, and ruff
is clean."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "0 broken" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_no_module_reaches_itself_through_its_imports():
    """Module-level cycles (a.py -> b.py -> a.py), inside subpackages too, imports inside functions counted."""
    import grimp

    for package in ("ragqa", "ui", "evals"):
        graph = grimp.build_graph(package)
        edges = {m: {x for x in graph.find_modules_directly_imported_by(m) if x.split(".")[0] == package}
                 for m in graph.modules}
        state: dict[str, int] = {}

        def visit(module, path):
            state[module] = 1
            for nxt in edges.get(module, ()):
                assert state.get(nxt) != 1, "import cycle: " + " -> ".join(path + [module, nxt])
                if nxt not in state:
                    visit(nxt, path + [module])
            state[module] = 2

        for module in sorted(edges):
            if module not in state:
                visit(module, [])


def test_the_command_list_comes_from_the_entry_points():
    """serve and eval are registered by ui/ and evals/ (pyproject.toml's ragqa.commands), not imported by ragqa."""
    from ragqa.cli import build_parser

    commands = build_parser(["--help"])._subparsers._group_actions[0].choices
    assert {"ingest", "search", "ask", "serve", "eval"} <= set(commands)
    assert {"serve", "eval"}.isdisjoint(build_parser(["search", "x"])._subparsers._group_actions[0].choices)


def test_ruff_is_clean():
    """ruff's rules in pyproject.toml (import order, unused imports, syntax, whitespace, line length 120) hold over
    the whole tree."""
    ruff = Path(sys.executable).with_name("ruff")
    proc = subprocess.run([str(ruff), "check", "--no-cache", "ragqa", "ui", "evals", "tests", "scripts"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]
