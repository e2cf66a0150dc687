"""Memory-safety regressions of the C grounding (``goap.planning._ground``), one test per bug found in review.

The C code used to read the caller's own dicts (an exact dict was not copied, nor was the dict a
user ``copy()`` of a MappingProxyType returned) after checking them, while Python code it runs
(an action name's ``__hash__``, a value's ``__hash__``, a ``__float__``, a finalizer) could still
mutate them; and it kept a list with NULL slots where the garbage collector could hand it to Python
code. Each crash reproducer runs in a subprocess so the suite survives the crash of a broken build.
The crashes are deterministic without a sanitizer on the unfixed build (SIGSEGV / heap
corruption); under AddressSanitizer they are reported at the faulty read or write.
"""

from __future__ import annotations

import gc
import os
import string
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from goap import ActionSpec
from goap.planning import _compile as compile_module
from goap.planning._task import CompiledOp

pytestmark = pytest.mark.skipif(
    compile_module._ground is None, reason="goap.planning._ground is not built (or GOAP_PURE_PYTHON=1)"
)

ROOT = Path(__file__).resolve().parents[3]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("GOAP_PURE_PYTHON", None)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=120
    )


_GROWN_WHILE_WALKED = string.Template(
    textwrap.dedent(
        """
        import sys
        from types import MappingProxyType
        import goap
        from goap import ActionSpec, AStar
        $setup
        class V:
            armed = True
            def __hash__(self):
                if V.armed:
                    V.armed = False
                    for i in range(200):
                        $grown[f"k{i}"] = 1
                return hash(1)
            def __eq__(self, o):
                return o == 1
        class Name(str):
            armed = True
            def __hash__(self):
                if Name.armed and sys._getframe(1).f_code.co_name == "_compile_plain":
                    Name.armed = False
                    $grown["x"] = V()
                return str.__hash__(self)
            __eq__ = str.__eq__
        acts = [ActionSpec("a0", MappingProxyType($pre), {"y": 1}), ActionSpec(Name("a1"), {}, {"x": 1})]
        acts += [ActionSpec(f"b{i}", {}, {f"k{i}": 1}) for i in range(200)]
        initial = {f"k{i}": 0 for i in range(200)}
        initial["x"] = 0
        print(goap.plan(initial, {"y": 1}, acts, AStar()).status)
        """
    )
)
"""A plan() call whose action ``a0`` has the precondition ``MappingProxyType($pre)``: hashing
action ``a1``'s name inside the C grounding puts a value into the dict ``$grown`` whose hashing
then grows that dict by 200 keys while the grounding walks it (``$setup`` defines them)."""


def _hashing_name(name: str, on_hash: Callable[[], object]) -> str:
    """``name`` as a str whose ``__hash__`` first runs ``on_hash``: Python code the C grounding runs
    in the middle of its work whenever it hashes the action's name."""

    class Name(str):
        def __hash__(self) -> int:
            on_hash()
            return str.__hash__(self)

        __eq__ = str.__eq__

    return Name(name)


def _task_signature(out: Any) -> Any:
    """What ``compile_plain`` returned, with each operator as the tuple of its compiled fields."""
    variables, ops, goal_sets, pruned, dropped, impossible, reachable, buckets = out
    fields = [
        tuple(getattr(op, f) for f in ("pre", "eff", "pre_mask", "pre_val", "keep", "eff_val")) for op in ops
    ]
    return variables, fields, goal_sets, pruned, dropped, impossible, reachable, buckets


def _assert_clean(out: subprocess.CompletedProcess[str], expect: str) -> None:
    assert out.returncode == 0, f"crashed (rc={out.returncode}): {out.stderr[-2000:]}"
    assert "AddressSanitizer" not in out.stderr
    assert out.stdout.split()[-1:] == [expect], out.stdout + out.stderr[-2000:]


class _Act:
    """A duck-typed action (compile_plain reads name, cost, preconditions and effects only)."""

    def __init__(self, name: Any, pre: Any, eff: Any, cost: Any = 1.0) -> None:
        self.name, self.preconditions, self.effects, self.cost = name, pre, eff, cost


def test_goal_dict_shrinking_during_the_goal_walk_does_not_read_uninitialised_memory() -> None:
    """Bug 1 (critical): the goal loop stopped early when the goal dict shrank under it, leaving
    ``gk`` entries uninitialised, which were then used as array indices (SIGSEGV)."""
    out = _run(
        """
        import goap.planning._ground as G
        from goap.planning._task import CompiledOp
        KEEP = []
        class Evil:
            def __hash__(self):
                goal.clear()
                return 12345
            def __eq__(self, o):
                return False
        class Name(str):
            armed = True
            def __hash__(self):
                if Name.armed:
                    Name.armed = False
                    e = Evil(); KEEP.append(e)
                    goal["k0"] = e
                return str.__hash__(self)
            __eq__ = str.__eq__
        class A:
            def __init__(s, name, pre, eff):
                s.name, s.cost, s.preconditions, s.effects = name, 1.0, pre, eff
        initial = {f"k{i}": 0 for i in range(50)}
        goal = {f"k{i}": 1 for i in range(50)}
        acts = [A(Name("a"), {}, {f"k{i}": 1 for i in range(50)})]
        out = G.compile_plain(initial, goal, acts, CompiledOp)
        print(out is not None and len(out[2]) == 50)
        """
    )
    _assert_clean(out, "True")


def test_precondition_dict_growing_during_plan_does_not_overflow_the_heap() -> None:
    """Bug 2 (critical), public API: plan() with a precondition MappingProxyType over a dict
    subclass whose copy() returns a shared dict; Python code run inside the C grounding grows that
    dict while it is walked, and the fixed-size pair buffer overflowed (heap-buffer-overflow)."""
    setup = """
        shared = {"x": 1}
        class D(dict):
            def copy(self):
                return shared
    """
    out = _run(_GROWN_WHILE_WALKED.substitute(setup=textwrap.dedent(setup), grown="shared", pre="D(x=1)"))
    _assert_clean(out, "found")


def test_goal_value_freed_during_plan_is_not_used_after_free() -> None:
    """Bug 3 (critical), public API: a goal MappingProxyType over a dict subclass whose copy()
    returns a shared dict; a value put there by Python code run inside the C grounding frees itself
    while the C code still holds it as a borrowed reference (heap-use-after-free: ASan reports it at
    once; without a sanitizer the heap is corrupted and the process dies, usually at exit)."""
    out = _run(
        """
        import sys
        from types import MappingProxyType
        import goap
        from goap import ActionSpec, AStar, GoalSpec
        goal = {"x": 1}
        class D(dict):
            def copy(self):
                return goal
        class Evil:
            def __hash__(self):
                goal.clear()
                return hash(1)
            def __eq__(self, o):
                return False
        class Name(str):
            armed = True
            def __hash__(self):
                if Name.armed and sys._getframe(1).f_code.co_name == "_compile_plain":
                    Name.armed = False
                    goal["x"] = Evil()
                return str.__hash__(self)
            __eq__ = str.__eq__
        acts = [ActionSpec("a0", {"x": 0}, {"x": 1}), ActionSpec(Name("a1"), {}, {"y": 1})]
        print(goap.plan({"x": 0}, GoalSpec(MappingProxyType(D(x=1))), acts, AStar()).status)
        """
    )
    _assert_clean(out, "found")


def test_half_built_lists_are_never_visible_to_python_code() -> None:
    """Bug 4 (medium): the costs list was created with NULL slots and filled later; Python code
    run meanwhile could reach it through gc.get_objects() and iterating it dereferenced NULL."""
    out = _run(
        """
        import gc
        import goap.planning._ground as G
        from goap.planning._task import CompiledOp
        class Name(str):
            def __hash__(self):
                for o in gc.get_objects():
                    if type(o) is list:
                        for _ in o:
                            pass
                return str.__hash__(self)
            __eq__ = str.__eq__
        class A:
            def __init__(s, name, pre, eff):
                s.name, s.cost, s.preconditions, s.effects = name, 1.0, pre, eff
        acts = [A("a0", {}, {"x": 1}), A(Name("a1"), {}, {"x": 2}), A("a2", {}, {"x": 3})]
        print(G.compile_plain({"x": 0}, {"x": 3}, acts, CompiledOp) is not None)
        """
    )
    _assert_clean(out, "True")


def test_private_containers_cannot_be_reached_through_the_garbage_collector() -> None:
    """Bug 4b (low): the key set and other private containers were tracked by the garbage
    collector, so Python code run during the call (gc.get_referrers) could mutate them and break
    the invariants the C code relies on."""
    marker = "zz_private_marker_key"
    found: list[int] = []

    def count_marker_sets() -> None:
        found.append(sum(1 for o in gc.get_objects() if type(o) is set and marker in o))

    acts = [_Act("a0", {}, {marker: 1}), _Act(_hashing_name("a1", count_marker_sets), {}, {marker: 2})]
    out = compile_module._ground.compile_plain({marker: 0}, {marker: 2}, acts, CompiledOp)
    assert out is not None
    assert found and not any(found)  # (a set only: a half-built list could crash this process)


def test_caller_dicts_mutated_during_the_call_do_not_change_the_result() -> None:
    """Bug 1-3 root cause (high): an exact dict argument was used in place, not copied, so a
    mutation by Python code run during the call (another action's name __hash__, or another
    thread) was half seen. The task must be the one of the dicts as they were when read."""

    def build(mutate: bool) -> Any:
        initial: dict[str, Any] = {"x": 0, "y": 0}
        goal = {"x": 2}
        pre = {"y": 0}

        def change_all() -> None:
            if mutate:
                initial.update(x=7, y="changed")
                goal["x"] = 99
                pre["y"] = 5

        acts = [_Act("a0", pre, {"x": 1}), _Act(_hashing_name("a1", change_all), {"x": 1}, {"x": 2, "y": 1})]
        return compile_module._ground.compile_plain(initial, goal, acts, CompiledOp)

    assert _task_signature(build(True)) == _task_signature(build(False))


def test_a_user_copy_returning_a_shared_dict_is_copied_again() -> None:
    """Bug 2-3 root cause (high): MappingProxyType.copy() calls the wrapped mapping's copy(),
    which may return a dict the user keeps and mutates later; it must be copied again."""
    shared = {"x": 1}

    class D(dict):  # type: ignore[type-arg]
        def copy(self) -> dict[str, Any]:
            return shared

    acts = [
        ActionSpec("a0", MappingProxyType(D(x=1)), {"y": 1}),
        ActionSpec(_hashing_name("a1", lambda: shared.update(x=2)), {}, {"x": 1}),
    ]
    out = compile_module._ground.compile_plain({"x": 0, "y": 0}, {"y": 1}, acts, CompiledOp)
    assert out is not None
    ops = out[1]
    # a0 needs x == 1 (as read): both operators survive, a1 makes x 1 for a0
    assert [op.action.name for op in ops] == ["a0", "a1"]


def test_a_mapping_proxy_over_a_dict_the_caller_mutates_during_plan_is_safe() -> None:
    """Public API, no custom copy(): ActionSpec keeps a MappingProxyType it is given as is, and
    the caller may still hold (and mutate) the dict it wraps. Reading that dict in place instead of
    a private copy let Python code run inside the C grounding grow it while it was walked
    (heap-buffer-overflow of the precondition pair buffer)."""
    out = _run(_GROWN_WHILE_WALKED.substitute(setup='pre = {"x": 1}', grown="pre", pre="pre"))
    _assert_clean(out, "found")


def test_mapping_proxies_mutated_during_the_call_give_the_task_as_read() -> None:
    """The same with plain MappingProxyType arguments (goal, preconditions, effects) over dicts the
    caller mutates from Python code run during the call: the task is the one of the mappings as
    they were when read, equal to the Python compiler's task of those mappings."""

    def build(mutate: bool) -> Any:
        initial = {"x": 0, "y": 0}
        goal = {"x": 2}
        pre = {"y": 0}
        eff = {"x": 1}

        def change_through_proxies() -> None:
            if mutate:
                goal.update(x=99, z=1)
                pre["y"] = 5
                eff.clear()

        acts = [
            ActionSpec("a0", MappingProxyType(pre), MappingProxyType(eff)),
            ActionSpec(_hashing_name("a1", change_through_proxies), {"x": 1}, {"x": 2, "y": 1}),
        ]
        out = compile_module._ground.compile_plain(initial, MappingProxyType(goal), acts, CompiledOp)
        return out, acts

    mutated, _ = build(True)
    clean, acts = build(False)
    assert _task_signature(mutated) == _task_signature(clean)
    assert [op.action.name for op in clean[1]] == ["a0", "a1"]
    py = compile_module._compile_python({"x": 0, "y": 0}, {"x": 2}, acts, True)
    assert [(v.name, v.domain) for v in py.variables] == [tuple(v[:2]) for v in clean[0]]
    assert [(op.pre, op.eff) for op in py.ops] == [(op.pre, op.eff) for op in clean[1]]


class _NoCopyMapping(Mapping[str, Any]):
    """A read-only Mapping without copy() (MappingProxyType.copy() raises AttributeError)."""

    def __init__(self, d: dict[str, Any]) -> None:
        self._d = d

    def __getitem__(self, k: str) -> Any:
        return self._d[k]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)


def test_a_proxy_over_a_mapping_without_copy_is_read_through_the_mapping_protocol() -> None:
    """A MappingProxyType over a Mapping that has no copy(): the C grounding reads it with keys()
    and m[key] (it used to raise AttributeError there, which the broad except in
    goap.planning._compile._compile_plain hid by re-running everything in Python)."""
    acts = [
        ActionSpec(
            "a", MappingProxyType(_NoCopyMapping({"x": 0})), MappingProxyType(_NoCopyMapping({"x": 1}))
        )
    ]
    goal = MappingProxyType(_NoCopyMapping({"x": 1}))
    fast = compile_module._compile_plain(_NoCopyMapping({"x": 0}), goal, acts)
    assert fast is not None
    slow = compile_module._compile_python(_NoCopyMapping({"x": 0}), goal, acts, True)
    assert [(v.name, v.domain) for v in fast.variables] == [(v.name, v.domain) for v in slow.variables]
    assert [(op.pre, op.eff) for op in fast.ops] == [(op.pre, op.eff) for op in slow.ops]


@pytest.mark.parametrize("bad", [None, 1])
def test_a_non_mapping_goes_to_the_python_compiler_for_its_error(bad: Any) -> None:
    """An argument that is not a mapping is not a plain task (None), so the Python compiler raises
    its own error for it, the same as without the C grounding."""
    acts = [ActionSpec("a", {}, {"x": 1})]
    assert compile_module._ground.compile_plain(bad, {"x": 1}, acts, CompiledOp) is None
    assert compile_module._ground.compile_plain({"x": 0}, bad, acts, CompiledOp) is None
    with pytest.raises(TypeError) as fast:
        compile_module._compile(bad, {"x": 1}, acts, True, accelerated=True)
    with pytest.raises(TypeError) as slow:
        compile_module._compile(bad, {"x": 1}, acts, True, accelerated=False)
    assert str(fast.value) == str(slow.value)


@pytest.mark.parametrize("exc", [MemoryError, ValueError])
def test_errors_raised_in_the_c_grounding_propagate_without_rerunning_user_code(
    exc: type[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    """goap.planning._compile used to catch every exception of the C call and re-run the task in Python: a
    MemoryError or an internal error was hidden, and user code (here a name's __hash__) ran twice.
    Only None (not a plain task) goes to the Python compiler now."""
    calls: list[int] = []

    class Name(str):
        def __hash__(self) -> int:
            if sys._getframe(1).f_code.co_name == "_compile_plain":
                calls.append(1)
                raise exc("from user code")
            return str.__hash__(self)

        __eq__ = str.__eq__

    def python_compiler(*args: Any) -> Any:
        raise AssertionError("the Python compiler ran after the C grounding raised")

    acts = [ActionSpec(Name("a"), {}, {"x": 1})]
    monkeypatch.setattr(compile_module, "_compile_python", python_compiler)
    with pytest.raises(exc, match="from user code"):
        compile_module._compile({"x": 0}, {"x": 1}, acts, True, accelerated=True)
    assert calls == [1]
