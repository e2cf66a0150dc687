"""goap.compat: LangGOAP's public names, lazily served from mirrored module paths, without langgoap."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import subprocess
import sys
from pathlib import Path

import goap.compat as compat
from goap.compat import _EXPORTS

SRC = Path(compat.__file__).resolve().parent


def _langgoap_init() -> ast.Module:
    """langgoap's own ``__init__`` source, read without importing langgoap."""
    spec = importlib.util.find_spec("langgoap")
    assert spec is not None and spec.origin is not None
    return ast.parse(Path(spec.origin).read_text(encoding="utf-8"))


def test_all_lists_langgoaps_public_names() -> None:
    """``goap.compat.__all__`` holds exactly the names of langgoap 0.1.2's ``__all__``, sorted."""
    tree = _langgoap_init()
    assign = next(n for n in tree.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "__all__")
    theirs = ast.literal_eval(assign.value)
    assert sorted(theirs) == compat.__all__
    assert len(theirs) == 143


def test_every_name_maps_to_langgoaps_module_path() -> None:
    """Each public name is served from the module path langgoap imports it from, with its own name."""
    expected: dict[str, str] = {}
    for node in _langgoap_init().body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "langgoap._version":
            for alias in node.names:
                module = node.module.replace("langgoap", "goap.compat", 1)
                expected[alias.asname or alias.name] = (
                    f"{module}:{alias.name}" if alias.asname else module
                )
    assert expected == _EXPORTS


def test_the_package_imports_nothing_up_front() -> None:
    """``import goap.compat`` loads no compat module, LangGraph or engine (names come on first use)."""
    code = (
        "import sys, goap.compat\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('goap.compat.', 'langgraph', 'graphengine')))\n"
        "assert loaded == ['goap.compat._logs'], loaded\n"
        "from goap.compat import ActionSpec, plan\n"
        "assert 'langgraph' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_compat_module_imports_langgoap() -> None:
    """No source file of goap.compat imports langgoap, and importing every module works without it."""
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "langgoap" or n.startswith("langgoap.") for n in names), path
    modules = [m.name for m in pkgutil.walk_packages([str(SRC)], "goap.compat.")]
    code = (
        "import importlib, sys\n"
        "sys.modules['langgoap'] = None  # any import of langgoap now raises ImportError\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "assert not any(m.startswith('langgoap.') for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_set_log_level_sets_the_langgoap_named_loggers() -> None:
    """``set_log_level`` sets the level of the compat loggers, which carry langgoap's names."""
    import logging

    from goap.compat._logs import get_logger

    before = logging.getLogger("langgoap").level
    try:
        compat.set_log_level("ERROR")
        assert get_logger("goap.compat.planner.astar").getEffectiveLevel() == logging.ERROR
        assert get_logger("goap.compat.planner.astar").name == "langgoap.planner.astar"
    finally:
        logging.getLogger("langgoap").setLevel(before)
