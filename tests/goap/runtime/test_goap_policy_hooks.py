"""goap.runtime hooks added for adapters: per-sensor readings and the sensor_complete tracer hook,
sensors read outside a run, and the guard verdict of a plain answer."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.runtime import FunctionalSensor, GuardResult, guard_verdict, read_sensors
from graphengine.store import Store


class _Seen:
    """Records sensor_complete calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def on_sensor_complete(self, name: str, facts: Any) -> None:
        self.calls.append((name, dict(facts)))


async def test_sensor_complete_fires_once_per_answering_sensor(store: Store) -> None:
    """Each round calls the tracer's sensor_complete with every answering sensor's facts; a failing one is left out."""

    def broken(world: Mapping[str, Any]) -> Mapping[str, Any]:
        raise RuntimeError("down")

    seen = _Seen()
    sensors = [FunctionalSensor("temp", lambda w: {"temp": 20}), FunctionalSensor("broken", broken)]
    g = GoapGraph([ActionSpec("go", {}, {"done": True})], store=store, sensors=sensors, tracer=seen)
    final = await g.run("r", {"done": False}, GoalSpec({"done": True}))
    assert final.status == "achieved"
    assert seen.calls and all(c == ("temp", {"temp": 20}) for c in seen.calls)


def test_read_sensors_without_a_context_calls_them_directly() -> None:
    """ctx=None reads in order (each sees the facts before it), collects errors and lists each reading."""

    def broken(world: Mapping[str, Any]) -> Mapping[str, Any]:
        raise ValueError("no probe")

    sensors = [
        FunctionalSensor("a", lambda w: {"a": 1}),
        FunctionalSensor("bad", broken),
        FunctionalSensor("b", lambda w: {"b": w["a"] + 1}),
    ]
    r = asyncio.run(read_sensors(None, sensors, {"x": 0}))
    assert r.world == {"x": 0, "a": 1, "b": 2}
    assert r.readings == (("a", {"a": 1}), ("b", {"b": 2}))
    assert r.errors == (("bad", "ValueError: no probe"),)


def test_guard_verdict_normalises_answers() -> None:
    """guard_verdict maps None/True to a pass, False to a block and a GuardResult's severity to plain text."""

    class G:
        name = "g"

    class Sev(str):
        pass

    assert guard_verdict(G(), None)["passed"] is True
    assert guard_verdict(G(), False) == {"passed": False, "message": "guard 'g' failed", "severity": "block"}
    v = guard_verdict(G(), GuardResult(False, "no", Sev("block")))  # type: ignore[arg-type]
    assert v == {"passed": False, "message": "no", "severity": "block"} and type(v["severity"]) is str


async def test_a_reflexion_tracer_inside_a_multitracer_reflects(store: Store) -> None:
    """A ReflexionTracer held by a MultiTracer given as tracer= is used as the reflexion; the MultiTracer lists its reflections."""
    from goap.runtime import MultiTracer, NullTracer, ReflexionTracer

    calls = {"n": 0}

    def flaky(world: Mapping[str, Any]) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom")
        return {"done": True}

    reflexion = ReflexionTracer()
    multi = MultiTracer([NullTracer(), MultiTracer([reflexion])])
    g = GoapGraph([ActionSpec("go", {}, {"done": True}, execute=flaky)], store=store, tracer=multi)
    final = await g.run("r", {"done": False}, GoalSpec({"done": True}))
    assert final.status == "achieved"
    assert g.config.reflexion is reflexion
    assert [r.action for r in multi.reflections] == ["go"]
    assert final.reflection_context == [reflexion.reflections[0].note]
