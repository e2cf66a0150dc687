"""Benchmarks for graphengine: ``python -m bench planner`` and ``python -m bench engine``.

Not part of the installed package; run from the repository root.
"""
