"""The harness of the ported LangGOAP suite: import rewriting, public-only classification, outcomes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.compat.report import public_only, to_langgoap

COMPAT = Path(__file__).resolve().parent / "compat"


def test_imports_are_rewritten_back_to_langgoap() -> None:
    """Every import form the port produces maps back to the langgoap import it came from."""
    ported = (
        "import goap.compat as langgoap\n"
        "from goap.compat import ActionSpec\n"
        "from goap.compat.planner.astar import plan\n"
        "    from goap.compat.graph.nodes import (\n"
        "from tests.compat.conftest import make_plan\n"
        'patch("goap.compat.planner.pipeline.optimize_plans")\n'
    )
    assert to_langgoap(ported) == (
        "import langgoap\n"
        "from langgoap import ActionSpec\n"
        "from langgoap.planner.astar import plan\n"
        "    from langgoap.graph.nodes import (\n"
        "from tests.conftest import make_plan\n"
        'patch("langgoap.planner.pipeline.optimize_plans")\n'
    )


def test_public_only_looks_at_module_imports_and_the_tests_own(tmp_path: Path) -> None:
    """A test is public-only unless its module, a helper, or the test itself imports an underscore name."""
    (tmp_path / "test_x.py").write_text(
        "from goap.compat import GoalSpec\n"
        "def helper():\n"
        "    from goap.compat.actions import ActionSpec\n"
        "class TestA:\n"
        "    def test_public(self):\n"
        "        from goap.compat.planner.astar import plan\n"
        "    def test_private_name(self):\n"
        "        from goap.compat.reflexion import _parse_llm_response\n"
        "    def test_private_module(self):\n"
        "        from goap.compat.cli._loader import load_goal\n"
        "def test_dunder():\n"
        "    from goap.compat import __version__\n",
        encoding="utf-8",
    )
    assert public_only("test_x.py::TestA::test_public", tmp_path)
    assert not public_only("test_x.py::TestA::test_private_name", tmp_path)
    assert not public_only("test_x.py::TestA::test_private_module", tmp_path)
    assert public_only("test_x.py::test_dunder", tmp_path)
    assert public_only("test_x.py::TestA::test_public[param-1]", tmp_path)


def test_a_module_that_does_not_import_is_one_failing_or_listed_item(tmp_path: Path) -> None:
    """A ported module importing a missing name fails as ``<file>::__import__`` unless listed, and the
    outcome plugin records each test's outcome."""
    suite = tmp_path / "tests" / "compat"
    suite.mkdir(parents=True)
    shutil.copy(COMPAT / "conftest.py", suite / "conftest.py")
    shutil.copy(COMPAT / "outcomes.py", tmp_path / "compat_outcomes.py")
    (suite / "test_missing.py").write_text("from goap.compat.nowhere import X\n", encoding="utf-8")
    (suite / "test_listed.py").write_text("from goap.compat.nowhere import Y\n", encoding="utf-8")
    (suite / "test_fine.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    (suite / "known_failures.txt").write_text("# comment\ntest_listed.py::__import__\n", encoding="utf-8")
    out = tmp_path / "outcomes.json"
    env = dict(os.environ, GOAP_COMPAT_OUTCOMES=str(out))
    env.pop("GOAP_COMPAT_IGNORE_KNOWN", None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the installed plugins only slow the start here
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(Path.cwd() / "src"), str(Path.cwd())])
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "compat_outcomes",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "-c",
            os.devnull,
            "tests/compat",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert json.loads(out.read_text(encoding="utf-8")) == {
        "tests/compat/test_fine.py::test_ok": "passed",
        "tests/compat/test_listed.py::__import__": "xfailed",
        "tests/compat/test_missing.py::__import__": "failed",
    }
