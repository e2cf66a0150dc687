"""Runnable examples of graphengine."""
