"""How much of LangGOAP 0.1.2's own test suite passes against ``goap.compat``.

``python -m tests.compat.report`` (or ``make compat-report``) downloads the langgoap 0.1.2 source
distribution from the package registry into a cache outside the repository (``$GOAP_COMPAT_CACHE``,
default ``~/.cache/graphengine``), stages its ``tests/`` and the ``examples/`` they import in
a temporary folder with ``langgoap`` rewritten to ``goap.compat``, runs pytest there and prints
``passed/total``. Nothing of that suite is ever written into this repository.

Options: ``--against-langgoap`` runs the same staged suite unrewritten against the installed
langgoap (the oracle's own count); ``--by-file`` lists each file's count; arguments after ``--``
go to pytest (``-- -k astar tests/test_astar.py``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

VERSION = "0.1.2"
ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    """The folder the source distribution is kept in (never inside the repository)."""
    base = os.environ.get("GOAP_COMPAT_CACHE") or Path.home() / ".cache" / "graphengine"
    return Path(base) / f"langgoap-{VERSION}"


def fetch_sdist() -> Path:
    """The unpacked langgoap source distribution, downloaded once into :func:`cache_dir`."""
    target = cache_dir()
    unpacked = target / f"langgoap-{VERSION}"
    if (unpacked / "tests").is_dir():
        return unpacked
    target.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
    subprocess.run([*pip, "-d", str(target), f"langgoap=={VERSION}"], check=True)
    with tarfile.open(target / f"langgoap-{VERSION}.tar.gz") as archive:
        archive.extractall(target, filter="data")
    return unpacked


_IMPORT_PACKAGE = re.compile(r"^(\s*)import langgoap(\.[\w.]+)?[ \t]*$", re.M)
_FROM = re.compile(r"^(\s*)from langgoap\b", re.M)
_STRING = re.compile(r"""(["'])langgoap(?=[."'])""")


def rewrite(source: str) -> str:
    """``source`` with its langgoap imports, and the module paths in its strings, on goap.compat.

    ``import langgoap[.x]`` keeps the name ``langgoap`` bound (to goap.compat), so attribute
    reads such as ``langgoap.set_log_level`` still resolve; strings are patch targets and
    logger names (``"langgoap.planner.pipeline.plan"``).
    """
    source = _IMPORT_PACKAGE.sub(
        lambda m: f"{m[1]}import goap.compat{m[2] or ''}; import goap.compat as langgoap", source
    )
    source = _FROM.sub(r"\1from goap.compat", source)
    return _STRING.sub(r"\1goap.compat", source)


_INI = """[pytest]
testpaths = tests
pythonpath = . examples/tutorials
addopts = --ignore=tests/benchmarks -p no:cacheprovider
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
markers =
    api: calls a hosted LLM API
    bench: benchmark
"""


def stage(sdist: Path, into: Path, *, to_compat: bool) -> None:
    """Copy the suite and the examples it imports into ``into``, rewritten if ``to_compat``."""
    for part in ("tests", "examples"):
        for src in (sdist / part).rglob("*"):
            dst = into / src.relative_to(sdist)
            if src.is_dir():
                dst.mkdir(parents=True, exist_ok=True)
            elif src.suffix == ".py" and to_compat:
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_text(rewrite(src.read_text()))
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
    (into / "pytest.ini").write_text(_INI)


def module_of(dotted: str) -> str:
    """The test module of a junit ``classname`` (``tests.test_x.TestY`` -> ``tests.test_x``)."""
    parts = dotted.split(".")
    ends = [i for i, part in enumerate(parts) if part.startswith("test_")]
    return ".".join(parts[: ends[0] + 1]) if ends else dotted


def run_suite(into: Path, extra: list[str]) -> list[tuple[str, str, str]]:
    """Run pytest in ``into``; each case as (file, test function, outcome).

    The test function is the case's id without its parameters, so the parametrized cases of one
    test share it.
    """
    report = into / "junit.xml"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(into), str(ROOT / "src")])
    cmd = [sys.executable, "-m", "pytest", "-q", "-m", "not api", "--continue-on-collection-errors"]
    subprocess.run(
        [*cmd, f"--junitxml={report}", *extra], cwd=into, env=env, stdout=subprocess.DEVNULL, check=False
    )
    if not report.exists():
        return []
    cases = []
    for case in ET.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = next((k for k in ("error", "failure", "skipped") if k in kinds), "passed")
        where = case.get("classname") or case.get("name", "?")
        function = f"{where}::{case.get('name', '?').partition('[')[0]}"
        cases.append((module_of(where), function, outcome))
    return cases


def counts_passed(cases: list[tuple[str, str, str]]) -> int:
    """How many cases passed."""
    return sum(1 for _, _, outcome in cases if outcome == "passed")


def share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage."""
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def main(argv: list[str]) -> int:
    """Print passed/total of the langgoap suite against goap.compat (or langgoap itself)."""
    parser = argparse.ArgumentParser(prog="python -m tests.compat.report")
    parser.add_argument("--against-langgoap", action="store_true")
    parser.add_argument("--by-file", action="store_true")
    split = argv.index("--") if "--" in argv else len(argv)
    own, extra = argv[:split], argv[split + 1 :]
    args = parser.parse_args(own)
    sdist = fetch_sdist()
    with tempfile.TemporaryDirectory(prefix="langgoap-suite-") as tmp:
        stage(sdist, Path(tmp), to_compat=not args.against_langgoap)
        cases = run_suite(Path(tmp), extra)
    counts = Counter((file, outcome) for file, _, outcome in cases)
    if args.by_file:
        for file in sorted({f for f, _ in counts}):
            all_ = sum(n for (f, _), n in counts.items() if f == file)
            print(f"{counts[(file, 'passed')]:4d}/{all_:<4d} {file}")
    functions: dict[str, bool] = {}
    for _, function, outcome in cases:
        functions[function] = functions.get(function, True) and outcome == "passed"
    target = "langgoap" if args.against_langgoap else "goap.compat"
    passed, total = counts_passed(cases), len(cases)
    print(
        f"langgoap {VERSION} suite against {target}: {passed}/{total} cases passed ({share(passed, total)})"
    )
    ok = sum(functions.values())
    print(f"  by test function (parameters folded): {ok}/{len(functions)} ({share(ok, len(functions))})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
