"""The folder tree is the architecture: layers point one way, and nothing imports in a circle.

Every module of the package is parsed (``ast``, nothing is imported), and every
import of the package is collected, the ones inside functions too: a lazy
import is still a dependency.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "reasoneval_mini"

#: Layer of each top-level part of the package; a module may import only from a
#: lower layer or from its own part. Parts that share a layer stay independent
#: (lessons, exercises and evaluation do not import each other).
LAYERS = {
    "support": 0,
    "answers": 1, "estimators": 1, "records": 1, "course_map": 1, "sandbox": 1, "editions": 1,
    "runner": 2,
    "executor": 3, "datasets": 3, "normalise": 3,
    "lessons": 4, "exercises": 4, "evaluation": 4,
    "grading": 5,
    "feedback": 6,
    "cli": 7,
}
#: ``reasoneval_mini/__init__.py`` re-exports public names; others may take only this from it.
FROM_ROOT_ALLOWED = {"__version__"}


def module_name(path, package=PACKAGE):
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_imports(path, package=PACKAGE):
    """``[(line, imported module, names)]`` for every import of the package in *path*."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path, package).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(here[: len(here) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            found.append((node.lineno, target, tuple(a.name for a in node.names)))
    return [(line, target, names) for line, target, names in found
            if target == "reasoneval_mini" or target.startswith("reasoneval_mini.")]


def part_of(module):
    """The top-level part a dotted module name belongs to (``None`` for the package root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_part_of_the_package_has_a_layer():
    parts = {part_of(module_name(path)) for path in MODULES} - {None, "__main__"}
    assert parts <= set(LAYERS), f"parts without a layer: {sorted(parts - set(LAYERS))}"


@pytest.mark.parametrize("path", MODULES, ids=lambda path: module_name(path))
def test_imports_point_down_the_layers(path):
    source = module_name(path)
    source_part = part_of(source)
    if source_part in (None, "__main__"):
        return  # the package root re-exports; __main__ only starts the cli
    wrong = []
    for line, target, names in package_imports(path):
        target_part = part_of(target)
        if target_part is None:
            if not set(names) <= FROM_ROOT_ALLOWED:
                wrong.append(f"line {line}: from reasoneval_mini import {', '.join(names)} "
                             "(import from the defining module)")
        elif target_part != source_part and LAYERS[target_part] >= LAYERS[source_part]:
            wrong.append(f"line {line}: {target} (layer {LAYERS[target_part]}) from "
                         f"{source_part} (layer {LAYERS[source_part]})")
    assert not wrong, f"{source} imports upward or sideways:\n" + "\n".join(wrong)


def test_no_module_imports_in_a_circle():
    names = {module_name(path) for path in MODULES}
    graph = {}
    for path in MODULES:
        targets = set()
        for _, target, imported in package_imports(path):
            # "from package import submodule" depends on the submodule.
            targets |= {f"{target}.{n}" for n in imported if f"{target}.{n}" in names}
            if target in names:
                targets.add(target)
        graph[module_name(path)] = targets - {module_name(path)}
    # Packages depend on their __init__ only through re-exports, which the
    # layer test already limits; the root is left out so its facade is no cycle.
    graph.pop("reasoneval_mini", None)
    for targets in graph.values():
        targets.discard("reasoneval_mini")
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def _find_cycle(graph):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle_and_accepts_a_tree():
    # The checker itself must be able to fail.
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_import_reader_sees_relative_imports_and_imports_inside_functions(tmp_path):
    # A throwaway file shaped like a package module: parsed, never imported.
    probe = tmp_path / "reasoneval_mini" / "lessons" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from ..answers import parse_rational\n"
                     "def f():\n    from reasoneval_mini.grading import grader\n")
    found = [(line, target) for line, target, _ in
             package_imports(probe, package=tmp_path / "reasoneval_mini")]
    assert found == [(1, "reasoneval_mini.answers"), (3, "reasoneval_mini.grading")]
