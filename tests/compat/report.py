"""Run LangGOAP's ported suite against langgoap and against goap.compat; print the pass counts.

``python -m tests.compat.report`` (from the repository root) fetches nothing. It

1. copies ``tests/compat`` to a temporary folder with the imports rewritten back
   (``goap.compat`` -> ``langgoap``) and runs it against the installed langgoap 0.1.2;
2. runs ``tests/compat`` against goap.compat with ``known_failures.txt`` ignored;
3. classifies each test as using only public names or not (see :func:`public_only`);
4. prints how many tests pass against langgoap, how many of those pass against goap.compat, the
   same among public-only tests (with %), and both run times.

``--regenerate`` runs step 2 only and rewrites ``known_failures.txt`` with every ported test
that does not pass against goap.compat (failed, or errored in setup/teardown or import).
``--compat-only`` skips the langgoap run (the counts then need no langgoap installed).
Extra arguments after ``--`` go to both pytest runs (e.g. ``-- -k astar``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
KNOWN_FAILURES = HERE / "known_failures.txt"
PLUGIN = "compat_outcomes"
"""Module name the outcome plugin is copied under (the same in both runs)."""

_TO_LANGGOAP = (
    (re.compile(r"^(\s*)import goap\.compat as langgoap\b", re.M), r"\1import langgoap"),
    (re.compile(r"\bgoap\.compat\b"), "langgoap"),
    (re.compile(r"\btests\.compat\."), "tests."),
)


def to_langgoap(source: str) -> str:
    """A ported test module's source with its imports rewritten back to langgoap."""
    for pattern, repl in _TO_LANGGOAP:
        source = pattern.sub(repl, source)
    return source


@dataclass(frozen=True, slots=True)
class Run:
    """One pytest run: each test's outcome by key (node id relative to the suite folder) and time."""

    outcomes: Mapping[str, str]
    seconds: float


def _key(nodeid: str, prefix: str) -> str:
    return nodeid[len(prefix) :] if nodeid.startswith(prefix) else nodeid


def _pytest(
    cwd: Path, target: str, prefix: str, pythonpath: list[str], extra: list[str], ini: Path | None
) -> Run:
    with tempfile.TemporaryDirectory(prefix="compat-outcomes-") as tmp:
        shutil.copy(HERE / "outcomes.py", Path(tmp) / f"{PLUGIN}.py")
        out = Path(tmp) / "outcomes.json"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([*pythonpath, tmp])
        env["GOAP_COMPAT_OUTCOMES"] = str(out)
        env["GOAP_COMPAT_IGNORE_KNOWN"] = "1"
        cmd = [sys.executable, "-m", "pytest", target, "-q", "-p", PLUGIN, "-p", "no:cacheprovider"]
        if ini is not None:
            cmd += ["-c", str(ini), "--rootdir", str(cwd)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd + extra, cwd=cwd, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if not out.exists():
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
            raise SystemExit(f"pytest wrote no outcomes (exit {proc.returncode}) in {cwd}")
        raw: dict[str, str] = json.loads(out.read_text(encoding="utf-8"))
    return Run({_key(k, prefix): v for k, v in raw.items()}, seconds)


_INI = """[pytest]
addopts = --import-mode=importlib
pythonpath = .
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""


def run_langgoap(extra: list[str]) -> Run:
    """Run the suite, imports rewritten back, against the installed langgoap."""
    with tempfile.TemporaryDirectory(prefix="compat-langgoap-") as tmp:
        root = Path(tmp)
        for src in HERE.rglob("*"):
            rel = src.relative_to(HERE)
            if "__pycache__" in rel.parts or src.is_dir():
                continue
            dst = root / "tests" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.suffix == ".py":
                dst.write_text(to_langgoap(src.read_text(encoding="utf-8")), encoding="utf-8")
            else:
                shutil.copy(src, dst)
        ini = root / "pytest.ini"
        ini.write_text(_INI, encoding="utf-8")
        return _pytest(root, "tests", "tests/", [str(root)], extra, ini)


def run_compat(extra: list[str]) -> Run:
    """Run tests/compat against goap.compat, known failures ignored."""
    return _pytest(ROOT, "tests/compat", "tests/compat/", [str(ROOT / "src"), str(ROOT)], extra, None)


def _is_private(name: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in name.split("."))


def _imports(nodes: Iterable[ast.AST]) -> list[str]:
    names: list[str] = []
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Import):
                names += [alias.name for alias in sub.names]
            elif isinstance(sub, ast.ImportFrom) and sub.module is not None:
                names.append(sub.module)
                names += [f"{sub.module}.{alias.name}" for alias in sub.names]
    return [n for n in names if n.startswith("goap.compat")]


def _is_test(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")


def public_only(key: str, root: Path = HERE) -> bool:
    """Whether a test imports only public goap.compat names.

    The imports counted are those of its module except the ones inside other test functions:
    module-level imports, imports in helpers and fixtures, and imports in the test itself. A name
    or module path with a component starting with one underscore (not a dunder) is private.
    """
    path, _, rest = key.partition("::")
    parts = [p.split("[", 1)[0] for p in rest.split("::")] if rest else []
    tree = ast.parse((root / path).read_text(encoding="utf-8"))
    own = parts[-1] if parts else None

    def relevant(node: ast.AST) -> Iterator[ast.AST]:
        for child in ast.iter_child_nodes(node):
            if _is_test(child) and getattr(child, "name", None) != own:
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child
            else:
                yield from relevant(child)

    return not any(_is_private(n) for n in _imports(relevant(tree)))


def _passed(run: Run) -> set[str]:
    return {k for k, v in run.outcomes.items() if v == "passed"}


def summary(reference: Run, compat: Run) -> str:
    """The pass counts and run times, as printed."""
    ref_pass = _passed(reference)
    ok = _passed(compat)
    public = {k for k in ref_pass if k.split("::", 1)[0].endswith(".py") and public_only(k)}

    def pct(n: int, d: int) -> str:
        return f"{100.0 * n / d:.1f}%" if d else "n/a"

    lines = [
        f"tests run against langgoap: {len(reference.outcomes)}, passing: {len(ref_pass)}",
        f"passing against goap.compat among those: {len(ref_pass & ok)} ({pct(len(ref_pass & ok), len(ref_pass))})",
        f"public-only tests passing against langgoap: {len(public)}; "
        f"passing against goap.compat: {len(public & ok)} ({pct(len(public & ok), len(public))})",
        f"passing against goap.compat only (not against langgoap): {len(ok - ref_pass)}",
        f"run time: langgoap {reference.seconds:.1f} s, goap.compat {compat.seconds:.1f} s (wall, one run each)",
    ]
    return "\n".join(lines)


def regenerate(compat: Run) -> list[str]:
    """Rewrite known_failures.txt with every test that fails against goap.compat (skips are not listed)."""
    failing = sorted(k for k, v in compat.outcomes.items() if v == "failed")
    header = (
        "# Ported LangGOAP tests goap.compat does not pass yet (node ids relative to tests/compat).\n"
        "# Generated by `python -m tests.compat.report --regenerate`; do not edit by hand.\n"
    )
    KNOWN_FAILURES.write_text(header + "".join(f"{k}\n" for k in failing), encoding="utf-8")
    return failing


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    args = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1 :]
    parser = argparse.ArgumentParser(prog="python -m tests.compat.report")
    parser.add_argument("--regenerate", action="store_true", help="rewrite known_failures.txt")
    parser.add_argument("--compat-only", action="store_true", help="skip the langgoap run")
    opts = parser.parse_args(args)
    if opts.regenerate and extra:
        parser.error("--regenerate runs the whole ported suite: it takes no pytest arguments")
    compat = run_compat(extra)
    if opts.regenerate:
        failing = regenerate(compat)
        print(f"known_failures.txt: {len(failing)} of {len(compat.outcomes)} ported tests fail")
        print(f"goap.compat run: {compat.seconds:.1f} s")
        return 0
    if opts.compat_only:
        n = len(_passed(compat))
        print(f"passing against goap.compat: {n} of {len(compat.outcomes)} ({compat.seconds:.1f} s)")
        return 0
    reference = run_langgoap(extra)
    print(summary(reference, compat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
