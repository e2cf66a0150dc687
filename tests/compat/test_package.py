"""goap.compat's names: LangGOAP's public names, loaded on first use, typed by the stub."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import langgoap
import pytest

import goap.compat

STUB = Path(goap.compat.__file__).with_suffix(".pyi")


def test_the_public_names_are_langgoaps() -> None:
    """``goap.compat.__all__`` is ``langgoap.__all__``, and every name resolves."""
    assert sorted(goap.compat.__all__) == sorted(langgoap.__all__)
    missing = [name for name in goap.compat.__all__ if getattr(goap.compat, name, None) is None]
    assert not missing


def test_every_name_lives_where_langgoap_defines_it() -> None:
    """Each name resolves from the module mirroring the langgoap module that exports it."""
    for name in langgoap.__all__:
        if name.startswith("__") or name == "set_log_level":
            continue
        theirs = getattr(langgoap, name)
        home = getattr(theirs, "__module__", None)
        if not isinstance(home, str) or not home.startswith("langgoap."):
            continue  # constants and aliases carry no module
        ours = sys.modules.get("goap.compat" + home.removeprefix("langgoap"))
        assert ours is None or hasattr(ours, name), f"goap.compat{home[8:]} lacks {name}"


def test_the_stub_names_exactly_the_public_names() -> None:
    """``__init__.pyi`` re-exports each public name once, so type checkers see what runs."""
    tree = ast.parse(STUB.read_text())
    stubbed = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    stubbed.discard("Any")  # the stub's own import
    stubbed |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("__")}
    assert stubbed | {"__version__"} == set(goap.compat.__all__)


def test_planning_names_load_neither_langgraph_nor_the_engine() -> None:
    """``from goap.compat import ActionSpec, GoalSpec, plan`` imports no LangGraph and no engine."""
    code = (
        "import sys\nfrom goap.compat import ActionSpec, GoalSpec, plan\n"
        "bad = [m for m in ('langgraph', 'graphengine', 'langgoap') if m in sys.modules]\nassert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_unknown_name_is_an_attribute_error() -> None:
    """A name LangGOAP does not export is refused as ``AttributeError`` naming it."""
    with pytest.raises(AttributeError, match="NoSuchName"):
        _ = goap.compat.NoSuchName  # type: ignore[attr-defined]


def test_a_missing_extra_names_the_pip_extra(tmp_path: Path) -> None:
    """Without LangGraph installed, ``from goap.compat import GoapGraph`` says which extra to install."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class NoLangGraph:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'langgraph' or name.startswith('langgraph.'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoLangGraph())\n"
    )
    code = "from goap.compat import GoapGraph"
    env = {"PYTHONPATH": f"{tmp_path}:{Path(goap.compat.__file__).parents[2]}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode != 0
    assert "pip install 'graphengine[langgoap]'" in done.stderr, done.stderr
