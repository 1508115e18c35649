"""The layers of docs/architecture.md hold: no import runs from a lower layer up, and none goes round
in a circle. Every import statement counts, function-level ones included (a lazy import is still a
dependency); the table is read from the document itself, so code and document cannot drift apart."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("auditflow", "pytest_auditflow")
_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|")


def layers() -> dict[str, int]:
    """Module prefix -> layer number, from the "Layers" table of docs/architecture.md."""
    out: dict[str, int] = {}
    for line in (REPO / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines():
        if m := _ROW.match(line):
            for name in re.findall(r"`([\w.]+)`", m.group(2)):
                out[name] = int(m.group(1))
    return out


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(mods: dict[str, Path]) -> nx.DiGraph:
    """Module -> module for every import of one project module by another (from-imports of a name
    that is itself a module count as that module)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(mods)
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph.add_edge(name, target, line=node.lineno)
    return graph


def layer_of(module: str, table: dict[str, int]) -> int | None:
    """The layer of the longest table entry that is ``module`` or a package above it."""
    while module:
        if module in table:
            return table[module]
        module = module.rpartition(".")[0]
    return None


def test_every_module_has_a_layer():
    table = layers()
    assert table, "docs/architecture.md has no layers table"
    missing = sorted(m for m in modules() if layer_of(m, table) is None)
    assert not missing, f"modules without a layer in docs/architecture.md: {missing}"


def test_no_import_runs_from_a_lower_layer_to_a_higher_one():
    table, mods = layers(), modules()
    graph = imports(mods)
    upward = [f"{a} (layer {layer_of(a, table)}, line {d['line']}) imports {b} (layer {layer_of(b, table)})"
              for a, b, d in graph.edges(data=True) if layer_of(b, table) > layer_of(a, table)]
    assert not upward, "imports that run back up:\n" + "\n".join(sorted(upward))


def test_no_import_cycle():
    cycles = sorted(sorted(c) for c in nx.simple_cycles(imports(modules())))
    assert not cycles, f"import cycles: {cycles}"


def test_the_check_sees_a_planted_upward_import_and_a_cycle(tmp_path):
    """The scan itself: an import up a layer and a circle of two modules are both found."""
    table = {"low": 1, "high": 2}
    (tmp_path / "low.py").write_text("def f():\n    from high import g\n")
    (tmp_path / "high.py").write_text("import low\n")
    mods = {"low": tmp_path / "low.py", "high": tmp_path / "high.py"}
    graph = imports(mods)
    assert [(a, b) for a, b in graph.edges if layer_of(b, table) > layer_of(a, table)] == [("low", "high")]
    assert sorted(sorted(c) for c in nx.simple_cycles(graph)) == [["high", "low"]]
