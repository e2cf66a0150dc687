"""Hypothesis properties of the GoalPlanner: determinism, order independence, no mutation, tool
membership, minimality and executable dependencies."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from goap.capabilities import FILE_ALIASES, Fact, Goal, GoalPlanner, ToolCapability, WorldState

FACTS = ("browser_running", "logged_in", "vpn_up", "app_running:terminal")
KINDS = (
    "browser_search",
    "browser_navigate",
    "app_launch",
    "system_query",
    "file_operation",
    "file_operation:copy",
    "file_operation:delete",
    "file_operation:move",
)

goals = st.one_of(
    st.builds(
        Goal,
        goal_type=st.just("browser_search"),
        query=st.text(min_size=1, max_size=12).filter(str.strip),
        platform=st.none() | st.sampled_from(["youtube", "google", "yt", "github"]),
    ),
    st.builds(
        Goal, goal_type=st.just("browser_navigate"), target=st.sampled_from(["example.com", "https://a.b/c"])
    ),
    st.builds(Goal, goal_type=st.just("app_launch"), target=st.sampled_from(["Spotify", "terminal"])),
    st.builds(Goal, goal_type=st.just("system_query"), query=st.sampled_from(["battery", "time"])),
    st.builds(
        Goal,
        goal_type=st.just("file_operation"),
        action=st.sampled_from(sorted(FILE_ALIASES)),
        target=st.just("/tmp/a"),
        query=st.just("/tmp/b"),
    ),
)
worlds = st.builds(
    WorldState,
    browser_running=st.booleans(),
    running_apps=st.frozensets(st.sampled_from(["terminal", "spotify"])),
    recent_facts=st.lists(st.builds(Fact, key=st.sampled_from(FACTS), value=st.booleans()), max_size=3).map(
        tuple
    ),
)
capabilities = st.lists(
    st.builds(
        ToolCapability,
        name=st.sampled_from([f"t{i}" for i in range(8)]),
        can_achieve=st.frozensets(st.sampled_from(KINDS), max_size=2),
        requires=st.frozensets(st.sampled_from(FACTS), max_size=2),
        effects=st.frozensets(st.sampled_from(FACTS), max_size=2),
    ),
    max_size=6,
    unique_by=lambda c: c.name,
)

PLANNER = GoalPlanner()


@settings(max_examples=60, deadline=None)
@given(goals, worlds, capabilities)
def test_planning_is_deterministic(goal: Goal, world: WorldState, caps: list[ToolCapability]) -> None:
    """The same inputs give the same result, including the plan's ids, args and dependencies."""
    assert PLANNER.plan(goal, world, caps) == PLANNER.plan(goal, world, caps)


@settings(max_examples=60, deadline=None)
@given(goals, worlds, capabilities, st.randoms(use_true_random=False))
def test_capability_order_does_not_matter(
    goal: Goal, world: WorldState, caps: list[ToolCapability], rnd: Any
) -> None:
    """Shuffling the capabilities never changes the result."""
    shuffled = list(caps)
    rnd.shuffle(shuffled)
    assert PLANNER.plan(goal, world, caps) == PLANNER.plan(goal, world, shuffled)


@settings(max_examples=60, deadline=None)
@given(goals, worlds, capabilities)
def test_inputs_are_never_mutated(goal: Goal, world: WorldState, caps: list[ToolCapability]) -> None:
    """Goal, world state and the capability list are equal to deep copies taken before planning."""
    before = copy.deepcopy((goal, world, caps))
    PLANNER.plan(goal, world, caps)
    assert (goal, world, caps) == before


@settings(max_examples=60, deadline=None)
@given(goals, worlds, capabilities)
def test_plans_are_executable_and_minimal(goal: Goal, world: WorldState, caps: list[ToolCapability]) -> None:
    """Every tool is a capability; replaying the plan meets each action's requirements after its
    dependencies; and no action can be dropped without breaking that."""
    r = PLANNER.plan(goal, world, caps)
    if r.plan is None:
        assert r.status in ("no_capability", "blocked")
        return
    by_name = {c.name: c for c in caps}
    assert set(r.plan.tools) <= set(by_name)
    true0 = {"browser_running"} if world.browser_running else set()
    true0 |= {f"app_running:{a}" for a in world.running_apps}
    for f in world.recent_facts:
        if f.value is True:
            true0.add(f.key)
        else:
            true0.discard(f.key)
    done: dict[str, set[str]] = {}
    for a in r.plan.actions:
        have = set(true0).union(*(done[d] for d in a.depends_on)) if a.depends_on else set(true0)
        assert by_name[a.tool].requires <= have, (a, have)
        done[a.action_id] = have | set(by_name[a.tool].effects)
    # Minimal: every prerequisite action feeds some later action (no superfluous call).
    needed = {d for a in r.plan.actions for d in a.depends_on} | {r.plan.goal_achieved_by}
    achievers = {a.action_id for a in r.plan.actions if "ensure" not in a.args}
    assert {a.action_id for a in r.plan.actions} <= needed | achievers
    # Merging: every goal part is one call (one achiever per part, at most two parts).
    assert 1 <= len(achievers) <= 2
