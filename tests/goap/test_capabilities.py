"""Capability GoalPlanner: the litmus test, G1-G6, statuses, file operations and contract violations."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from goap import PlanningError
from goap.capabilities import (
    DEFAULT_CAPABILITIES,
    FILE_ALIASES,
    FILE_TOOLS,
    BlockedError,
    CapabilityError,
    CapabilityPlan,
    CapabilityPlanResult,
    ContractViolation,
    Fact,
    Goal,
    GoalPlanner,
    InvalidCapability,
    InvalidGoal,
    InvalidWorldState,
    NoCapabilityError,
    PartialPlanError,
    PlannedAction,
    ToolCapability,
    WorldState,
    check_plan,
    search_url,
)

OPEN_URL = ToolCapability(
    "browser.open_url", {"browser_search", "browser_navigate"}, effects={"browser_running"}
)
SEARCH_NEEDS_BROWSER = ToolCapability("browser.search", {"browser_search"}, requires={"browser_running"})
LAUNCH_BROWSER = ToolCapability("browser.launch", {"app_launch"}, effects={"browser_running"})


def plan(
    goal: Goal, world: WorldState | None = None, caps: object = DEFAULT_CAPABILITIES
) -> CapabilityPlanResult:
    return GoalPlanner().plan(goal, world or WorldState(), caps)  # type: ignore[arg-type]


# ---------------------------------------------------------------- exports and errors


def test_errors_belong_to_the_planning_tree() -> None:
    """Every capability error derives from goap.PlanningError through CapabilityError."""
    for err in (InvalidGoal, InvalidWorldState, InvalidCapability, ContractViolation, BlockedError):
        assert issubclass(err, CapabilityError)
    assert issubclass(CapabilityError, PlanningError)
    assert issubclass(InvalidGoal, ValueError)


# ---------------------------------------------------------------- litmus and G1 merging


def test_litmus_youtube_search_is_one_action() -> None:
    """Goal('browser_search', platform='youtube', query='nvidia') is exactly one action opening the search URL."""
    result = plan(Goal("browser_search", platform="youtube", query="nvidia"))
    assert result.status == "success"
    p = result.unwrap()
    assert p.total_actions == 1
    (action,) = p.actions
    assert action.tool == "browser.open_url"
    assert dict(action.args) == {"url": "https://youtube.com/results?search_query=nvidia"}
    assert action.depends_on == ()
    assert p.goal_achieved_by == action.action_id


def test_query_text_is_url_encoded() -> None:
    """Spaces, ampersands and non-ASCII text in the query are URL-encoded."""
    url = (
        plan(Goal("browser_search", platform="YouTube", query="rtx 4090 & café"))
        .unwrap()
        .actions[0]
        .args["url"]
    )
    assert url == "https://youtube.com/results?search_query=rtx+4090+%26+caf%C3%A9"


def test_search_defaults_to_google_and_resolves_aliases() -> None:
    """No platform searches google; 'yt' means youtube."""
    assert search_url(None, "a b") == "https://www.google.com/search?q=a+b"
    assert search_url("yt", "x") == "https://youtube.com/results?search_query=x"


def test_unknown_platform_is_no_capability() -> None:
    """A search on a platform with no known URL is 'no_capability' naming the platform."""
    r = plan(Goal("browser_search", platform="myspace", query="x"))
    assert r.status == "no_capability"
    assert "'myspace'" in r.reason
    with pytest.raises(NoCapabilityError, match="myspace"):
        r.unwrap()


def test_navigate_opens_the_url() -> None:
    """A navigate goal is one open_url action; a bare host gets https:// and a platform its home page."""
    assert (
        plan(Goal("browser_navigate", target="example.com")).unwrap().actions[0].args["url"]
        == "https://example.com"
    )
    assert (
        plan(Goal("browser_navigate", platform="github")).unwrap().actions[0].args["url"]
        == "https://github.com"
    )


# ---------------------------------------------------------------- G2 minimal, G4 dependencies


def test_prerequisite_is_planned_with_an_explicit_dependency() -> None:
    """A tool that requires a running browser gets a launch first, and depends on it."""
    p = plan(Goal("browser_search", query="nvidia"), caps=[SEARCH_NEEDS_BROWSER, LAUNCH_BROWSER]).unwrap()
    assert p.tools == ("browser.launch", "browser.search")
    launch, search = p.actions
    assert dict(launch.args) == {"ensure": ("browser_running",)}
    assert search.depends_on == (launch.action_id,)
    assert p.goal_achieved_by == search.action_id


def test_world_state_makes_prerequisites_unnecessary() -> None:
    """With the browser already running, the plan is the single search (minimal)."""
    p = plan(
        Goal("browser_search", query="x"),
        WorldState(browser_running=True),
        [SEARCH_NEEDS_BROWSER, LAUNCH_BROWSER],
    )
    assert p.unwrap().tools == ("browser.search",)
    assert p.unwrap().actions[0].depends_on == ()


def test_recent_facts_count_as_true_requirements() -> None:
    """A recent fact with value True satisfies a requirement; a later False one revokes it."""
    gh = ToolCapability("gh.search", {"browser_search"}, requires={"logged_in:github"})
    login = ToolCapability("gh.login", {"app_launch"}, effects={"logged_in:github"})
    fresh = WorldState(recent_facts=(Fact("logged_in:github", True, "cookie"),))
    assert plan(Goal("browser_search", query="x"), fresh, [gh, login]).unwrap().tools == ("gh.search",)
    stale = WorldState(recent_facts=[Fact("logged_in:github", True), Fact("logged_in:github", False)])  # type: ignore[arg-type]
    assert plan(Goal("browser_search", query="x"), stale, [gh, login]).unwrap().tools == (
        "gh.login",
        "gh.search",
    )


def test_the_cheapest_tool_chain_is_chosen() -> None:
    """Between a direct tool and one needing a prerequisite, the one-action plan wins."""
    r = plan(Goal("browser_search", query="x"), caps=[SEARCH_NEEDS_BROWSER, LAUNCH_BROWSER, OPEN_URL])
    assert r.unwrap().tools == ("browser.open_url",)


# ---------------------------------------------------------------- statuses


def test_blocked_names_the_unmet_requirement() -> None:
    """A tool whose requirement nothing provides makes the goal 'blocked', naming the requirement."""
    r = plan(Goal("browser_search", query="x"), caps=[SEARCH_NEEDS_BROWSER])
    assert (r.status, r.plan) == ("blocked", None)
    assert "'browser.search' requires browser_running" in r.reason
    with pytest.raises(BlockedError):
        r.unwrap()


def test_no_capability_names_the_goal_kind() -> None:
    """With no tool for the goal type, the result is 'no_capability' naming the kind and the tools."""
    r = plan(Goal("app_launch", target="Spotify"), caps=[OPEN_URL])
    assert r.status == "no_capability"
    assert "no capability achieves app_launch (capabilities: browser.open_url)" in r.reason


def test_other_goal_types_map_to_their_tools() -> None:
    """App launch and system query are one call each with their arguments."""
    app = plan(Goal("app_launch", target="Spotify")).unwrap().actions[0]
    assert (app.tool, dict(app.args)) == ("app.launch", {"app": "Spotify"})
    q = plan(Goal("system_query", query="battery")).unwrap().actions[0]
    assert (q.tool, dict(q.args)) == ("system.query", {"query": "battery"})


# ---------------------------------------------------------------- file operations


@pytest.mark.parametrize(("alias", "op"), sorted(FILE_ALIASES.items()))
def test_file_aliases_map_to_the_tool_table(alias: str, op: str) -> None:
    """Every alias of a file operation plans one call of the operation's fs tool."""
    goal = Goal("file_operation", action=alias.upper(), target="/tmp/a.txt", query="/tmp/b.txt")
    (action,) = plan(goal).unwrap().actions
    assert action.tool == FILE_TOOLS[op]
    assert action.args["op"] == op
    assert action.args["path"] == "/tmp/a.txt"


def test_folder_object_type_is_canonical() -> None:
    """'directory' is a folder."""
    goal = Goal("file_operation", action="mkdir", target="/tmp/x", object_type="Directory")
    assert plan(goal).unwrap().actions[0].args["object_type"] == "folder"


def test_move_without_a_move_tool_is_copy_then_delete() -> None:
    """With copy and delete tools but no move tool, a move is copy then delete, the delete depending on the copy."""
    tools = [
        ToolCapability("fs.copy", {"file_operation:copy"}),
        ToolCapability("fs.delete", {"file_operation:delete"}),
    ]
    p = plan(Goal("file_operation", action="mv", target="a.txt", query="b/"), caps=tools).unwrap()
    copy, delete = p.actions
    assert (copy.tool, delete.tool) == ("fs.copy", "fs.delete")
    assert copy.args["destination"] == "b/"
    assert delete.depends_on == (copy.action_id,)
    assert p.goal_achieved_by == delete.action_id


def test_move_with_only_copy_is_partial() -> None:
    """With only a copy tool, a move is a partial plan naming the unmet delete."""
    r = plan(
        Goal("file_operation", action="move", target="a.txt", query="b/"),
        caps=[ToolCapability("fs.copy", {"file_operation:copy"})],
    )
    assert r.status == "partial"
    assert r.plan is not None and r.plan.tools == ("fs.copy",)
    assert r.unmet == ("file_operation:delete file a.txt",)
    with pytest.raises(PartialPlanError) as info:
        r.unwrap()
    assert info.value.unmet == r.unmet


def test_generic_file_tool_handles_every_operation() -> None:
    """A tool that can_achieve 'file_operation' handles any file operation, move included, in one call."""
    fs = ToolCapability("fs", {"file_operation"})
    assert plan(Goal("file_operation", action="mv", target="a", query="b"), caps=[fs]).unwrap().tools == (
        "fs",
    )


# ---------------------------------------------------------------- typed input errors


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"goal_type": "teleport"}, "goal.goal_type"),
        ({"goal_type": "browser_search"}, "goal.query"),
        ({"goal_type": "browser_navigate"}, "goal.target"),
        ({"goal_type": "app_launch", "target": " "}, "goal.target"),
        ({"goal_type": "file_operation", "target": "a"}, "goal.action"),
        ({"goal_type": "file_operation", "action": "shred", "target": "a"}, "goal.action"),
        ({"goal_type": "file_operation", "action": "rm"}, "goal.target"),
        ({"goal_type": "file_operation", "action": "cp", "target": "a"}, "goal.query"),
        (
            {"goal_type": "file_operation", "action": "rm", "target": "a", "object_type": "pipe"},
            "goal.object_type",
        ),
        ({"goal_type": "system_query", "query": 3}, "goal.query"),
        ({"goal_type": "system_query", "query": "x", "goal_id": ""}, "goal.goal_id"),
    ],
)
def test_bad_goals_raise_invalid_goal_naming_the_field(kwargs: dict[str, object], field: str) -> None:
    """A malformed goal raises InvalidGoal whose field names what is wrong."""
    with pytest.raises(InvalidGoal) as info:
        Goal(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_bad_world_state_and_capabilities_are_typed_errors() -> None:
    """Malformed world states and capabilities raise their own typed errors."""
    with pytest.raises(InvalidWorldState, match="browser_running"):
        WorldState(browser_running="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidWorldState, match="running_apps"):
        WorldState(running_apps="chrome")  # type: ignore[arg-type]
    with pytest.raises(InvalidWorldState, match=r"recent_facts\[0\]"):
        WorldState(recent_facts=("x",))  # type: ignore[arg-type]
    with pytest.raises(InvalidCapability, match="file_operation:shred"):
        ToolCapability("t", {"file_operation:shred"})
    with pytest.raises(
        InvalidCapability, match=r"capabilities\[1\].name: duplicate tool name 'browser.open_url'"
    ):
        plan(Goal("system_query", query="x"), caps=[OPEN_URL, OPEN_URL])
    with pytest.raises(InvalidCapability, match=r"capabilities\[0\]"):
        plan(Goal("system_query", query="x"), caps=["browser"])
    with pytest.raises(InvalidGoal, match="expected a Goal"):
        GoalPlanner().plan({"goal_type": "x"}, WorldState(), [])  # type: ignore[arg-type]


def test_inputs_are_frozen() -> None:
    """Goal, WorldState and ToolCapability cannot be changed after construction."""
    with pytest.raises(FrozenInstanceError):
        Goal("system_query", query="x").query = "y"  # type: ignore[misc]
    ws = WorldState(running_apps={"a"}, recent_facts=[Fact("k", 1)])  # type: ignore[arg-type]
    assert isinstance(ws.running_apps, frozenset)
    assert isinstance(ws.recent_facts, tuple)
    assert isinstance(OPEN_URL.can_achieve, frozenset)


# ---------------------------------------------------------------- contract violations


def act(aid: str, tool: str = "browser.open_url", deps: tuple[str, ...] = ()) -> PlannedAction:
    return PlannedAction(aid, tool, {}, "", deps)


def test_violation_zero_actions_with_success() -> None:
    """A success with no plan, or a plan with no action, is a contract violation."""
    with pytest.raises(ContractViolation) as info:
        CapabilityPlanResult("success", None, "done")
    assert info.value.rule == "empty_success"
    with pytest.raises(ContractViolation, match="empty_success"):
        CapabilityPlan((), "a1", 0)


def test_violation_goal_achieved_by_not_in_actions() -> None:
    """goal_achieved_by must name one of the plan's actions."""
    with pytest.raises(ContractViolation) as info:
        CapabilityPlan.of([act("a1")], "a9")
    assert info.value.rule == "goal_achieved_by"
    assert "'a9'" in str(info.value)


def test_violation_circular_dependencies() -> None:
    """A dependency cycle is refused, and the message shows it."""
    with pytest.raises(ContractViolation) as info:
        CapabilityPlan.of([act("a1", deps=("a3",)), act("a2", deps=("a1",)), act("a3", deps=("a2",))], "a3")
    assert info.value.rule == "cyclic_dependencies"
    assert "a1 -> a3 -> a2 -> a1" in str(info.value)
    with pytest.raises(ContractViolation, match="cyclic"):
        CapabilityPlan.of([act("a1", deps=("a1",))], "a1")


def test_violation_unknown_dependency_duplicate_id_and_count() -> None:
    """Dependencies name existing actions, ids are unique, total_actions is right."""
    with pytest.raises(ContractViolation, match="unknown_dependency"):
        CapabilityPlan.of([act("a1", deps=("zz",))], "a1")
    with pytest.raises(ContractViolation, match="duplicate_action_id"):
        CapabilityPlan.of([act("a1"), act("a1")], "a1")
    with pytest.raises(ContractViolation, match="total_actions"):
        CapabilityPlan((act("a1"),), "a1", 2)


def test_violation_tool_not_in_capabilities() -> None:
    """check_plan refuses a plan using a tool the capabilities do not have."""
    with pytest.raises(ContractViolation) as info:
        check_plan(CapabilityPlan.of([act("a1", tool="shell.rm_rf")], "a1"), [OPEN_URL])
    assert info.value.rule == "unknown_tool"
    assert "'shell.rm_rf'" in str(info.value)


class _Rogue(GoalPlanner):
    """A planner whose solve() breaks one rule, to prove plan() catches it."""

    def __init__(self, how: str) -> None:
        super().__init__()
        self.how = how

    def solve(
        self, goal: Goal, world_state: WorldState, capabilities: tuple[ToolCapability, ...]
    ) -> CapabilityPlanResult:
        if self.how == "unknown_tool":
            return CapabilityPlanResult("success", CapabilityPlan.of([act("a1", tool="made.up")], "a1"), "ok")
        if self.how == "mutate_goal":
            object.__setattr__(goal, "query", "something else")
        elif self.how == "mutate_world":
            object.__setattr__(world_state, "running_apps", frozenset({"x"}))
        elif self.how == "mutate_capability":
            object.__setattr__(capabilities[0], "requires", frozenset({"root"}))
        elif self.how == "not_a_result":
            return "success"  # type: ignore[return-value]
        return super().solve(goal, world_state, capabilities)


class _ListMutator(GoalPlanner):
    """A planner that sorts the caller's list in place (a classic accidental mutation)."""

    def plan(
        self, goal: Goal, world_state: WorldState, capabilities: Iterable[ToolCapability]
    ) -> CapabilityPlanResult:
        self._given = capabilities
        return super().plan(goal, world_state, capabilities)

    def solve(
        self, goal: Goal, world_state: WorldState, capabilities: tuple[ToolCapability, ...]
    ) -> CapabilityPlanResult:
        self._given.reverse()  # type: ignore[attr-defined]
        return super().solve(goal, world_state, capabilities)


@pytest.mark.parametrize(
    ("how", "rule"),
    [
        ("unknown_tool", "unknown_tool"),
        ("mutate_goal", "input_mutation"),
        ("mutate_world", "input_mutation"),
        ("mutate_capability", "input_mutation"),
        ("not_a_result", "result_shape"),
    ],
)
def test_plan_catches_a_rogue_solver(how: str, rule: str) -> None:
    """plan() checks every result: a solver that breaks the contract raises ContractViolation."""
    goal = Goal("browser_search", query="x")
    world = WorldState()
    with pytest.raises(ContractViolation) as info:
        _Rogue(how).plan(goal, world, [ToolCapability("browser.open_url", {"browser_search"})])
    assert info.value.rule == rule


def test_plan_catches_mutation_of_the_capability_list() -> None:
    """Reordering the caller's capability list in place is an input mutation."""
    with pytest.raises(ContractViolation, match="input_mutation"):
        _ListMutator().plan(Goal("browser_search", query="x"), WorldState(), [OPEN_URL, LAUNCH_BROWSER])


def test_result_shapes_are_checked() -> None:
    """Blocked results carry no plan, partial ones name the unmet parts, every result has a reason."""
    p = CapabilityPlan.of([act("a1")], "a1")
    bad: list[tuple[Any, CapabilityPlan | None, str, tuple[str, ...]]] = [
        ("blocked", p, "x", ()),
        ("partial", p, "x", ()),
        ("success", p, "", ()),
        ("success", p, "x", ("delete",)),
        ("maybe", p, "x", ()),
    ]
    for status, pl, reason, unmet in bad:
        with pytest.raises(ContractViolation, match="result_shape"):
            CapabilityPlanResult(status, pl, reason, unmet)


def test_layers_group_independent_actions() -> None:
    """Plan.layers groups actions by dependency depth, keeping plan order within a layer."""
    p = CapabilityPlan.of([act("a1"), act("a2"), act("a3", deps=("a1", "a2")), act("a4", deps=("a1",))], "a3")
    assert p.layers() == (("a1", "a2"), ("a3", "a4"))
