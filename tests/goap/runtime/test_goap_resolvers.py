"""goap.runtime's condition resolvers: resolve_missing and resolver_sensor."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.runtime import resolve_missing, resolver_sensor
from graphengine.store import Store


def _unknown(key: str, world: Mapping[str, Any]) -> bool | None:
    return None


async def _door(key: str, world: Mapping[str, Any]) -> bool | None:
    return True if key == "door_open" else None


def _broken(key: str, world: Mapping[str, Any]) -> bool | None:
    raise RuntimeError("offline")


def test_first_definite_answer_wins_and_unknown_keys_stay_absent() -> None:
    """None and a raising resolver pass the question on; a key nobody settles is left out."""
    out = asyncio.run(resolve_missing([_unknown, _broken, _door], ["door_open", "lights"], {"x": 1}))
    assert out == {"x": 1, "door_open": True}


def test_present_keys_are_kept_unless_overwrite() -> None:
    """A key the world has is not asked for, except with overwrite=True."""
    world = {"door_open": False}
    assert asyncio.run(resolve_missing([_door], ["door_open"], world)) == world
    assert asyncio.run(resolve_missing([_door], ["door_open"], world, overwrite=True)) == {"door_open": True}


async def test_resolver_sensor_feeds_the_planner(store: Store) -> None:
    """As a sensor, the resolvers' answers make a precondition hold before planning."""
    acts = [ActionSpec("walk_through", {"door_open": True}, {"inside": True})]
    g = GoapGraph(acts, store=store, sensors=[resolver_sensor([_door], ["door_open"])])
    final = await g.run("r", {"inside": False}, GoalSpec({"inside": True}))
    assert final.status == "achieved"
    assert final.world_state["door_open"] is True
