"""Builds the optional C accelerator of the LM-cut heuristic (``goap._lmcut``).

Everything else is configured in pyproject.toml. The extension is optional: when it cannot be
built, installation still succeeds and the planner uses its pure-Python LM-cut (same results).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "goap._lmcut",
            sources=["goap/_lmcut.c"],
            extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            optional=True,
        )
    ]
)
