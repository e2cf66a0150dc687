"""The public surface of goap and its public subpackages: __all__ is sorted, importable and documented."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

import goap
import goap.capabilities
import goap.planning.kit
import goap.selector

PACKAGES = [goap, goap.capabilities, goap.planning.kit, goap.selector]
"""The packages whose ``__all__`` users import from."""


@pytest.mark.parametrize("package", PACKAGES, ids=lambda m: m.__name__)
def test_all_is_sorted(package: ModuleType) -> None:
    """__all__ is kept in sorted order."""
    assert package.__all__ == sorted(package.__all__)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda m: m.__name__)
def test_every_name_is_importable(package: ModuleType) -> None:
    """Every name in __all__ exists on the package."""
    for name in package.__all__:
        assert hasattr(package, name), name


@pytest.mark.parametrize("package", PACKAGES, ids=lambda m: m.__name__)
def test_every_public_callable_is_documented(package: ModuleType) -> None:
    """Every exported class and function has a docstring."""
    for name in package.__all__:
        obj = getattr(package, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


ROOT = Path(__file__).resolve().parents[2]


def names_imported_from_goap(source: str) -> set[str]:
    """The names ``source`` (Python code) imports with ``from goap import ...``."""
    return {
        alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module == "goap"
        for alias in node.names
    }


def test_names_the_readme_benchmarks_and_examples_import_are_exported() -> None:
    """Every name the README's code, the benchmarks, the examples and the tests import from goap is exported
    (a name dropped from ``__all__`` would still import, but no longer be public)."""
    readme = (ROOT / "README.md").read_text()
    lines = re.findall(r"^from goap import ([^(\n]+)$", readme, flags=re.M)
    names = {n.strip() for line in lines for n in line.split(",")}
    for path in [*ROOT.glob("bench/*.py"), *ROOT.glob("examples/*.py"), *ROOT.glob("tests/**/*.py")]:
        names |= names_imported_from_goap(path.read_text())
    assert {"ActionSpec", "load_problem", "plan"} <= names  # the scan found the imports
    names |= {"CostFunction", "Problem"}  # type names users annotate with, imported by no code here
    assert sorted(n for n in names if n not in goap.__all__ or not hasattr(goap, n)) == []


def test_errors_share_one_root() -> None:
    """Every goap error derives from PlanningError."""
    assert issubclass(goap.ModelError, goap.PlanningError)
    assert issubclass(goap.ProblemFormatError, goap.PlanningError)
