"""`GoalInterpreter`: a plain-English request becomes a validated `GoalSpec`, through a chat model.

    interp = GoalInterpreter(model, actions)
    goal = await interp.interpret("get me four pieces of wood")   # GoalSpec({"wood": ge(4)})
    final = await run_nl(graph, "r1", "get me four pieces of wood", model=model, world_state={...})

How it decides:

- The model is shown the *effects vocabulary* of the actions (every fact key an action can
  change, with the values actions set it to, or "number" when an action adds to it) and must
  answer with one structured object: through the ``submit_goal`` tool when the model calls
  tools, else as a bare JSON object. Its shape is `GoalAnswer`, checked by pydantic.
- Every condition must use a key of that vocabulary, and a value actions can produce
  (equality and ``in`` on set values; comparisons only on numeric facts). Anything else is
  invalid: the model is asked again with the validation errors fed back, up to
  `max_attempts`, then `GoalInterpretationError` names every problem of the last answer.
- A request the model finds ambiguous (``status: "ambiguous"``) or outside the vocabulary
  (``"unsupported"``) is rejected at once with `AmbiguousGoalError` /
  `GoalInterpretationError`: never guessed.

Inside a node, pass ``ctx=`` so each model call goes through ``ctx.call`` and replay serves the
recorded answers; `run_nl` interprets before the run starts and stores the resulting goal in the
run's initial state, so replaying the run never needs the model.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from goap.planning import ActionSpec, Add, Compare, GoalSpec, OneOf, PlanningError
from goap.planning.exports import publish
from graphengine.context import Context
from graphengine.models.chat import ChatModel, ChatOut, Message, ToolSpec, chat

if TYPE_CHECKING:
    from goap.runtime._graph import GoapGraph
    from goap.runtime._state import GoapState

__all__ = [
    "AmbiguousGoalError",
    "FactVocabulary",
    "GoalAnswer",
    "GoalCondition",
    "GoalInterpretationError",
    "GoalInterpreter",
    "run_nl",
]

Scalar = bool | int | float | str


class GoalInterpretationError(PlanningError):
    """The model's answer could not be turned into a valid goal.

    ``str(exc)`` names the request and each problem of the last answer, e.g.
    ``cannot interpret 'bake a cake' after 3 attempts: conditions[0].key: unknown fact 'cake'; ...``.
    """

    def __init__(self, request: str, problems: Sequence[str], *, attempts: int, answer: str = "") -> None:
        self.request = request
        """The plain-English request."""
        self.problems = tuple(problems)
        """What was wrong with the last answer, one item per problem."""
        self.attempts = attempts
        """How many answers the model gave."""
        self.answer = answer
        """The model's last answer, as text."""
        super().__init__(
            f"cannot interpret {request!r} after {attempts} attempt{'s' if attempts != 1 else ''}: "
            + "; ".join(self.problems)
        )


class AmbiguousGoalError(GoalInterpretationError):
    """The model found the request ambiguous; `problems` holds its reason. Ask the user to be precise."""


class GoalCondition(BaseModel):
    """One condition of the model's answer: ``key op value``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(description="A fact key from the vocabulary.")
    """A fact key from the vocabulary."""
    op: Literal["==", "!=", "<", "<=", ">", ">=", "in"] = Field(default="==", description="Comparison.")
    """Comparison operator; ``in`` takes a list."""
    value: Scalar | list[Scalar] = Field(description="The value (a list for 'in').")
    """Right-hand side."""


class GoalAnswer(BaseModel):
    """The structured answer the model must give."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: Literal["goal", "ambiguous", "unsupported"] = Field(
        description="'goal' when the request maps to conditions; 'ambiguous' when it could mean "
        "several different goals; 'unsupported' when no fact of the vocabulary expresses it."
    )
    """Whether the request maps to a goal."""
    conditions: list[GoalCondition] = Field(default_factory=list, description="The goal conditions.")
    """The conditions (status 'goal')."""
    name: str = Field(default="", description="A short label for the goal.")
    """A short label for the goal."""
    reason: str = Field(default="", description="Why the request is ambiguous or unsupported.")
    """Why it is ambiguous or unsupported."""


@dataclass(frozen=True, slots=True)
class FactVocabulary:
    """What the actions can change: per fact key, the values they set and whether they add to it."""

    values: Mapping[str, frozenset[Scalar]]
    """Key -> values some action sets it to."""
    numeric: frozenset[str]
    """Keys some action adds to (or sets to numbers): comparisons are allowed on them."""

    @classmethod
    def from_actions(cls, actions: Iterable[ActionSpec]) -> FactVocabulary:
        """Collect the vocabulary from the actions' effects."""
        values: dict[str, set[Scalar]] = {}
        numeric: set[str] = set()
        for a in actions:
            for key, eff in a.effects.items():
                vals = values.setdefault(key, set())
                if isinstance(eff, Add):
                    numeric.add(key)
                else:
                    vals.add(eff)
                    if isinstance(eff, int | float) and not isinstance(eff, bool):
                        numeric.add(key)
        return cls({k: frozenset(v) for k, v in sorted(values.items())}, frozenset(numeric))

    def describe(self) -> str:
        """One line per fact, for the prompt."""
        lines = []
        for key, vals in self.values.items():
            shown = ", ".join(json.dumps(v) for v in sorted(vals, key=repr))
            if key in self.numeric:
                lines.append(f"- {key}: a number" + (f" (actions set it to {shown})" if shown else ""))
            else:
                lines.append(f"- {key}: one of {shown}")
        return "\n".join(lines)

    def check(self, i: int, c: GoalCondition) -> list[str]:
        """Problems with condition number `i`, or an empty list."""
        where = f"conditions[{i}]"
        if c.key not in self.values:
            return [f"{where}.key: unknown fact {c.key!r}; known facts: {sorted(self.values)}"]
        vals, is_num = self.values[c.key], c.key in self.numeric

        def bad_value(v: Any) -> str | None:
            if is_num and isinstance(v, int | float) and not isinstance(v, bool):
                return None if math.isfinite(v) else f"{where}.value: {v!r} is not a finite number"
            if v in vals and type(v) in {type(x) for x in vals if x == v}:
                return None
            allowed = "a number" if is_num else f"one of {sorted(vals, key=repr)!r}"
            return f"{where}.value: {v!r} is not a value actions give {c.key!r}; use {allowed}"

        if c.op == "in":
            if not isinstance(c.value, list) or not c.value:
                return [f"{where}.value: 'in' needs a non-empty list, got {c.value!r}"]
            return [p for p in map(bad_value, c.value) if p]
        if isinstance(c.value, list):
            return [f"{where}.value: {c.op!r} needs a single value, got a list"]
        if c.op not in ("==", "!=") and not is_num:
            return [f"{where}.op: {c.op!r} compares numbers but {c.key!r} is not numeric; use '==' or 'in'"]
        if c.op not in ("==", "!=") and (isinstance(c.value, bool) or not isinstance(c.value, int | float)):
            return [f"{where}.value: {c.op!r} needs a number, got {c.value!r}"]
        problem = bad_value(c.value)
        return [problem] if problem else []


_SUBMIT = "submit_goal"
_REFUSALS: dict[str, tuple[type[GoalInterpretationError], str]] = {
    "ambiguous": (AmbiguousGoalError, "the model found the request ambiguous"),
    "unsupported": (GoalInterpretationError, "the model found no fact that expresses the request"),
}
"""An answer's status that refuses to give a goal -> the error it raises, and its reason when the
model gave none."""
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)

_SYSTEM = """You translate a user's request into a goal for a planner.
A goal is a list of conditions on facts. Use ONLY these facts and values:
{vocabulary}

Answer with exactly one object of this JSON schema{how}:
{schema}

Rules:
- status "goal": the conditions that must hold when the request is fulfilled.
- status "ambiguous": the request could mean clearly different goals; say why in "reason". Do not guess.
- status "unsupported": no fact above can express the request; say why in "reason".
- op is one of ==, !=, <, <=, >, >= (numbers only) or in (value is a list)."""


def _parse_answer(out: ChatOut) -> tuple[Any, str]:
    """The answer's JSON object (from the submit tool call, else the text) and its text form."""
    for call in out.tool_calls:
        if call.name == _SUBMIT:
            return call.arguments, json.dumps(call.arguments)
    text = _FENCE.sub("", out.text.strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError(f"the answer holds no JSON object: {out.text[:200]!r}")
    try:
        return json.loads(text[start : end + 1]), out.text
    except ValueError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc}): {out.text[:200]!r}") from None


class GoalInterpreter:
    """Turns plain-English requests into `GoalSpec`s over the facts `actions` can change.

    `model` is any `graphengine.models.ChatModel` (a `LangChainChatModel` wraps LangChain's).
    `max_attempts` counts answers, so ``max_attempts - 1`` retries follow invalid ones.
    `use_tools` offers the ``submit_goal`` tool (structured output through tool calling);
    turn it off for models without tool calling: the answer is then read from the text.
    """

    def __init__(
        self,
        model: ChatModel,
        actions: Iterable[ActionSpec] | Mapping[str, ActionSpec],
        *,
        max_attempts: int = 3,
        use_tools: bool = True,
        instructions: str = "",
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        acts = list(actions.values()) if isinstance(actions, Mapping) else list(actions)
        self.model = model
        """The chat model asked."""
        self.vocabulary = FactVocabulary.from_actions(acts)
        """The facts and values goals may use."""
        if not self.vocabulary.values:
            raise ValueError("the actions have no effects: there is nothing a goal could ask for")
        self.max_attempts = max_attempts
        """Answers allowed before giving up."""
        self.use_tools = use_tools
        """Whether the answer is requested through the ``submit_goal`` tool."""
        self.instructions = instructions
        """Extra domain guidance appended to the system prompt."""
        schema = GoalAnswer.model_json_schema()
        schema.pop("title", None)
        self.tool = ToolSpec(
            name=_SUBMIT,
            description="Submit the goal (or say why the request cannot be one).",
            parameters=schema,
        )
        """The structured-output tool offered to the model."""
        how = f" by calling the {_SUBMIT} tool" if use_tools else " and nothing else"
        prompt = _SYSTEM.format(vocabulary=self.vocabulary.describe(), how=how, schema=json.dumps(schema))
        self.system_prompt = prompt + (f"\n\n{instructions}" if instructions else "")
        """The system message sent first."""

    def validate(self, data: Any) -> tuple[GoalAnswer, list[str]]:
        """Parse `data` as a `GoalAnswer` and check it against the vocabulary; returns it and its problems."""
        try:
            ans = GoalAnswer.model_validate(data)
        except ValidationError as exc:
            raise ValueError(
                "; ".join(f"{'.'.join(map(str, e['loc'])) or '<answer>'}: {e['msg']}" for e in exc.errors())
            ) from None
        problems: list[str] = []
        if ans.status == "goal":
            if not ans.conditions:
                problems.append("conditions: a goal needs at least one condition")
            seen: set[str] = set()
            for i, c in enumerate(ans.conditions):
                problems += self.vocabulary.check(i, c)
                if c.key in seen:
                    problems.append(
                        f"conditions[{i}].key: {c.key!r} appears twice; give one condition per fact"
                    )
                seen.add(c.key)
        return ans, problems

    @staticmethod
    def to_goal(ans: GoalAnswer) -> GoalSpec:
        """The `GoalSpec` of a valid answer."""
        conds: dict[str, Any] = {}
        for c in ans.conditions:
            if c.op == "in":
                assert isinstance(c.value, list)
                conds[c.key] = OneOf(frozenset(c.value))
            elif c.op == "==":
                conds[c.key] = c.value
            else:
                assert not isinstance(c.value, list)
                conds[c.key] = Compare(c.op, c.value)
        return GoalSpec(conds, name=ans.name)

    def _prompt(self, request: str, world_state: Mapping[str, Any] | None) -> list[Message]:
        user = f"Request: {request}"
        if world_state:
            user += "\nCurrent facts: " + json.dumps(dict(world_state), sort_keys=True, default=str)
        return [Message.system(self.system_prompt), Message.user(user)]

    async def interpret(
        self, request: str, *, world_state: Mapping[str, Any] | None = None, ctx: Context | None = None
    ) -> GoalSpec:
        """Ask the model for the goal `request` means; see the module docstring for the rules.

        Raises `AmbiguousGoalError` (the model said so), `GoalInterpretationError` (unsupported,
        or still invalid after `max_attempts` answers) and, from the model, its
        `graphengine.models.ChatModelError` (or `graphengine.ToolCallError` through ``ctx``).
        """
        if not request.strip():
            raise GoalInterpretationError(request, ["the request is empty"], attempts=0)
        messages = self._prompt(request, world_state)
        tools = (self.tool,) if self.use_tools else ()
        problems: list[str] = []
        text = ""
        for attempt in range(1, self.max_attempts + 1):
            if ctx is not None:
                out = await chat(ctx, self.model, messages, tools, name="goal_interpreter")
            else:
                out = await self.model.chat(messages, tools)
            try:
                data, text = _parse_answer(out)
                ans, problems = self.validate(data)
            except ValueError as exc:
                text = text or out.text
                problems = [str(exc)]
            else:
                refusal = _REFUSALS.get(ans.status)
                if refusal is not None:
                    error, default_reason = refusal
                    raise error(request, [ans.reason or default_reason], attempts=attempt, answer=text)
                if not problems:
                    return self.to_goal(ans)
            feedback = (
                "Your answer was invalid:\n- " + "\n- ".join(problems) + "\nAnswer again, fixing these."
            )
            submit = next((c for c in out.tool_calls if c.name == _SUBMIT), None)
            messages.append(out.to_message())
            messages.extend(
                Message.tool(c, feedback if c is submit else "ignored: only submit_goal is available")
                for c in out.tool_calls
            )
            if submit is None:
                messages.append(Message.user(feedback))
        raise GoalInterpretationError(request, problems, attempts=self.max_attempts, answer=text)


async def run_nl(
    graph: GoapGraph,
    run_id: str,
    request: str,
    *,
    model: ChatModel,
    world_state: Mapping[str, Any],
    max_attempts: int = 3,
    interpreter: GoalInterpreter | None = None,
) -> GoapState:
    """Interpret `request` over the graph's actions, then run the graph toward that goal.

    The goal is decided before the run starts and stored in its initial state, so resume and
    replay never ask the model again. Raises what `GoalInterpreter.interpret` raises (no run
    is created then).
    """
    interp = interpreter or GoalInterpreter(model, graph.actions, max_attempts=max_attempts)
    goal = await interp.interpret(request, world_state=world_state)
    return await graph.run(run_id, world_state, goal)


# Errors report `goap` from the start (see goap.planning._errors).
publish("goap", globals(), ["GoalInterpretationError", "AmbiguousGoalError"])
