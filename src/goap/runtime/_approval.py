"""Human approval of an action, as an engine interrupt.

``ActionSpec(..., approval=Form)`` names a pydantic model (a subclass of `Approval`) that a
person fills in before the action runs. When the next action of the plan needs approval the run
goes to the ``approval`` node, which the engine pauses *before* (``interrupt_before``): nothing
has run, and nothing inside a node runs twice. ``GoapGraph.pending_approval(run_id)`` tells what
is asked (the action, its plan position and the form's JSON schema);
``graph.resume(run_id, input={...})`` hands the answer to the approval step, which validates it
against the form:

- approved: the action runs next; the form's other fields are its arguments
  (``execute(world, **arguments)``), so a form may let the approver edit them;
- rejected: the action is blacklisted for the run and the run replans
  (reason ``"approval_rejected"``);
- an answer that does not validate pauses the run again, the validation error in the payload
  (``engine.get_interrupt(run_id).payload["error"]``).

The answer is recorded with the step like any resume input, so a replay decides the same way.
"""

from __future__ import annotations

from pydantic import BaseModel

__all__ = ["Approval"]


class Approval(BaseModel):
    """The base of approval forms: approve or reject, with a reason; add fields for arguments."""

    approved: bool
    """True runs the action, False blacklists it and replans."""
    reason: str = ""
    """Why (recorded in the run's policy events)."""


BASE_FIELDS = frozenset(Approval.model_fields)
"""Fields of every form that are not action arguments."""
