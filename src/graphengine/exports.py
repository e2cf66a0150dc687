"""Give public names their public module: `graphengine.Engine.__module__ == "graphengine"`.

A class or function is written in an implementation module (`graphengine.engine`,
`graphengine.store.sqlite`) and used through its package; tracebacks, `repr`, pickles and
documentation should name the package a user imports it from, so each package `__init__` calls
`publish` for its `__all__`. Pickling keeps working because the package has the name.

Changing a class's `__module__` changes where `typing.get_type_hints` looks up its string
annotations (`from __future__ import annotations`): in the package, which lacks the private
module's helpers (`Any`, `Mapping`, the `S` TypeVar). So before the move each class's own
annotations are evaluated where they were written; an annotation naming something imported only
for type checkers stays a string, as unresolvable as it was before.

It imports the standard library only, so the store and emit packages may use it (a public module,
so each package's `__init__` reads no private part of the core).
`goap.planning.exports.publish` is its twin for goap, which may not import the engine.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Iterable, Mapping
from typing import Any, ForwardRef

__all__ = ["DEFINED_IN", "defined_in", "publish"]

DEFINED_IN = "_defined_in_module"
"""The attribute holding the module a published class or function was written in (goap's
`publish` sets the same one, so graphs of goap's public classes keep their fingerprint too)."""


def publish(package: str, namespace: Mapping[str, Any], names: Iterable[str]) -> None:
    """Set `__module__ = package` on the classes and functions of `names` defined below `package`.

    Names defined elsewhere (re-exported from another package) and objects already published by
    an enclosing package are left alone, so a name exported at several levels reports the outermost.
    """
    prefix = package + "."
    for name in names:
        obj = namespace.get(name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not str(getattr(obj, "__module__", "")).startswith(prefix):
            continue
        if inspect.isclass(obj):
            _resolve_annotations(obj)
        # A graph's fingerprint names the code of its nodes (`graph._code_identity`): it keeps the
        # module the code was written in, so graphs of stored runs keep their fingerprint.
        if not getattr(obj, "_is_protocol", False):
            # (a Protocol's every attribute is a member `isinstance` would demand of implementations)
            setattr(obj, DEFINED_IN, obj.__module__)
        obj.__module__ = package


def defined_in(obj: Any) -> str:
    """The module `obj` was written in: its `__module__`, or the one it had before `publish`."""
    own = getattr(obj, "__dict__", None)
    written = own.get(DEFINED_IN) if own is not None else None  # never a subclass's inherited one
    return str(written if written is not None else getattr(obj, "__module__", "?"))


def _resolve_annotations(cls: type) -> None:
    """Evaluate `cls`'s own string annotations in the module that wrote them (as `get_type_hints` would)."""
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
