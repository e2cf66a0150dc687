"""Builds the optional C accelerators: LM-cut and the A* loop over it (``goap._lmcut``), and grounding
(``goap._ground``).

Everything else is configured in pyproject.toml. The extensions are optional: when one cannot be
built, installation still succeeds and the planner uses its pure-Python code (same results).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "goap._lmcut",
            sources=["src/goap/_lmcut.c", "src/goap/_astar.c", "src/goap/_canon.c"],
            depends=["src/goap/_lmcut.h"],
            extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            optional=True,
        ),
        Extension(
            "goap._ground",
            sources=["src/goap/_ground.c"],
            extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            optional=True,
        ),
    ]
)
