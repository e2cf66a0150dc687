"""Lazy re-exports (PEP 562) for the ``goap`` package and its layers, and their public module.

A package lists its public names with the module defining each (or a package exporting it); a name
is imported on first use, so importing a package costs nothing and ``python -m goap plan`` loads
only the modules it uses.

Every name of a layer (``goap.planning``, ``goap.strategies``, ``goap.runtime``) is also a name of
``goap``, so a class or function served here reports ``__module__ == "goap"`` (tracebacks print
``goap.ModelError``, pickles and ``repr`` name the import users write), set when the name is first
served by any of the packages; ``publish`` does the same for the eagerly imported packages
(``goap.capabilities``, ``goap.selector``). It is the twin of ``graphengine.exports.publish``
(goap's planning layer may not import the engine); see there why annotations are resolved first.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ForwardRef

__all__ = ["lazy_exports", "publish"]

_DEFINED_IN = "_defined_in_module"
"""Where ``publish`` keeps the module an object was written in: the attribute
``graphengine.exports.DEFINED_IN`` names, so graph fingerprints stay those of the written module."""

_PUBLIC = "goap"
"""The module every public class and function of the lazy layers reports."""


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``, serving ``exports``
    (public name -> the module defining it); classes and functions served report module ``goap``."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # The import statement's path, not importlib.import_module: `python -X importtime` logs
        # only that one, so a module imported here still shows in a start-up profile.
        __import__(module)
        value = getattr(sys.modules[module], name)
        if not name.startswith("_"):
            publish(_PUBLIC, {name: value}, [name])
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__


def publish(
    package: str, namespace: Mapping[str, Any], names: Iterable[str], *, within: str | None = None
) -> None:
    """Set ``__module__ = package`` on the classes and functions of ``names`` defined below
    ``within`` (default: ``package``; a module such as ``goap.planning.kit`` re-exports names of
    its siblings); an object already published by an enclosing package is left alone."""
    prefix = (package if within is None else within) + "."
    for name in names:
        obj = namespace.get(name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not str(getattr(obj, "__module__", "")).startswith(prefix):
            continue
        if inspect.isclass(obj):
            _resolve_annotations(obj)
        if not getattr(obj, "_is_protocol", False):
            # (a Protocol's every attribute is a member `isinstance` would demand of implementations)
            setattr(obj, _DEFINED_IN, obj.__module__)
        obj.__module__ = package


def _resolve_annotations(cls: type) -> None:
    """Evaluate ``cls``'s own string annotations in the module that wrote them, so
    ``typing.get_type_hints`` still finds their names once ``__module__`` names the package."""
    own = inspect.get_annotations(cls)
    if not own:
        return
    module_ns = vars(sys.modules[cls.__module__])
    local_ns = dict(vars(cls))
    resolved: dict[str, Any] = {}
    for key, value in own.items():
        text = value.__forward_arg__ if isinstance(value, ForwardRef) else value  # NamedTuple's form
        if isinstance(text, str):
            # A name imported only for type checkers fails: that annotation is left as written.
            with contextlib.suppress(Exception):
                value = eval(text, module_ns, local_ns)  # noqa: S307  # the annotation's own source text
        resolved[key] = value
    cls.__annotations__ = resolved
    # A dataclass keeps each field's annotation again on its `Field`, which pydantic reads.
    for name, f in getattr(cls, "__dataclass_fields__", {}).items():
        if name in resolved and isinstance(f.type, str):
            f.type = resolved[name]
