"""The shape of graphengine's own code: no function longer than a screen.

A long function is where state hides (dozens of locals, closures sharing them through
`nonlocal`) and where a new feature lands as one more branch in the middle. The step loop and
the fan-out step used to be the worst of them; they are now short named phases, and this test
keeps every function that way. A function's length is counted as the ast counts it: from its
`def` line (decorators excluded) to its last line, nested functions included.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

MAX_LINES = 80
"""The longest a function in `src/graphengine` may be, in lines."""

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "graphengine"

Function = ast.FunctionDef | ast.AsyncFunctionDef


def functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, Function]]:
    """Every function under `tree` with its qualified name (`Class.method`, `outer.inner`)."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + child.name, child
            yield from functions(child, f"{prefix}{child.name}.")
        elif isinstance(child, ast.ClassDef):
            yield from functions(child, f"{prefix}{child.name}.")
        else:
            yield from functions(child, prefix)


def length(fn: Function) -> int:
    """Lines from the `def` to the function's last line."""
    assert fn.end_lineno is not None
    return fn.end_lineno - fn.lineno + 1


def too_long(root: Path, limit: int = MAX_LINES) -> list[str]:
    """`path:line name (N lines)` of every function under `root` longer than `limit` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, fn in functions(tree):
            if length(fn) > limit:
                found.append(f"{path.relative_to(root.parent)}:{fn.lineno} {name} ({length(fn)} lines)")
    return found


def test_no_function_in_graphengine_is_over_80_lines() -> None:
    """No function (method, nested function) in src/graphengine is longer than 80 lines."""
    assert PACKAGE.is_dir(), PACKAGE
    offenders = too_long(PACKAGE)
    assert not offenders, f"functions over {MAX_LINES} lines (split them into named steps):\n" + "\n".join(
        offenders
    )


@pytest.mark.parametrize("body_lines", [MAX_LINES - 1, MAX_LINES])
def test_the_check_names_a_long_function_and_spares_a_short_one(tmp_path: Path, body_lines: int) -> None:
    """A function one line over the limit is reported with its file, line, qualified name and length; one at it is not."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    body = "".join(f"        x{i} = {i}\n" for i in range(body_lines))
    (pkg / "mod.py").write_text(f"class C:\n    async def m(self) -> None:\n{body}")
    found = too_long(pkg)
    if body_lines + 1 > MAX_LINES:
        assert found == [f"pkg/mod.py:2 C.m ({body_lines + 1} lines)"]
    else:
        assert found == []


def test_the_check_sees_nested_functions_and_counts_them_in_their_outer_one(tmp_path: Path) -> None:
    """A nested function counts toward its outer function's length, and is named outer.inner."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    inner = "".join(f"        y{i} = {i}\n" for i in range(MAX_LINES))
    (pkg / "mod.py").write_text(f"def outer():\n    def inner():\n{inner}    return inner\n")
    assert too_long(pkg) == [
        f"pkg/mod.py:1 outer ({MAX_LINES + 3} lines)",
        f"pkg/mod.py:2 outer.inner ({MAX_LINES + 1} lines)",
    ]
