"""The GOAP-lite slot selector: deterministic next-state choice for conversational goal segments.

A :class:`GoalSegment` owns a :class:`SlotContract` (target, required and confirmed slots), member
:class:`StateDef`\\ s (what each collects or repairs, preconditions, effects, declared order and
cost), an ``exit_target`` and a ``fallback_state``. Each conversation keeps a :class:`SlotLedger`;
:func:`choose_next` applies the turn's :class:`SlotObservation`\\ s to it and returns a
:class:`Decision` with a reason string (``"goap_lite: collect phone via ask_phone"``), pure and
deterministic, in the order its docstring lists. :func:`load_segments` lints segments at load
time and lists every problem; :class:`SelectorRouter` plugs the selector into an engine as a
node's router behind the dual gate (``selector="goap_lite"`` and ``GRAPHENGINE_GOAP_SELECTOR=1``
or ``enabled=True``). :mod:`goap.selector.booking` is a booking flow built on it.

>>> from goap.selector import GoalSegment, SelectorContext, SlotContract, StateDef, choose_next
>>> seg = GoalSegment("s", SlotContract(("phone",)), (StateDef("ask_phone", collects=("phone",)),),
...                   exit_target="done", fallback_state="human")
>>> choose_next(seg, SelectorContext()).reason
'goap_lite: collect phone via ask_phone'
"""

from goap.planning.exports import publish as _publish
from goap.selector import _choose, _errors, _lint, _model, _router
from goap.selector._choose import *  # noqa: F403
from goap.selector._errors import *  # noqa: F403
from goap.selector._lint import *  # noqa: F403
from goap.selector._model import *  # noqa: F403
from goap.selector._router import *  # noqa: F403

__all__ = sorted([*_choose.__all__, *_errors.__all__, *_lint.__all__, *_model.__all__, *_router.__all__])
"""Every public name of the selector's modules (each module's ``__all__`` lists its own)."""

_publish(__name__, globals(), __all__)
