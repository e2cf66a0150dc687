"""Each package's public names are exported, sorted, importable and documented."""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "package", ["graphengine", "graphengine.store", "graphengine.emit", "graphengine.models", "graphengine.tools"]
)
def test_all_is_sorted_importable_and_documented(package: str) -> None:
    """`__all__` is sorted, every name in it exists and has a docstring."""
    mod = importlib.import_module(package)
    names = list(mod.__all__)
    assert names == sorted(names), f"{package}.__all__ is not sorted"
    assert len(set(names)) == len(names)
    for name in names:
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (getattr(obj, "__doc__", None) or "").strip(), f"{package}.{name} has no docstring"


@pytest.mark.parametrize(
    ("imports", "absent"),
    [
        # `import graphengine` works with core dependencies only
        ("graphengine, graphengine.store, graphengine.emit", ("langgraph", "opentelemetry.sdk", "langgoap")),
        # chat-model adapters load their HTTP client or SDK when first used
        (
            "graphengine, graphengine.models, graphengine.tools, goap.runtime._interpreter",
            ("httpx", "langchain_core", "openai", "ollama"),
        ),
    ],
    ids=["core", "models"],
)
def test_imports_do_not_pull_optional_integrations(imports: str, absent: tuple[str, ...]) -> None:
    """Importing these packages loads none of the optional integrations named (LangGraph, the
    OpenTelemetry SDK, HTTP clients, model SDKs): they are imported on first use."""
    code = f"import sys, {imports}\nbad = [m for m in {absent!r} if m in sys.modules]\nassert not bad, bad\n"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_users_store_and_emit_modules_do_not_shadow_ours(tmp_path: Path) -> None:
    """A `store.py` and an `emit.py` beside a user's app do not break `import graphengine`: the
    project installs only `graphengine` and `goap` as top-level names."""
    for name in ("store", "emit"):
        (tmp_path / f"{name}.py").write_text(
            f"raise ImportError('the user\\'s own {name}.py was imported')\n"
        )
    code = (
        "import graphengine, goap\n"
        "from graphengine.store import SQLiteStore\n"
        "from graphengine.emit import MemoryEmitter\n"
        "from graphengine import Engine\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_only_graphengine_and_goap_are_top_level_packages() -> None:
    """The installable tree (`src/`) holds exactly the two top-level packages."""
    src = Path(__file__).resolve().parents[1] / "src"
    assert sorted(p.name for p in src.iterdir() if (p / "__init__.py").is_file()) == [
        "goap",
        "graphengine",
    ]
