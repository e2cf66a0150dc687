"""Public names report the public module users import them from, and nothing else changes for it."""

from __future__ import annotations

import importlib
import inspect
import pickle
import subprocess
import sys
import typing

import pytest
from pydantic import BaseModel

PACKAGES = [
    "graphengine",
    "graphengine.adapters",
    "graphengine.emit",
    "graphengine.models",
    "graphengine.server",
    "graphengine.store",
    "graphengine.tools",
    "goap",
    "goap.capabilities",
    "goap.planning",
    "goap.planning.kit",
    "goap.runtime",
    "goap.selector",
    "goap.strategies",
]
"""Every package with an `__all__` users import from. `goap.compat` is left out on purpose: it is
LangGOAP's API, whose module layout (`goap.compat.planner`, `goap.compat.graph`...) is the API."""


def _public(package: str) -> list[tuple[str, object]]:
    mod = importlib.import_module(package)
    return [
        (name, obj)
        for name in mod.__all__
        if inspect.isclass(obj := getattr(mod, name)) or inspect.isfunction(obj)
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_class_and_function_reports_a_public_module_that_exports_it(package: str) -> None:
    """`obj.__module__` is this package or one enclosing it, has no private part, and exports the name."""
    for name, obj in _public(package):
        module = str(getattr(obj, "__module__", ""))
        assert not any(part.startswith("_") for part in module.split(".")), f"{package}.{name}: {module}"
        assert (
            package == module
            or package.startswith(module + ".")
            or not module.startswith(package.split(".")[0])
        ), f"{package}.{name} reports {module}"
        assert getattr(importlib.import_module(module), name) is obj, f"{module}.{name} is another object"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_class_and_function_pickles_by_its_public_name(package: str) -> None:
    """Pickling a public class or function and loading it back gives the same object."""
    for name, obj in _public(package):
        assert pickle.loads(pickle.dumps(obj)) is obj, f"{package}.{name}"


def test_the_named_examples() -> None:
    """`goap.AStar`, `goap.ModelError` and `graphengine.Engine` report their package."""
    import goap
    import graphengine

    assert goap.AStar.__module__ == "goap"
    assert goap.ModelError.__module__ == "goap"
    assert graphengine.Engine.__module__ == "graphengine"


def test_a_traceback_prints_the_public_name_of_an_error_raised_inside() -> None:
    """An error raised by goap's own code, never asked for by name, prints as `goap.ModelError`."""
    out = subprocess.run(
        [sys.executable, "-c", "from goap import ActionSpec\nActionSpec('', {}, {})"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.stderr.splitlines()[-1].startswith("goap.ModelError: "), out.stderr


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("graphengine", "NodeResult"),  # a generic NamedTuple over the private module's TypeVar
        ("graphengine", "Options"),
        ("graphengine", "GraphSpec"),
        ("graphengine.emit", "Event"),
        ("graphengine.models", "Message"),
        ("graphengine.models", "MessagesState"),
        ("graphengine.tools", "HttpRequest"),
        ("goap", "ActionOutcome"),
        ("goap", "CspPipeline"),
        ("goap", "Compare"),
    ],
)
def test_type_hints_of_moved_classes_still_resolve(package: str, name: str) -> None:
    """`typing.get_type_hints` of a class whose annotations use its private module's names works."""
    cls = getattr(importlib.import_module(package), name)
    hints = typing.get_type_hints(cls, include_extras=True)
    assert hints and not any(isinstance(v, str | typing.ForwardRef) for v in hints.values())


def test_pydantic_models_over_public_types_still_build_and_validate() -> None:
    """A user's pydantic model subclassing or holding the moved classes validates and round-trips."""
    from graphengine.models import Message, MessagesState

    class Chat(MessagesState):
        topic: str = ""

    class Holder(BaseModel):
        last: Message | None = None

    chat = Chat.model_validate({"messages": [{"role": "user", "content": "hi"}], "topic": "t"})
    assert Chat.model_validate_json(chat.model_dump_json()) == chat
    assert Holder.model_validate({"last": {"role": "user", "content": "x"}}).last is not None


_GRAPH_OF_DUALNODES = """
from pydantic import BaseModel
from graphengine import DualNode, Engine, NodeResult

class S(BaseModel):
    n: int = 0

async def arun(ctx, s):
    return NodeResult()

def run_sync(ctx, s):
    return NodeResult()

class Mine(DualNode[S]):
    \"\"\"A user's node class.\"\"\"

eng = Engine(S).add("a", DualNode(run_sync, arun)).add("b", Mine(run_sync, arun)).start_at("a").connect("a", "b")
print(eng.runtime().graph.legacy_fingerprint)
"""


def test_a_graph_of_public_node_classes_keeps_the_fingerprint_it_had_before_modules_were_published() -> None:
    """A graph whose nodes are `DualNode`s (and a user's subclass) has the module-named (legacy)
    fingerprint the release before `__module__` was set computed (recorded from it), so runs it
    stored still resume under the same names."""
    out = subprocess.run(
        [sys.executable, "-c", _GRAPH_OF_DUALNODES], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "0b3531cd230abf0a"


@pytest.mark.parametrize("package", PACKAGES)
def test_publishing_adds_no_member_to_a_protocol(package: str) -> None:
    """A public Protocol gets no attribute from publishing, so `isinstance` against a runtime-checkable
    one still accepts the implementations it accepted."""
    from graphengine.exports import DEFINED_IN

    for name, obj in _public(package):
        if getattr(obj, "_is_protocol", False):
            assert DEFINED_IN not in vars(obj), f"{package}.{name}"


def test_a_runtime_checkable_protocol_still_accepts_an_implementation() -> None:
    """A class with a `chat` coroutine is still a `graphengine.models.ChatModel` after publishing."""
    from graphengine.models import ChatModel, ChatOut

    class Echo:
        async def chat(self, messages: object, tools: object = ()) -> ChatOut:
            return ChatOut(text="x")

    assert isinstance(Echo(), ChatModel)
