"""LangGOAP's module path of the search-event buffer (goap.runtime's)."""

from goap.runtime import SearchEventBuffer

__all__ = ["SearchEventBuffer"]
