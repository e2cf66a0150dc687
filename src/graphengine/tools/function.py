"""The `@tool` decorator: a typed function becomes a `graphengine.Tool` with a `ToolSpec` for models.

    @tool
    async def search(query: str, limit: int = 5) -> list[str]:
        '''Search the knowledge base.

        Args:
            query: What to look for.
            limit: How many hits at most.
        '''

    search.spec            # ToolSpec(name="search", description="Search the knowledge base.", parameters={...})
    await ctx.call(search, {"query": "goap"})   # recorded; replay serves the result

The JSON schema comes from the signature through pydantic (``Annotated[int, Field(ge=1)]``
constraints included); parameter descriptions come from a Google-style ``Args:`` section. A
function taking one pydantic model uses that model as its input schema. A parameter annotated
`graphengine.Context` receives the node's context and is not part of the schema.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import re
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from graphengine.context import Context
from graphengine.models.chat import ToolSpec

__all__ = ["FunctionTool", "ToolInputError", "tool"]

P = ParamSpec("P")
R = TypeVar("R")


class ToolInputError(ValueError):
    """The arguments given to a tool do not fit its schema; the message names each bad field."""

    def __init__(self, tool: str, problems: list[str]) -> None:
        super().__init__(f"tool {tool!r}: invalid arguments: " + "; ".join(problems))
        self.tool = tool
        """The tool's name."""
        self.problems = problems
        """One line per bad field: ``limit: Input should be a valid integer``."""


_ARGS_HEAD = re.compile(r"^\s*(Args|Arguments|Parameters)\s*:\s*$")
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _parse_doc(doc: str) -> tuple[str, dict[str, str]]:
    """Summary paragraph and ``Args:`` descriptions of a Google-style docstring."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _ARGS_HEAD.match(line):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    in_args = False
    current: str | None = None
    base_indent: int | None = None
    for line in lines:
        if _ARGS_HEAD.match(line):
            in_args, current, base_indent = True, None, None
            continue
        if not in_args:
            continue
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:  # next section
            in_args = False
            continue
        m = _ARG_LINE.match(line)
        if m and (base_indent is None or indent <= base_indent):
            base_indent = indent
            current = m.group(1).lstrip("*")
            params[current] = m.group(2).strip()
        elif current is not None:
            params[current] = (params[current] + " " + line.strip()).strip()
    return " ".join(summary), params


def _is_context(annotation: Any) -> bool:
    return annotation is Context or (isinstance(annotation, str) and annotation.endswith("Context"))


class FunctionTool(Generic[P, R]):
    """A function wrapped as a `graphengine.Tool`; built by `tool`.

    Calling the object calls the function unchanged; `call(ctx, input)` validates `input`
    (a mapping, a pydantic model or None) against `input_model`, runs the function (sync ones
    in a worker thread) and returns its result. Bad input raises `ToolInputError`.
    """

    def __init__(
        self, fn: Callable[P, R], *, name: str | None = None, description: str | None = None
    ) -> None:
        functools.update_wrapper(self, fn)
        self.fn = fn
        """The wrapped function."""
        self.name: str = name or fn.__name__
        """The tool's name (recorded by ``ctx.call``, shown to models)."""
        summary, arg_docs = _parse_doc(inspect.getdoc(fn) or "")
        self.description: str = description if description is not None else summary
        """What the tool does (the docstring's first paragraph unless given)."""
        hints = get_type_hints(fn, include_extras=True)
        sig = inspect.signature(fn)
        self._ctx_param: str | None = None
        self._model_param: str | None = None
        fields: dict[str, Any] = {}
        params = [p for p in sig.parameters.values()]
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"tool {self.name!r}: *args/**kwargs cannot be described to a model")
            ann = hints.get(p.name, Any)
            if _is_context(ann):
                self._ctx_param = p.name
                continue
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[p.name] = (ann, Field(default, description=arg_docs.get(p.name)))
        if len(fields) == 1:
            (only, (ann, _)) = next(iter(fields.items()))
            if inspect.isclass(ann) and issubclass(ann, BaseModel):
                self._model_param = only
        if self._model_param is not None:
            self.input_model: type[BaseModel] = fields[self._model_param][0]
            """The pydantic model arguments are validated against."""
        else:
            self.input_model = create_model(
                f"{self.name}_input", __config__=ConfigDict(extra="forbid"), **fields
            )
        schema = self.input_model.model_json_schema()
        schema.pop("title", None)
        self.spec = ToolSpec(name=self.name, description=self.description, parameters=schema)
        """What a model is told about this tool."""
        ret = hints.get("return", Any)
        self.output_schema: dict[str, Any] | None = (
            None if ret is Any or ret is None else TypeAdapter(ret).json_schema()
        )
        """JSON schema of the result, when the function declares its return type."""
        self._is_async = inspect.iscoroutinefunction(fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"FunctionTool({self.name!r})"

    def validate(self, input: Any) -> BaseModel:
        """`input` (mapping, model or None) as an `input_model` instance; `ToolInputError` otherwise."""
        if isinstance(input, self.input_model):
            return input
        if isinstance(input, BaseModel):
            input = input.model_dump()
        try:
            return self.input_model.model_validate({} if input is None else input)
        except ValidationError as exc:
            problems = [
                f"{'.'.join(str(x) for x in e['loc']) or '<input>'}: {e['msg']}" for e in exc.errors()
            ]
            raise ToolInputError(self.name, problems) from None

    async def call(self, ctx: Context, input: Any) -> Any:
        """Validate `input` and run the function; the result is what ``ctx.call`` records."""
        model = self.validate(input)
        if self._model_param is not None:
            kwargs: dict[str, Any] = {self._model_param: model}
        else:
            kwargs = {k: getattr(model, k) for k in type(model).model_fields}
        if self._ctx_param is not None:
            kwargs[self._ctx_param] = ctx
        fn: Any = self.fn
        if self._is_async:
            return await fn(**kwargs)
        return await asyncio.to_thread(functools.partial(fn, **kwargs))


@overload
def tool(fn: Callable[P, R], /) -> FunctionTool[P, R]: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None
) -> Callable[[Callable[P, R]], FunctionTool[P, R]]: ...


def tool(
    fn: Callable[P, R] | None = None, /, *, name: str | None = None, description: str | None = None
) -> FunctionTool[P, R] | Callable[[Callable[P, R]], FunctionTool[P, R]]:
    """Turn a typed function (sync or async) into a `FunctionTool`; use bare or with ``name=``/``description=``."""
    if fn is not None:
        return FunctionTool(fn, name=name, description=description)

    def wrap(f: Callable[P, R]) -> FunctionTool[P, R]:
        return FunctionTool(f, name=name, description=description)

    return wrap
