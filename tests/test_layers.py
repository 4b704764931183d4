"""The house rule that keeps the pipeline readable: imports run one way, from later stages to
earlier ones, never back, never in a cycle, and never hidden inside a function.

The order (docs/development.md draws it): util < write < model < read < catalog < plan <
render < outputs < pipeline < incremental < live < the commands (cli, check, scaffold, carry).
``write`` sits low because it knows nothing of papers: rendering hands it bytes.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "site_gen"
"""The source read: this checkout's, also when the tests run against an installed wheel."""
LAYERS = ("util", "write", "model", "read", "catalog", "plan", "render", "outputs", "pipeline",
          "incremental", "live", "commands")
COMMANDS = {"cli", "check", "scaffold", "carry", "__main__"}


def module_name(path: Path, root: Path = PACKAGE.parent) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    """The layer of ``site_gen.<first>...``: its package, or the commands on top."""
    first = module.split(".")[1] if "." in module else ""
    if first in ("", "data"):
        return 0  # site_gen/__init__.py: the version, nothing else
    return LAYERS.index("commands" if first in COMMANDS else first)


def site_gen_imports(path: Path, root: Path = PACKAGE.parent) -> list[tuple[str, int, bool]]:
    """(imported module, line, at module level) for every import of site_gen in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    module = module_name(path, root)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "site_gen" or target.startswith("site_gen."):
                names = [target] if target != "site_gen" else []
                # ``from site_gen.read import pages`` imports a module: count the module
                for alias in node.names:
                    candidate = f"{target}.{alias.name}"
                    if (root / (candidate.replace(".", "/") + ".py")).is_file():
                        names.append(candidate)
                found += [(name, node.lineno, id(node) in top) for name in names or [target]]
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, id(node) in top) for alias in node.names
                      if alias.name.startswith("site_gen")]
    return found


def all_modules(root: Path = PACKAGE.parent) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted((root / "site_gen").rglob("*.py"))}


def backward_imports(root: Path = PACKAGE.parent) -> list[str]:
    """Each import of a later stage than the importing module's, as ``path:line: ...``."""
    return [f"{path.relative_to(root)}:{line}: {module} ({LAYERS[layer(module)]}) imports "
            f"{target} ({LAYERS[layer(target)]})"
            for module, path in all_modules(root).items()
            for target, line, _ in site_gen_imports(path, root) if layer(target) > layer(module)]


def hidden_imports(root: Path = PACKAGE.parent) -> list[str]:
    """Each import of site_gen inside a function of a stage (the commands may: see below)."""
    return [f"{path.relative_to(root)}:{line}: imports {target} inside a function"
            for module, path in all_modules(root).items()
            for target, line, at_top in site_gen_imports(path, root)
            if not at_top and layer(module) < LAYERS.index("commands")]


def test_every_module_has_a_layer() -> None:
    for module in all_modules():
        assert 0 <= layer(module) < len(LAYERS), module


def test_imports_run_from_later_stages_to_earlier_ones() -> None:
    wrong = backward_imports()
    assert not wrong, "\n".join(wrong)


def test_no_import_inside_a_function() -> None:
    """An import inside a function is how a cycle hides; the stages have none. The commands
    on top may import a command's machinery when it runs (``serve`` loads watchdog, ``new``
    the scaffold): nothing imports them, so no cycle can hide there."""
    hidden = hidden_imports()
    assert not hidden, "\n".join(hidden)


def test_no_import_cycle() -> None:
    graph = {module: {target for target, _, _ in site_gen_imports(path)
                      if target in all_modules() and target != module}
             for module, path in all_modules().items()}
    done: set[str] = set()

    def visit(module: str, trail: tuple[str, ...]) -> None:
        if module in trail:
            raise AssertionError("import cycle: " + " -> ".join(trail[trail.index(module):]
                                                                 + (module,)))
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, trail + (module,))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


def test_the_checker_sees_a_wrong_import(tmp_path: Path) -> None:
    """The checks above parse the files: a model that imports the renderer, inside a function
    too, and a command that does so, are named at their lines (the command's is allowed)."""
    (tmp_path / "site_gen" / "render").mkdir(parents=True)
    (tmp_path / "site_gen" / "render" / "engine.py").write_text("X = 1\n")
    (tmp_path / "site_gen" / "model.py").write_text(
        "from site_gen.render.engine import X\n\n\ndef f():\n    from site_gen.render import engine\n")
    (tmp_path / "site_gen" / "cli.py").write_text("def g():\n    from site_gen import model\n")
    assert backward_imports(tmp_path) == [  # the package, and the module it names
        "site_gen/model.py:1: site_gen.model (model) imports site_gen.render.engine (render)",
        "site_gen/model.py:5: site_gen.model (model) imports site_gen.render (render)",
        "site_gen/model.py:5: site_gen.model (model) imports site_gen.render.engine (render)"]
    assert hidden_imports(tmp_path) == [
        "site_gen/model.py:5: imports site_gen.render inside a function",
        "site_gen/model.py:5: imports site_gen.render.engine inside a function"]


DOC = PACKAGE.parent / "docs" / "development.md"
TOP = {"util", "write", "model", "read", "catalog", "plan", "render", "outputs", "pipeline",
       "incremental", "live", "cli", "check", "scaffold"}


def test_the_names_in_the_developers_map_are_real() -> None:
    """docs/development.md names modules, classes and functions as ``package.module.Name``;
    each must exist, so the map a newcomer follows stays true when code moves."""
    text = DOC.read_text(encoding="utf-8")
    diagram = "\n".join(text.split("```")[1::2])
    names = set(re.findall(r"\b((?:[a-z_]+\.)+[A-Za-z_]\w*)", diagram))
    names |= set(re.findall(r"`((?:[a-z_]+\.)+[A-Za-z_]\w*)(?:\(\))?`", text))
    checked = 0
    missing = []
    for name in sorted(names):
        parts = name.split(".")
        if parts[0] not in TOP or parts[-1] in ("py", "yaml", "md", "html", "json", "txt"):
            continue  # a file name, not a dotted name
        checked += 1
        if not resolves(parts):
            missing.append(name)
    assert checked > 40
    assert not missing, f"docs/development.md names what does not exist: {missing}"


def resolves(parts: list[str]) -> bool:
    """``site_gen.<parts>`` is a module, or an attribute reached from the longest module."""
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module("site_gen." + ".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def test_starting_site_gen_imports_no_math_nor_stemmer() -> None:
    """latex2mathml (39 ms) and snowballstemmer (10 ms) are imported where first used: a
    start of site-gen that renders no formula and stems no word (``--version``, ``check``, a
    build again of pages without math) does not pay for them."""
    code = ("import sys, site_gen.cli, site_gen.incremental.builder\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('latex2mathml', 'snowballstemmer')))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    assert found.strip() == "[]"
