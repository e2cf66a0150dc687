"""The capability GoalPlanner: a typed goal, a frozen world state and tool capabilities in; a minimal
executable plan with explicit dependencies out.

::

    from goap.capabilities import Goal, GoalPlanner, ToolCapability, WorldState

    browser = ToolCapability("browser.open_url", {"browser_search", "browser_navigate"},
                             effects={"browser_running"})
    result = GoalPlanner().plan(Goal("browser_search", platform="youtube", query="nvidia"),
                                WorldState(), [browser])
    plan = result.unwrap()      # one action: open https://youtube.com/results?search_query=nvidia

The contract G1-G6 is described in :class:`GoalPlanner`'s module; :data:`DEFAULT_CAPABILITIES`
is the standard tool table (browser, applications, the ``fs.*`` file tools, system queries), and
:func:`plan_to_engine` runs a plan on a graphengine ``Engine``. Errors form one branch of the
:class:`goap.PlanningError` tree rooted at :class:`CapabilityError`.
"""

from goap.capabilities import _errors, _model
from goap.capabilities._engine import PlanRunState, plan_to_engine
from goap.capabilities._errors import *  # noqa: F403
from goap.capabilities._model import *  # noqa: F403
from goap.capabilities._model import ToolCapability
from goap.capabilities._planner import GoalPlanner, check_plan, search_url
from goap.capabilities._tables import FILE_ALIASES, FILE_OPS, FILE_TOOLS, GOAL_TYPES, SEARCH_URLS, GoalType
from goap.planning.exports import publish as _publish

DEFAULT_CAPABILITIES: tuple[ToolCapability, ...] = (
    ToolCapability("browser.open_url", {"browser_search", "browser_navigate"}, effects={"browser_running"}),
    ToolCapability("app.launch", {"app_launch"}),
    ToolCapability("system.query", {"system_query"}),
    *(ToolCapability(tool, {f"file_operation:{op}"}) for op, tool in FILE_TOOLS.items()),
)
"""The standard tool table: one tool per goal type, and one ``fs.<op>`` tool per file operation."""

__all__ = [
    "DEFAULT_CAPABILITIES",
    "FILE_ALIASES",
    "FILE_OPS",
    "FILE_TOOLS",
    "GOAL_TYPES",
    "GoalPlanner",
    "GoalType",
    "PlanRunState",
    "SEARCH_URLS",
    "check_plan",
    "plan_to_engine",
    "search_url",
]
__all__ += _errors.__all__  # the error tree
__all__ += _model.__all__  # goals, world states, capabilities, plans
__all__.sort()

_publish(__name__, globals(), __all__)
