"""The compatibility report's own pieces: import rewriting and the grouping of junit cases."""

from __future__ import annotations

from tests.compat.report import cache_dir, module_of, rewrite


def test_imports_and_module_strings_move_to_goap_compat() -> None:
    """``from``/``import`` statements and module paths in strings point at goap.compat; the name
    ``langgoap`` stays bound for attribute reads."""
    source = (
        "import langgoap\n"
        "import langgoap.tracing\n"
        "from langgoap.planner.astar import plan\n"
        "    from langgoap import GoalSpec\n"
        'patch("langgoap.planner.pipeline.plan")\n'
        "getLogger('langgoap')\n"
        "langgoap.set_log_level('ERROR')\n"
        "text = 'a langgoap project'\n"
    )
    assert rewrite(source) == (
        "import goap.compat; import goap.compat as langgoap\n"
        "import goap.compat.tracing; import goap.compat as langgoap\n"
        "from goap.compat.planner.astar import plan\n"
        "    from goap.compat import GoalSpec\n"
        'patch("goap.compat.planner.pipeline.plan")\n'
        "getLogger('goap.compat')\n"
        "langgoap.set_log_level('ERROR')\n"
        "text = 'a langgoap project'\n"
    )


def test_cases_are_grouped_by_their_test_module() -> None:
    """A junit classname names its module whether or not the test sits in a class."""
    assert module_of("tests.test_astar") == "tests.test_astar"
    assert module_of("tests.test_astar.TestPlan") == "tests.test_astar"
    assert module_of("tests.integration.test_goap_loop.TestLoop") == "tests.integration.test_goap_loop"


def test_the_cache_is_outside_the_repository() -> None:
    """The downloaded suite never lands in this checkout."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    assert not cache_dir().resolve().is_relative_to(repo)
