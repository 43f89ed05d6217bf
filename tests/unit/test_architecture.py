"""The tree shows the architecture: data flows one way, and no module of macros/, sizing/ or hooks/ is part
of an import cycle, counting imports made inside functions."""

import ast
from pathlib import Path

from sitebuild import ROOT

PACKAGES = ("macros", "sizing", "hooks")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every project module ``path`` imports, anywhere in it (a package import counts as its __init__)."""
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else module_name(path)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in found if name.split(".")[0] in PACKAGES}


def project_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    return {name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_is_part_of_an_import_cycle():
    assert cycles(project_graph()) == []


def test_the_sizing_engine_imports_nothing_of_the_site():
    offenders = {
        name: sorted(m for m in targets if not m.startswith("sizing"))
        for name, targets in project_graph().items()
        if name.startswith("sizing")
    }
    assert not any(offenders.values()), offenders


def test_macros_import_nothing_of_mkdocs_or_its_theme():
    offenders = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "macros").rglob("*.py")
        if any(
            name.split(".")[0] in ("mkdocs", "material")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
        )
    ]
    assert not offenders


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


PACKAGE_DIRS = {module_name(p.parent / "__init__.py") for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def folder_of(module: str) -> str:
    """A module's floor: the folder it sits in (``sizing.engine``, ``macros.page``; a folder's ``__init__`` is
    in that folder)."""
    return module if module in PACKAGE_DIRS else module.rsplit(".", 1)[0]


def test_no_folder_imports_one_that_imports_it_back():
    folders: dict[str, set[str]] = {}
    for name, targets in project_graph().items():
        folders.setdefault(folder_of(name), set()).update(
            folder_of(t) for t in targets if folder_of(t) != folder_of(name)
        )
    assert cycles(folders) == []


def test_the_engine_floors_import_downwards_only():
    floors = ["sizing.catalog", "sizing.engine", "sizing.views"]
    for name, targets in project_graph().items():
        if folder_of(name) in floors:
            above = floors[floors.index(folder_of(name)) + 1 :]
            assert not [t for t in targets if folder_of(t) in above], name


def test_the_hook_imports_one_public_surface_of_macros():
    hook_imports = imports_of(ROOT / "hooks" / "page_macros.py")
    assert {m.rsplit(".", 1)[0] if m.count(".") > 1 else m for m in hook_imports} == {"macros.build"}
