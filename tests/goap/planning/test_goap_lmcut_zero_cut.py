"""The pure-Python LM-cut ends its cut loop on a zero-cost cut, as the C core does.

Operators of cost <= EPS whose costs add up to more than EPS put the state inside the goal zone,
so a cut can hold a zero-cost operator; subtracting its cost changes nothing and the loop repeated
that cut forever. Both cores stop there with the landmarks found so far.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from goap.planning.heuristics import lmcut as lmcut_module

_TASK = """if True:
    from goap import ActionSpec
    from goap.planning._compile import compile_task
    from goap.planning.heuristics.lmcut import LMCut
    task = compile_task({"a": True, "b": False, "c": False, "d": False}, {"d": True}, [
        ActionSpec("o0", {"a": True}, {"b": True}, cost=0.0),
        ActionSpec("o1", {"b": True}, {"c": True}, cost=0.9e-9),
        ActionSpec("o2", {"c": True}, {"d": True}, cost=0.9e-9),
    ])
"""


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_python_core_ends_a_zero_cost_cut_instead_of_hanging() -> None:
    """The pure-Python cut loop stops on a cut whose cheapest operator costs nothing, with an
    admissible value (run in a subprocess with a time limit, since the bug was an endless loop)."""
    code = (
        _TASK
        + """
    h = LMCut(task, accelerated=False)
    value, lms = h.evaluate(task.initial, ())
    assert 0.0 <= value <= 1.8e-9 + 1e-15, value
    print(repr(value))
    """
    )
    assert float(_run(code)) >= 0.0


def test_the_python_and_c_cores_give_the_same_value_on_a_zero_cost_cut() -> None:
    """Both cores stop at the same cut, so the value is the same (skipped without the C core)."""
    if lmcut_module._core is None:
        pytest.skip("goap.planning._lmcut is not built (or GOAP_PURE_PYTHON=1)")
    code = (
        _TASK
        + """
    print(repr(LMCut(task, accelerated=False).evaluate(task.initial, ())[0]))
    print(repr(LMCut(task, accelerated=True).evaluate(task.initial, ())[0]))
    """
    )
    py, c = _run(code).split()
    assert py == c
