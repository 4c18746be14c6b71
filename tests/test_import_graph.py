"""The import structure (docs/adding-a-game.md): core names no game and imports no game, baseline or
encoder module; no meeple_gym modules import each other in a cycle.

Read from the source with ``ast`` (every import statement, also those inside functions, since a
lazy import is a dependency too), so nothing here imports the modules it checks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import meeple_gym as mg

ROOT = Path(__file__).resolve().parents[1]
# Import name -> folder, as pyproject's [tool.setuptools.package-dir] maps them.
PACKAGES = {
    "meeple_gym": ROOT / "envs",
    "meeple_gym.encoders": ROOT / "encoders",
    "meeple_gym.baselines": ROOT / "baselines",
}
CORE = "meeple_gym.core"


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = [p for p in path.relative_to(folder).with_suffix("").parts if p != "__init__"]
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _imported_names(name: str, path: Path) -> set[str]:
    """Absolute names of everything module ``name`` imports (``from a import b``: ``a.b`` if
    that is a module, else ``a``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".")
                keep = len(package) - node.level + (path.name == "__init__.py")
                base = ".".join(package[:keep] + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                names.add(full if full in MODULES else base)
    return names


def _edges(name: str) -> set[str]:
    """The meeple_gym modules ``name`` imports (a submodule counts as the module holding it)."""
    out = set()
    for imported in _imported_names(name, MODULES[name]):
        while imported and imported not in MODULES:
            imported = imported.rpartition(".")[0]
        if imported and imported != name:
            out.add(imported)
    return out


GRAPH = {name: _edges(name) for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_sees_the_modules_and_their_lazy_imports():
    assert f"{CORE}.registry" in MODULES and f"{CORE}.aec" in MODULES
    # registry.make imports the AEC env inside the function: that is an edge too.
    assert f"{CORE}.aec" in GRAPH[f"{CORE}.registry"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_core_imports_only_core():
    outside = {
        name: sorted(e for e in edges if not e.startswith(CORE))
        for name, edges in GRAPH.items()
        if name.startswith(CORE)
    }
    assert {name: edges for name, edges in outside.items() if edges} == {}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def test_core_names_no_game():
    games = set(mg.available_games()) | {"minimal"}
    banned = [f"meeple_gym.{g}" for g in games] + ["meeple_gym.baselines", "meeple_gym.encoders"]
    hits = []
    for name, path in MODULES.items():
        if not name.startswith(CORE):
            continue
        tree = ast.parse(path.read_text(), str(path))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in docs:
                    continue  # examples in docstrings may name a game
                text = node.value
                if text.lower() in games or any(b in text for b in banned):
                    hits.append(f"{name}:{node.lineno}: {text!r}")
    assert hits == []


def test_no_import_cycles():
    assert f"{CORE}.registry" not in GRAPH[f"{CORE}.aec"]
    assert _cycles(GRAPH) == []
