"""The fixed tables of the capability planner: goal types, search URLs, file aliases and tools.

Tables, not code, so a reviewer can read the whole vocabulary at once and a test can walk it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, TypeAlias

__all__ = [
    "BROWSER_OPEN",
    "FILE_ALIASES",
    "FILE_OPS",
    "FILE_TOOLS",
    "GOAL_TYPES",
    "PLATFORM_ALIASES",
    "SEARCH_URLS",
    "GoalType",
]

GoalType: TypeAlias = Literal[
    "browser_search", "browser_navigate", "app_launch", "file_operation", "system_query"
]
"""The closed set of goal types."""

GOAL_TYPES: tuple[GoalType, ...] = (
    "browser_search",
    "browser_navigate",
    "app_launch",
    "file_operation",
    "system_query",
)
"""Every :data:`GoalType`, in declaration order."""

SEARCH_URLS: Mapping[str, str] = MappingProxyType(
    {
        "amazon": "https://www.amazon.com/s?k={q}",
        "bing": "https://www.bing.com/search?q={q}",
        "duckduckgo": "https://duckduckgo.com/?q={q}",
        "github": "https://github.com/search?q={q}",
        "google": "https://www.google.com/search?q={q}",
        "reddit": "https://www.reddit.com/search/?q={q}",
        "wikipedia": "https://en.wikipedia.org/w/index.php?search={q}",
        "youtube": "https://youtube.com/results?search_query={q}",
    }
)
"""Platform -> search URL template; ``{q}`` receives the URL-encoded query (``quote_plus``)."""

PLATFORM_ALIASES: Mapping[str, str] = MappingProxyType(
    {"ddg": "duckduckgo", "gh": "github", "web": "google", "wiki": "wikipedia", "yt": "youtube"}
)
"""Other spellings of a platform (matched case-insensitively)."""

BROWSER_OPEN = "browser_open"
"""Capability tag (in ``can_achieve`` or ``effects``) of a tool that opens the browser application
itself: its browser calls carry ``app_name`` (the planner's ``browser``)."""

DEFAULT_SEARCH_PLATFORM = "google"
"""Platform of a ``browser_search`` goal that names none."""

FILE_OPS: tuple[str, ...] = ("create", "delete", "move", "rename", "copy", "open", "read", "list", "search")
"""Canonical file operations."""

FILE_ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "create": "create",
        "new": "create",
        "make": "create",
        "touch": "create",
        "mkdir": "create",
        "delete": "delete",
        "remove": "delete",
        "rm": "delete",
        "del": "delete",
        "erase": "delete",
        "trash": "delete",
        "move": "move",
        "mv": "move",
        "rename": "rename",
        "ren": "rename",
        "copy": "copy",
        "cp": "copy",
        "duplicate": "copy",
        "open": "open",
        "show": "open",
        "view": "open",
        "read": "read",
        "cat": "read",
        "list": "list",
        "ls": "list",
        "dir": "list",
        "find": "search",
        "search": "search",
        "locate": "search",
    }
)
"""Spoken or shell spelling of a file operation (lower-cased) -> its canonical name."""

FILE_TOOLS: Mapping[str, str] = MappingProxyType({op: f"fs.{op}" for op in FILE_OPS})
"""Canonical file operation -> name of the standard tool that performs it."""

NEEDS_DESTINATION: frozenset[str] = frozenset({"move", "rename", "copy"})
"""File operations whose goal must carry a destination (in ``Goal.query``)."""

DECOMPOSITIONS: Mapping[str, tuple[str, ...]] = MappingProxyType({"move": ("copy", "delete")})
"""A file operation no tool performs directly, as a sequence of ones that may be available."""

OBJECT_TYPES: Mapping[str, str] = MappingProxyType(
    {"file": "file", "folder": "folder", "directory": "folder", "dir": "folder"}
)
"""Spelling of ``Goal.object_type`` -> canonical object type."""
