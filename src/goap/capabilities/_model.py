"""The records of the capability contract: Goal, WorldState, Fact, ToolCapability in; CapabilityPlanResult out.

Every record is a frozen, slotted dataclass validated on construction: a malformed input raises a
:class:`CapabilityInputError` naming the field, and a :class:`CapabilityPlan` or :class:`CapabilityPlanResult` that
breaks the contract cannot be built (:class:`ContractViolation`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from goap.capabilities._errors import (
    BlockedError,
    ContractViolation,
    InvalidCapability,
    InvalidGoal,
    InvalidWorldState,
    NoCapabilityError,
    PartialPlanError,
)
from goap.capabilities._tables import (
    FILE_ALIASES,
    FILE_OPS,
    GOAL_TYPES,
    NEEDS_DESTINATION,
    OBJECT_TYPES,
    GoalType,
)

__all__ = [
    "Fact",
    "Goal",
    "CapabilityPlan",
    "CapabilityPlanResult",
    "PlanStatus",
    "PlannedAction",
    "ToolCapability",
    "WorldState",
]

PlanStatus: TypeAlias = Literal["success", "no_capability", "blocked", "partial"]
"""Outcome of :meth:`GoalPlanner.plan`."""

_STATUSES: frozenset[str] = frozenset(("success", "no_capability", "blocked", "partial"))
_Scalar = bool | int | float | str


def _opt_str(err: type[InvalidGoal] | type[InvalidWorldState], name: str, value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise err(name, f"expected a str or None, got {value!r}")


def _blank(value: str | None) -> bool:
    return value is None or not value.strip()


@dataclass(frozen=True, slots=True)
class Goal:
    """What the user wants done, typed: one of the closed set of goal types and its parameters.

    Which fields a goal type needs (checked on construction, :class:`InvalidGoal` otherwise):

    - ``browser_search``: ``query`` (``platform`` optional, default ``google``);
    - ``browser_navigate``: ``target`` (a URL or a host) or ``platform``;
    - ``app_launch``: ``target`` (the application);
    - ``file_operation``: ``action`` (a name or alias, see ``FILE_ALIASES``), ``target`` (the
      path) and, for move, rename and copy, the destination in ``query``; ``object_type`` is
      ``file`` (default) or ``folder``;
    - ``system_query``: ``query`` (what to ask, e.g. ``battery``).
    """

    goal_type: GoalType
    """One of ``browser_search``, ``browser_navigate``, ``app_launch``, ``file_operation``, ``system_query``."""
    platform: str | None = None
    """Site or service the goal is about (``youtube``), when it matters."""
    query: str | None = None
    """Search text, system question, or a file operation's destination."""
    target: str | None = None
    """URL, application or path the goal acts on."""
    action: str | None = None
    """File operation (``move``, ``rm``, ...)."""
    object_type: str | None = None
    """``file`` or ``folder`` for file operations."""
    goal_id: str = "goal"
    """Caller's identifier of the goal, echoed in reasons."""

    def __post_init__(self) -> None:
        if self.goal_type not in GOAL_TYPES:
            raise InvalidGoal("goal.goal_type", f"expected one of {list(GOAL_TYPES)}, got {self.goal_type!r}")
        for name in ("platform", "query", "target", "action", "object_type"):
            _opt_str(InvalidGoal, f"goal.{name}", getattr(self, name))
        if not isinstance(self.goal_id, str) or not self.goal_id:
            raise InvalidGoal("goal.goal_id", f"expected a non-empty str, got {self.goal_id!r}")
        kind = self.goal_type
        if kind in ("browser_search", "system_query") and _blank(self.query):
            raise InvalidGoal("goal.query", f"a {kind} goal needs a non-empty query")
        if kind == "browser_navigate" and _blank(self.target) and _blank(self.platform):
            raise InvalidGoal("goal.target", "a browser_navigate goal needs a target URL or a platform")
        if kind == "app_launch" and _blank(self.target):
            raise InvalidGoal("goal.target", "an app_launch goal needs the application in target")
        if kind == "file_operation":
            self._check_file()

    def _check_file(self) -> None:
        if _blank(self.action):
            raise InvalidGoal("goal.action", "a file_operation goal needs an action (e.g. 'move', 'rm')")
        op = FILE_ALIASES.get(str(self.action).strip().lower())
        if op is None:
            raise InvalidGoal(
                "goal.action", f"unknown file operation {self.action!r}; known: {sorted(FILE_ALIASES)}"
            )
        if _blank(self.target):
            raise InvalidGoal("goal.target", f"a file_operation {op!r} goal needs the path in target")
        if op in NEEDS_DESTINATION and _blank(self.query):
            raise InvalidGoal("goal.query", f"a file_operation {op!r} goal needs the destination in query")
        if self.object_type is not None and self.object_type.strip().lower() not in OBJECT_TYPES:
            raise InvalidGoal(
                "goal.object_type", f"expected one of {sorted(OBJECT_TYPES)}, got {self.object_type!r}"
            )

    @property
    def file_op(self) -> str | None:
        """The canonical file operation of a ``file_operation`` goal (aliases resolved), else None."""
        if self.goal_type != "file_operation" or self.action is None:
            return None
        return FILE_ALIASES[self.action.strip().lower()]


@dataclass(frozen=True, slots=True)
class Fact:
    """Something recently observed about the world, e.g. ``Fact("logged_in:github", True)``.

    A fact whose value is ``True`` counts as satisfied when a capability ``requires`` its key.
    """

    key: str
    """What the fact is about."""
    value: _Scalar
    """Its value (a JSON scalar)."""
    source: str = ""
    """Who observed it (a tool, a sensor), for explanations."""

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise InvalidWorldState("fact.key", f"expected a non-empty str, got {self.key!r}")
        if not isinstance(self.value, _Scalar):
            raise InvalidWorldState(
                f"fact[{self.key!r}].value", f"expected a JSON scalar, got {self.value!r}"
            )
        if not isinstance(self.source, str):
            raise InvalidWorldState(f"fact[{self.key!r}].source", f"expected a str, got {self.source!r}")


@dataclass(frozen=True, slots=True)
class WorldState:
    """A frozen snapshot of the machine the plan will run on.

    ``running_apps`` is stored as a frozenset and ``recent_facts`` as a tuple, whatever iterable
    was passed, so the planner can never change what it was given.
    """

    browser_running: bool = False
    """Whether a browser is running."""
    browser_last_url: str | None = None
    """The URL the browser shows, when known."""
    active_window: str | None = None
    """Title or application of the focused window, when known."""
    running_apps: AbstractSet[str] = frozenset()
    """Names of the running applications (compared case-insensitively)."""
    recent_facts: tuple[Fact, ...] = ()
    """Recent observations, oldest first (a later fact about the same key wins)."""

    def __post_init__(self) -> None:
        if not isinstance(self.browser_running, bool):
            raise InvalidWorldState(
                "world_state.browser_running", f"expected a bool, got {self.browser_running!r}"
            )
        _opt_str(InvalidWorldState, "world_state.browser_last_url", self.browser_last_url)
        _opt_str(InvalidWorldState, "world_state.active_window", self.active_window)
        apps = self.running_apps
        if isinstance(apps, str) or not isinstance(apps, Iterable):
            raise InvalidWorldState("world_state.running_apps", f"expected a set of str, got {apps!r}")
        if not isinstance(apps, frozenset):
            object.__setattr__(self, "running_apps", frozenset(apps))
        for app in self.running_apps:
            if not isinstance(app, str) or not app:
                raise InvalidWorldState(
                    "world_state.running_apps", f"expected non-empty str items, got {app!r}"
                )
        facts = self.recent_facts
        if not isinstance(facts, Iterable):
            raise InvalidWorldState("world_state.recent_facts", f"expected a sequence of Fact, got {facts!r}")
        if not isinstance(facts, tuple):
            object.__setattr__(self, "recent_facts", tuple(facts))
        for i, fact in enumerate(self.recent_facts):
            if not isinstance(fact, Fact):
                raise InvalidWorldState(f"world_state.recent_facts[{i}]", f"expected a Fact, got {fact!r}")


def _str_set(owner: str, name: str, value: object) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidCapability(f"{owner}.{name}", f"expected a set of str, got {value!r}")
    out = frozenset(value)
    for item in out:
        if not isinstance(item, str) or not item:
            raise InvalidCapability(f"{owner}.{name}", f"expected non-empty str items, got {item!r}")
    return out


@dataclass(frozen=True, slots=True)
class ToolCapability:
    """What one tool can do: the goals it achieves, the facts it needs and the facts it makes true.

    ``can_achieve`` holds capability tags: the goal types it achieves (``browser_search``) or, for
    file operations, ``file_operation`` (every operation) or ``file_operation:<op>`` with a
    canonical operation (``file_operation:copy``). Other tags are accepted and describe the tool
    (the closed set applies to :attr:`Goal.goal_type`, not to tags): ``browser_open`` says the tool
    opens the browser application itself, so its calls name the browser (``app_name``). ``requires`` and ``effects`` are fact names such as
    ``browser_running`` or ``app_running:spotify``; the world state provides ``browser_running``,
    ``app_running:<app>`` (lower-cased), ``active_window:<window>`` and each recent fact whose
    value is ``True``. The three sets are stored as frozensets.
    """

    name: str
    """Unique tool name; plans refer to the tool by it."""
    can_achieve: AbstractSet[str]
    """Goal kinds the tool achieves in one call (see above)."""
    requires: AbstractSet[str] = frozenset()
    """Facts that must hold before the tool runs."""
    effects: AbstractSet[str] = frozenset()
    """Facts that hold after the tool ran."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidCapability("capability.name", f"expected a non-empty str, got {self.name!r}")
        owner = f"capability {self.name!r}"
        for attr in ("can_achieve", "requires", "effects"):
            object.__setattr__(self, attr, _str_set(owner, attr, getattr(self, attr)))
        for kind in self.can_achieve:
            base, colon, op = kind.partition(":")
            # Only the file operation tag has a vocabulary of its own: a misspelt operation would
            # otherwise make the tool silently useless for the operation it was meant for.
            if base == "file_operation" and colon and op not in FILE_OPS:
                raise InvalidCapability(
                    f"{owner}.can_achieve",
                    f"unknown file operation in {kind!r}; use 'file_operation:<op>' with op in {list(FILE_OPS)}",
                )

    def achieves(self, kind: str) -> bool:
        """Whether the tool achieves ``kind`` (a goal type or ``file_operation:<op>``)."""
        if kind in self.can_achieve:
            return True
        return kind.startswith("file_operation:") and "file_operation" in self.can_achieve


def _frozen_args(args: Mapping[str, Any]) -> Mapping[str, Any]:
    return args if isinstance(args, MappingProxyType) else MappingProxyType(dict(args))


def _empty_args() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class PlannedAction:
    """One tool call of a plan, with the actions it must wait for."""

    action_id: str
    """Identifier unique within the plan (``a1``, ``a2``, ... in plan order)."""
    tool: str
    """Name of the :class:`ToolCapability` to call."""
    args: Mapping[str, Any] = field(default_factory=_empty_args)
    """JSON-compatible arguments of the call (stored read-only)."""
    expected_effect: str = ""
    """What the call should bring about, in words a log reader understands."""
    depends_on: tuple[str, ...] = ()
    """Ids of the actions that must finish before this one starts."""

    def __post_init__(self) -> None:
        if not isinstance(self.action_id, str) or not self.action_id:
            raise ContractViolation(
                "result_shape", f"action_id must be a non-empty str, got {self.action_id!r}"
            )
        if not isinstance(self.tool, str) or not self.tool:
            raise ContractViolation(
                "result_shape", f"action {self.action_id!r}: tool must be a non-empty str"
            )
        object.__setattr__(self, "args", _frozen_args(self.args))
        if not isinstance(self.depends_on, tuple):
            object.__setattr__(self, "depends_on", tuple(self.depends_on))


def _find_cycle(actions: tuple[PlannedAction, ...]) -> list[str] | None:
    deps = {a.action_id: a.depends_on for a in actions}
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for root in deps:
        if state.get(root):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            kids = deps[node]
            if i < len(kids):
                stack.append((node, i + 1))
                kid = kids[i]
                if state.get(kid) == 1:
                    return [*path[path.index(kid) :], kid]
                if not state.get(kid):
                    stack.append((kid, 0))
            else:
                state[node] = 2
                path.pop()
    return None


@dataclass(frozen=True, slots=True)
class CapabilityPlan:
    """A minimal executable plan: actions, the one that achieves the goal, and their count.

    Validated on construction, so a broken plan cannot exist: it raises :class:`ContractViolation`
    when it has no action (``empty_success``), ``total_actions`` disagrees with the actions,
    two actions share an id, ``goal_achieved_by`` is not one of them, a dependency names an
    unknown action, or the dependencies form a cycle (the message shows the cycle).
    Build one with :meth:`of` to have ``total_actions`` counted for you.
    """

    actions: tuple[PlannedAction, ...]
    """The actions, in an order that respects their dependencies."""
    goal_achieved_by: str
    """Id of the action whose completion achieves the goal."""
    total_actions: int
    """``len(actions)``."""

    def __post_init__(self) -> None:
        if not isinstance(self.actions, tuple):
            object.__setattr__(self, "actions", tuple(self.actions))
        acts = self.actions
        if not acts:
            raise ContractViolation("empty_success", "a plan needs at least one action")
        for i, a in enumerate(acts):
            if not isinstance(a, PlannedAction):
                raise ContractViolation("result_shape", f"actions[{i}] must be a PlannedAction, got {a!r}")
        if self.total_actions != len(acts):
            raise ContractViolation(
                "total_actions",
                f"total_actions is {self.total_actions!r} but the plan has {len(acts)} actions",
            )
        ids = [a.action_id for a in acts]
        seen: set[str] = set()
        for aid in ids:
            if aid in seen:
                raise ContractViolation("duplicate_action_id", f"action id {aid!r} is used twice")
            seen.add(aid)
        if self.goal_achieved_by not in seen:
            raise ContractViolation(
                "goal_achieved_by",
                f"goal_achieved_by {self.goal_achieved_by!r} is not an action of the plan {ids}",
            )
        for a in acts:
            for dep in a.depends_on:
                if dep not in seen:
                    raise ContractViolation(
                        "unknown_dependency", f"action {a.action_id!r} depends on unknown action {dep!r}"
                    )
        cycle = _find_cycle(acts)
        if cycle is not None:
            raise ContractViolation("cyclic_dependencies", f"dependencies form a cycle: {' -> '.join(cycle)}")

    @classmethod
    def of(cls, actions: Iterable[PlannedAction], goal_achieved_by: str) -> CapabilityPlan:
        """A plan of ``actions`` with ``total_actions`` counted."""
        acts = tuple(actions)
        return cls(acts, goal_achieved_by, len(acts))

    @property
    def tools(self) -> tuple[str, ...]:
        """Tool of each action, in order."""
        return tuple(a.tool for a in self.actions)

    def action(self, action_id: str) -> PlannedAction:
        """The action with id ``action_id``; raises KeyError naming it when absent."""
        for a in self.actions:
            if a.action_id == action_id:
                return a
        raise KeyError(f"plan has no action {action_id!r}")

    def layers(self) -> tuple[tuple[str, ...], ...]:
        """Action ids grouped by dependency depth; actions in one layer are independent of each other.

        Layer ``k`` holds the actions whose longest dependency chain has ``k`` links; within a
        layer ids keep plan order, so the grouping is deterministic.
        """
        depth: dict[str, int] = {}
        by_id = {a.action_id: a for a in self.actions}

        def depth_of(aid: str) -> int:
            d = depth.get(aid)
            if d is None:
                deps = by_id[aid].depends_on
                d = depth[aid] = 1 + max((depth_of(x) for x in deps), default=-1)
            return d

        out: dict[int, list[str]] = {}
        for a in self.actions:
            out.setdefault(depth_of(a.action_id), []).append(a.action_id)
        return tuple(tuple(out[k]) for k in sorted(out))


@dataclass(frozen=True, slots=True)
class CapabilityPlanResult:
    """What :meth:`GoalPlanner.plan` returns: a status, the plan when there is one, and why.

    - ``success``: ``plan`` achieves the whole goal (at least one action);
    - ``partial``: ``plan`` achieves part of it, ``unmet`` names the rest;
    - ``no_capability``: no capability achieves (a part of) the goal; ``plan`` is None;
    - ``blocked``: a capability could, but its requirements cannot be met; ``plan`` is None.

    ``reason`` always says why in one sentence. A combination that breaks these rules (a
    success without a plan, a blocked result with one, ...) raises :class:`ContractViolation`.
    """

    status: PlanStatus
    """One of ``success``, ``no_capability``, ``blocked``, ``partial``."""
    plan: CapabilityPlan | None
    """The plan (``success`` and ``partial`` only)."""
    reason: str
    """Why the result is what it is."""
    unmet: tuple[str, ...] = ()
    """Parts of the goal the plan does not achieve (``partial`` only)."""

    def __post_init__(self) -> None:
        st = self.status
        if st not in _STATUSES:
            raise ContractViolation(
                "result_shape", f"unknown status {st!r}; expected one of {sorted(_STATUSES)}"
            )
        if not isinstance(self.unmet, tuple):
            object.__setattr__(self, "unmet", tuple(self.unmet))
        if self.plan is not None and not isinstance(self.plan, CapabilityPlan):
            raise ContractViolation(
                "result_shape", f"plan must be a CapabilityPlan or None, got {self.plan!r}"
            )
        if st == "success" and self.plan is None:
            raise ContractViolation("empty_success", "status 'success' with no plan (0 actions)")
        if st == "partial" and self.plan is None:
            raise ContractViolation("result_shape", "status 'partial' needs the plan of the achievable part")
        if st in ("no_capability", "blocked") and self.plan is not None:
            raise ContractViolation("result_shape", f"status {st!r} must not carry a plan")
        if (st == "partial") != bool(self.unmet):
            raise ContractViolation("result_shape", f"status {st!r} with unmet={self.unmet!r}")
        if not isinstance(self.reason, str) or not self.reason:
            raise ContractViolation("result_shape", "every result needs a reason")

    @property
    def ok(self) -> bool:
        """Whether the status is ``success``."""
        return self.status == "success"

    def unwrap(self) -> CapabilityPlan:
        """The plan of a ``success``; otherwise raise the matching :class:`PlanRejected` error."""
        if self.status == "success" and self.plan is not None:
            return self.plan
        if self.status == "partial":
            raise PartialPlanError(self.status, self.reason, self.unmet)
        if self.status == "blocked":
            raise BlockedError(self.status, self.reason)
        raise NoCapabilityError(self.status, self.reason)
