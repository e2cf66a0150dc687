"""The capability contract's own registry example plans exactly as the contract says, capability
tags outside the goal types are accepted, and the platform table and browser are caller data."""

from __future__ import annotations

from typing import Any

import pytest

from goap.capabilities import (
    SEARCH_URLS,
    Goal,
    GoalPlanner,
    InvalidCapability,
    InvalidGoal,
    ToolCapability,
    WorldState,
)

SHELL = ToolCapability(
    name="system.apps.launch.shell",
    can_achieve={"browser_open", "browser_search"},
    requires=set(),
    effects={"browser_open", "url_loaded"},
)
"""The contract's registry example, verbatim."""

LITMUS = Goal("browser_search", platform="youtube", query="nvidia")


def shape(planner: GoalPlanner, goal: Goal, caps: list[ToolCapability]) -> list[dict[str, Any]]:
    """The plan's actions as plain dicts (id, tool, args, expected effect, dependencies)."""
    plan = planner.plan(goal, WorldState(), caps).unwrap()
    return [
        {
            "action_id": a.action_id,
            "tool": a.tool,
            "args": dict(a.args),
            "expected_effect": a.expected_effect,
            "depends_on": list(a.depends_on),
        }
        for a in plan.actions
    ]


def test_contract_registry_example_is_accepted() -> None:
    """browser_open is a capability tag, not a goal type: the contract's ToolCapability is valid."""
    assert SHELL.can_achieve == frozenset({"browser_open", "browser_search"})
    assert ToolCapability("t", {"teleport", "browser_open"}).achieves("teleport")


def test_contract_litmus_case_returns_exactly_the_contracts_output() -> None:
    """YouTube search for nvidia with the shell launcher: one action a1 naming chrome and the search URL."""
    assert shape(GoalPlanner(), LITMUS, [SHELL]) == [
        {
            "action_id": "a1",
            "tool": "system.apps.launch.shell",
            "args": {"app_name": "chrome", "url": "https://youtube.com/results?search_query=nvidia"},
            "expected_effect": "youtube_search_visible",
            "depends_on": [],
        }
    ]
    result = GoalPlanner().plan(LITMUS, WorldState(), [SHELL])
    assert result.status == "success" and result.plan is not None and result.plan.goal_achieved_by == "a1"


def test_a_tool_that_does_not_open_the_browser_gets_no_app_name() -> None:
    """browser.open_url (no browser_open tag) is called with the URL alone, same expected effect."""
    url_tool = ToolCapability("browser.open_url", {"browser_search"}, effects={"browser_running"})
    assert shape(GoalPlanner(), LITMUS, [url_tool])[0]["args"] == {
        "url": "https://youtube.com/results?search_query=nvidia"
    }
    assert shape(GoalPlanner(), LITMUS, [url_tool])[0]["expected_effect"] == "youtube_search_visible"


def test_the_browser_and_the_platform_table_are_caller_data() -> None:
    """A caller's own table and browser: its platform plans, a default platform it omits does not."""
    table = {"docs": "https://docs.example.org/find?term={q}"}
    planner = GoalPlanner(search_urls=table, browser="firefox")
    out = shape(planner, Goal("browser_search", platform="docs", query="cuda streams"), [SHELL])
    assert out[0]["args"] == {"app_name": "firefox", "url": "https://docs.example.org/find?term=cuda+streams"}
    assert out[0]["expected_effect"] == "docs_search_visible"
    missing = planner.plan(LITMUS, WorldState(), [SHELL])
    assert (
        missing.status == "no_capability" and "'youtube'" in missing.reason and "['docs']" in missing.reason
    )
    table["youtube"] = "https://evil.example/{q}"  # the planner keeps the table it was given
    assert planner.plan(LITMUS, WorldState(), [SHELL]).status == "no_capability"
    assert GoalPlanner().search_urls == SEARCH_URLS


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"search_urls": {"yt": "https://youtube.com/results"}}, "search_urls['yt']"),
        ({"search_urls": {"yt": "youtube {q}"}}, "search_urls['yt']"),
        ({"search_urls": {"YT": "https://y/{q}"}}, "search_urls"),
        ({"search_urls": {"": "https://y/{q}"}}, "search_urls"),
        ({"search_urls": [("yt", "https://y/{q}")]}, "search_urls"),
        ({"browser": " "}, "browser"),
    ],
)
def test_malformed_tables_are_typed_errors(kwargs: dict[str, Any], field: str) -> None:
    """A template without {q} or a scheme, a badly spelt platform or an empty browser names the field."""
    with pytest.raises(InvalidCapability) as err:
        GoalPlanner(**kwargs)
    assert err.value.field == field


def test_goal_types_stay_a_closed_set_and_file_tags_keep_their_vocabulary() -> None:
    """Goal('browser_open') is still refused, and so is the misspelt tag file_operation:shred."""
    with pytest.raises(InvalidGoal, match="goal.goal_type"):
        Goal("browser_open", query="x")  # type: ignore[arg-type]
    with pytest.raises(InvalidCapability, match="file_operation:shred"):
        ToolCapability("t", {"file_operation:shred"})
