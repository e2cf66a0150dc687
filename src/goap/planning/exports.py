"""Lazy re-exports (PEP 562) for the ``goap`` package and its layers.

A package lists its public names with the module defining each (or a package exporting it); a name
is imported on first use, so importing a package costs nothing and ``python -m goap plan`` loads
only the modules it uses.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``, serving ``exports``
    (public name -> the module defining it)."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # The import statement's path, not importlib.import_module: `python -X importtime` logs
        # only that one, so a module imported here still shows in a start-up profile.
        __import__(module)
        value = getattr(sys.modules[module], name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
