"""The capability GoalPlanner: a typed goal, a frozen world state and tool capabilities in, a
minimal executable plan with explicit dependencies out.

The contract (each rule is tested):

- **G1 merging**: one goal part is one tool call; a search on a platform is a single call
  opening the search URL (``https://youtube.com/results?search_query=nvidia``), never
  "open browser, type, press enter". Its expected effect is ``<platform>_search_visible``; a
  tool tagged ``browser_open`` (it opens the browser itself) is also told which browser
  (``app_name``, ``GoalPlanner(browser="chrome")``). The registry example of the contract,
  ``ToolCapability("system.apps.launch.shell", {"browser_open", "browser_search"},
  effects={"browser_open", "url_loaded"})``, plans the YouTube search for "nvidia" as exactly
  ``a1`` on that tool with ``{"app_name": "chrome", "url":
  "https://youtube.com/results?search_query=nvidia"}``, expecting ``youtube_search_visible``.
- **G2 minimal**: the fewest calls that achieve the goal. Prerequisites (a tool that
  ``requires`` ``browser_running`` when the browser is not running) are found by the optimal A*
  planner of :func:`goap.plan` over the capabilities, with unit costs, so no call is superfluous.
- **G3 executable**: every call uses a tool of the capabilities passed in.
- **G4 explicit acyclic dependencies**: an action depends on the earlier actions that made its
  requirements true (a requirement already true in the world state needs no dependency).
- **G5 inputs untouched**: inputs are frozen records, and the planner checks that a snapshot of
  them taken before planning still matches afterwards.
- **G6 deterministic**: capabilities are considered in name order and ties in the search are
  broken by that order, so the same inputs in any order give the same plan.

G3, G4 and G5 are checked after every call (a violation raises :class:`ContractViolation`), so a
subclass overriding :meth:`GoalPlanner.solve` is held to the same contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import quote_plus, urlsplit

from goap.capabilities._errors import ContractViolation, InvalidCapability, InvalidGoal, InvalidWorldState
from goap.capabilities._model import (
    CapabilityPlan,
    CapabilityPlanResult,
    Goal,
    PlannedAction,
    ToolCapability,
    WorldState,
)
from goap.capabilities._tables import (
    BROWSER_OPEN,
    DECOMPOSITIONS,
    DEFAULT_SEARCH_PLATFORM,
    NEEDS_DESTINATION,
    OBJECT_TYPES,
    PLATFORM_ALIASES,
    SEARCH_URLS,
)
from goap.planning import ActionSpec, AStar, GoalSpec, PlanningStrategy
from goap.planning import plan as goap_plan

__all__ = ["GoalPlanner", "check_plan", "search_url"]


@dataclass(frozen=True, slots=True)
class _Part:
    """One tool call the goal needs: its kind, its arguments and the parts it must follow."""

    kind: str
    args: Mapping[str, Any]
    expected: str
    after: tuple[int, ...] = ()
    label: str = field(default="")


def _platform(name: str) -> str:
    key = name.strip().lower()
    return PLATFORM_ALIASES.get(key, key)


def search_url(platform: str | None, query: str, urls: Mapping[str, str] = SEARCH_URLS) -> str | None:
    """The URL that searches ``query`` on ``platform`` (default google), or None for an unknown platform.

    The query is URL-encoded with ``quote_plus``: ``search_url("youtube", "rtx 4090")`` is
    ``https://youtube.com/results?search_query=rtx+4090``. ``urls`` is the platform table
    (default :data:`SEARCH_URLS`; a :class:`GoalPlanner` passes its own).
    """
    template = urls.get(_platform(platform or DEFAULT_SEARCH_PLATFORM))
    return None if template is None else template.format(q=quote_plus(query.strip()))


def _home_url(platform: str, urls: Mapping[str, str]) -> str | None:
    template = urls.get(_platform(platform))
    if template is None:
        return None
    parts = urlsplit(template)
    return f"{parts.scheme}://{parts.netloc}"


def _goal_parts(goal: Goal, caps: Sequence[ToolCapability], urls: Mapping[str, str]) -> list[_Part] | str:
    """The parts of ``goal``, or the reason it cannot be expressed (an unknown platform)."""
    kind = goal.goal_type
    if kind == "browser_search":
        query = str(goal.query)
        url = search_url(goal.platform, query, urls)
        if url is None:
            return f"no search URL is known for platform {goal.platform!r}; known: {sorted(urls)}"
        platform = _platform(goal.platform or DEFAULT_SEARCH_PLATFORM)
        return [_Part(kind, {"url": url}, f"{platform}_search_visible", label=f"browser_search {query!r}")]
    if kind == "browser_navigate":
        if goal.target is not None and goal.target.strip():
            target = goal.target.strip()
            url = target if "://" in target else f"https://{target}"
        else:
            home = _home_url(str(goal.platform), urls)
            if home is None:
                return f"no address is known for platform {goal.platform!r}; known: {sorted(urls)}"
            url = home
        return [_Part(kind, {"url": url}, f"browser shows {url}", label=f"browser_navigate {url}")]
    if kind == "app_launch":
        app = str(goal.target).strip()
        return [_Part(kind, {"app": app}, f"app_running:{app.lower()}", label=f"app_launch {app}")]
    if kind == "system_query":
        query = str(goal.query).strip()
        return [_Part(kind, {"query": query}, f"answer to {query!r}", label=f"system_query {query!r}")]
    return _file_parts(goal, caps)


def _file_parts(goal: Goal, caps: Sequence[ToolCapability]) -> list[_Part]:
    op = str(goal.file_op)
    path = str(goal.target).strip()
    obj = OBJECT_TYPES[(goal.object_type or "file").strip().lower()]
    dest = str(goal.query).strip() if op in NEEDS_DESTINATION else None

    def part(op: str, dest: str | None, after: tuple[int, ...] = ()) -> _Part:
        args: dict[str, Any] = {"op": op, "path": path, "object_type": obj}
        what = f"file_operation:{op} {obj} {path}"
        if dest is not None:
            args["destination"] = dest
            what += f" -> {dest}"
        return _Part(f"file_operation:{op}", args, what, after, label=what)

    pieces = DECOMPOSITIONS.get(op)
    direct = any(c.achieves(f"file_operation:{op}") for c in caps)
    if pieces is None or direct or not any(c.achieves(f"file_operation:{p}") for c in caps for p in pieces):
        return [part(op, dest)]
    # No tool performs the operation itself, but some of its pieces are available: each piece
    # runs after the previous one (copy before delete), so a missing piece leaves a partial plan.
    out: list[_Part] = []
    for i, piece in enumerate(pieces):
        out.append(part(piece, dest if piece in NEEDS_DESTINATION else None, (i - 1,) if i else ()))
    return out


def _initial_facts(ws: WorldState) -> dict[str, bool]:
    facts: dict[str, bool] = {}
    if ws.browser_running:
        facts["browser_running"] = True
    if ws.browser_last_url:
        facts[f"browser_url:{ws.browser_last_url}"] = True
    if ws.active_window:
        facts[f"active_window:{ws.active_window.lower()}"] = True
    for app in sorted(ws.running_apps):
        facts[f"app_running:{app.lower()}"] = True
    for fact in ws.recent_facts:
        # A later observation of the same key replaces an earlier one (facts are oldest first).
        if fact.value is True:
            facts[fact.key] = True
        else:
            facts.pop(fact.key, None)
    return facts


def _snapshot(goal: Goal, ws: WorldState, caps: Sequence[Any]) -> tuple[Any, ...]:
    """A deep, value-only copy of the inputs, compared after planning to prove G5."""
    return (
        tuple(getattr(goal, n) for n in Goal.__dataclass_fields__),
        (
            ws.browser_running,
            ws.browser_last_url,
            ws.active_window,
            tuple(sorted(ws.running_apps)),
            tuple((f.key, f.value, f.source) for f in ws.recent_facts),
        ),
        tuple(
            (c.name, tuple(sorted(c.can_achieve)), tuple(sorted(c.requires)), tuple(sorted(c.effects)))
            if isinstance(c, ToolCapability)
            else repr(c)
            for c in caps
        ),
    )


def _check_inputs(goal: object, ws: object, capabilities: object) -> tuple[ToolCapability, ...]:
    if not isinstance(goal, Goal):
        raise InvalidGoal("goal", f"expected a Goal, got {type(goal).__name__}")
    if not isinstance(ws, WorldState):
        raise InvalidWorldState("world_state", f"expected a WorldState, got {type(ws).__name__}")
    if isinstance(capabilities, str | bytes | Mapping) or not isinstance(capabilities, Iterable):
        raise InvalidCapability(
            "capabilities", f"expected a sequence of ToolCapability, got {capabilities!r}"
        )
    caps = tuple(capabilities)
    names: set[str] = set()
    for i, c in enumerate(caps):
        if not isinstance(c, ToolCapability):
            raise InvalidCapability(
                f"capabilities[{i}]", f"expected a ToolCapability, got {type(c).__name__}"
            )
        if c.name in names:
            raise InvalidCapability(f"capabilities[{i}].name", f"duplicate tool name {c.name!r}")
        names.add(c.name)
    return caps


def check_plan(plan: CapabilityPlan, capabilities: Iterable[ToolCapability]) -> None:
    """Check that ``plan`` is executable with ``capabilities`` (G3); raise ContractViolation otherwise.

    The plan's own invariants (ids, ``goal_achieved_by``, acyclic dependencies) were checked when
    it was built.
    """
    names = {c.name for c in capabilities}
    for a in plan.actions:
        if a.tool not in names:
            raise ContractViolation(
                "unknown_tool",
                f"action {a.action_id!r} uses tool {a.tool!r}, which is not in the capabilities {sorted(names)}",
            )


class GoalPlanner:
    """Plans a typed :class:`Goal` with tool capabilities; honours the contract G1-G6 (module doc).

    ``plan`` returns a :class:`CapabilityPlanResult` (``success``, ``partial``, ``no_capability`` or
    ``blocked``, with a reason). It raises :class:`CapabilityInputError` subclasses for malformed
    inputs and :class:`ContractViolation` if the result breaks the contract.
    ``strategy`` is the :class:`goap.PlanningStrategy` used to find prerequisites; it must be
    optimal for G2 (the default A* is). ``search_urls`` is the platform table (platform -> URL
    template with ``{q}``; default :data:`SEARCH_URLS`): applications and sites are data the
    caller passes in. ``browser`` is the application a ``browser_open`` tool is told to open.

    >>> from goap.capabilities import Goal, GoalPlanner, ToolCapability, WorldState
    >>> browser = ToolCapability("browser.open_url", {"browser_search"}, effects={"browser_running"})
    >>> r = GoalPlanner().plan(Goal("browser_search", platform="youtube", query="nvidia"), WorldState(), [browser])
    >>> [(a.tool, dict(a.args)) for a in r.unwrap().actions]
    [('browser.open_url', {'url': 'https://youtube.com/results?search_query=nvidia'})]
    """

    def __init__(
        self,
        *,
        strategy: PlanningStrategy | None = None,
        search_urls: Mapping[str, str] = SEARCH_URLS,
        browser: str = "chrome",
    ) -> None:
        # No wall-clock timeout: a time limit would make the outcome depend on the machine (G6).
        self.strategy: PlanningStrategy = strategy if strategy is not None else AStar(timeout=None)
        """The search used for prerequisites."""
        if not isinstance(search_urls, Mapping):
            raise InvalidCapability(
                "search_urls", f"expected a mapping of platform -> URL template, got {search_urls!r}"
            )
        for platform, template in search_urls.items():
            if not isinstance(platform, str) or not platform or platform != platform.strip().lower():
                raise InvalidCapability(
                    "search_urls", f"platform names must be lower-case non-empty str, got {platform!r}"
                )
            if not isinstance(template, str) or "{q}" not in template or "://" not in template:
                raise InvalidCapability(
                    f"search_urls[{platform!r}]",
                    f"expected a URL template containing {{q}}, got {template!r}",
                )
        self.search_urls: Mapping[str, str] = MappingProxyType(dict(search_urls))
        """Platform -> search URL template (a frozen copy of what was passed)."""
        if not isinstance(browser, str) or not browser.strip():
            raise InvalidCapability("browser", f"expected a non-empty str, got {browser!r}")
        self.browser: str = browser.strip()
        """The browser application a ``browser_open`` tool opens."""

    def plan(
        self, goal: Goal, world_state: WorldState, capabilities: Iterable[ToolCapability]
    ) -> CapabilityPlanResult:
        """Plan ``goal`` from ``world_state`` with ``capabilities``; see the class docstring."""
        caps = _check_inputs(goal, world_state, capabilities)
        # Snapshot what the caller handed us (the list itself, if it is one) to prove G5 after.
        given = capabilities if isinstance(capabilities, list | tuple) else caps
        before = _snapshot(goal, world_state, given)
        result = self.solve(goal, world_state, caps)
        if not isinstance(result, CapabilityPlanResult):
            raise ContractViolation(
                "result_shape", f"solve() returned {type(result).__name__}, not a CapabilityPlanResult"
            )
        if _snapshot(goal, world_state, given) != before:
            raise ContractViolation(
                "input_mutation", "the goal, world state or capabilities changed during planning"
            )
        if result.plan is not None:
            check_plan(result.plan, caps)
        return result

    def solve(
        self, goal: Goal, world_state: WorldState, capabilities: tuple[ToolCapability, ...]
    ) -> CapabilityPlanResult:
        """The planning itself, on validated inputs; :meth:`plan` checks its result against the contract."""
        caps = tuple(sorted(capabilities, key=lambda c: c.name))
        parts = _goal_parts(goal, caps, self.search_urls)
        if isinstance(parts, str):
            return CapabilityPlanResult("no_capability", None, f"goal {goal.goal_id!r}: {parts}")
        init = _initial_facts(world_state)
        chosen: list[int] = []
        unmet: list[str] = []
        reasons: list[str] = []
        blocked = False
        best: tuple[list[tuple[ToolCapability, int | None]], list[_Part]] | None = None
        for i, part in enumerate(parts):
            missing = [parts[j].label for j in part.after if j not in chosen]
            if missing:
                unmet.append(part.label)
                reasons.append(f"{part.label}: needs {', '.join(missing)} first")
                continue
            if not any(c.achieves(part.kind) for c in caps):
                unmet.append(part.label)
                have = ", ".join(c.name for c in caps) or "none"
                reasons.append(f"{part.label}: no capability achieves {part.kind} (capabilities: {have})")
                continue
            found = self._search(init, parts, [*chosen, i], caps)
            if isinstance(found, str):
                blocked = True
                unmet.append(part.label)
                reasons.append(f"{part.label}: {found}")
                continue
            chosen.append(i)
            best = (found, parts)
        prefix = f"goal {goal.goal_id!r}: "
        if best is None:
            return CapabilityPlanResult(
                "blocked" if blocked else "no_capability", None, prefix + "; ".join(reasons)
            )
        plan = _to_plan(best[0], best[1], init, self.browser)
        if unmet:
            return CapabilityPlanResult("partial", plan, prefix + "; ".join(reasons), tuple(unmet))
        what = ", ".join(parts[i].label for i in chosen)
        return CapabilityPlanResult("success", plan, f"{prefix}{what} in {plan.total_actions} action(s)")

    def _search(
        self,
        init: Mapping[str, bool],
        parts: Sequence[_Part],
        chosen: Sequence[int],
        caps: Sequence[ToolCapability],
    ) -> list[tuple[ToolCapability, int | None]] | str:
        """Optimal tool sequence achieving the ``chosen`` parts, or why none exists."""
        acts: list[ActionSpec] = []
        meaning: dict[str, tuple[ToolCapability, int | None]] = {}
        # Action names are positional ("s3", "p0.3"), so tool names can never collide with them.
        for k, c in enumerate(caps):
            eff = dict.fromkeys(c.effects, True)
            pre = dict.fromkeys(c.requires, True)
            if eff:
                name = f"s{k}"
                acts.append(ActionSpec(name, pre, eff, cost=1.0))
                meaning[name] = (c, None)
            for i in chosen:
                part = parts[i]
                if c.achieves(part.kind):
                    name = f"p{i}.{k}"
                    p_pre = {**pre, **{f"part:{j}": True for j in part.after}}
                    acts.append(ActionSpec(name, p_pre, {**eff, f"part:{i}": True}, cost=1.0))
                    meaning[name] = (c, i)
        result = goap_plan(init, GoalSpec({f"part:{i}": True for i in chosen}), acts, self.strategy)
        if result.plan is None:
            return (
                _blocked_reason(init, parts[chosen[-1]], caps)
                if result.status == "no_plan"
                else (f"search stopped ({result.status}) before finding a plan")
            )
        return [meaning[a.name] for a in result.plan.actions]


def _blocked_reason(init: Mapping[str, bool], part: _Part, caps: Sequence[ToolCapability]) -> str:
    provided = {e for c in caps for e in c.effects}
    out = []
    for c in caps:
        if c.achieves(part.kind):
            lacking = sorted(r for r in c.requires if r not in init and r not in provided)
            need = ", ".join(lacking) if lacking else "requirements no sequence of tools can establish"
            out.append(f"tool {c.name!r} requires {need}")
    return "blocked: " + "; ".join(out) + " (not true in the world state and no capability provides it)"


def _to_plan(
    steps: list[tuple[ToolCapability, int | None]],
    parts: Sequence[_Part],
    init: Mapping[str, bool],
    browser: str,
) -> CapabilityPlan:
    """Turn the search's tool sequence into PlannedActions with explicit dependencies (G4)."""
    ids = [f"a{n + 1}" for n in range(len(steps))]
    pres: list[set[str]] = []
    for c, i in steps:
        pre = set(c.requires)
        if i is not None:
            pre |= {f"part:{j}" for j in parts[i].after}
        pres.append(pre)
    producer: dict[str, str] = {}
    actions: list[PlannedAction] = []
    achieved_by = ""
    for n, (c, i) in enumerate(steps):
        deps = sorted({producer[f] for f in pres[n] if f not in init and f in producer}, key=ids.index)
        if i is not None:
            part = parts[i]
            args: Mapping[str, Any] = part.args
            if part.kind in ("browser_search", "browser_navigate") and (
                BROWSER_OPEN in c.can_achieve or BROWSER_OPEN in c.effects
            ):
                # The tool launches the browser itself (an application launcher), so the call names it.
                args = {"app_name": browser, **part.args}
            expected = part.expected
            achieved_by = ids[n]
        else:
            # A prerequisite: say which of its effects a later action needs.
            later = set().union(*pres[n + 1 :]) if n + 1 < len(pres) else set()
            ensure = sorted(e for e in c.effects if e in later and e not in init) or sorted(c.effects)
            args = {"ensure": tuple(ensure)}
            expected = ", ".join(ensure)
        actions.append(PlannedAction(ids[n], c.name, args, expected, tuple(deps)))
        for e in c.effects:
            producer[e] = ids[n]
        if i is not None:
            producer[f"part:{i}"] = ids[n]
    return CapabilityPlan.of(actions, achieved_by)
