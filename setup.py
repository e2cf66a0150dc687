"""Builds the optional C accelerators: LM-cut and the A* loop over it (``goap.planning._lmcut``), and grounding
(``goap.planning._ground``).

Everything else is configured in pyproject.toml. The extensions are optional: when one cannot be
built, installation still succeeds and the planner uses its pure-Python code (same results).
A wheel meant for others must carry them: with ``GOAP_REQUIRE_C_EXTENSIONS=1`` (set for
cibuildwheel in pyproject.toml) a compile failure fails the build instead of being skipped.
"""

import os

from setuptools import Extension, setup

OPTIONAL = os.environ.get("GOAP_REQUIRE_C_EXTENSIONS", "") != "1"
FLAGS = ["-O2", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter"]

setup(
    ext_modules=[
        Extension(
            "goap.planning._lmcut",
            sources=[
                "src/goap/planning/_lmcut.c",
                "src/goap/planning/_astar.c",
                "src/goap/planning/_canon.c",
            ],
            depends=["src/goap/planning/_lmcut.h"],
            extra_compile_args=FLAGS,
            optional=OPTIONAL,
        ),
        Extension(
            "goap.planning._ground",
            sources=["src/goap/planning/_ground.c"],
            extra_compile_args=FLAGS,
            optional=OPTIONAL,
        ),
    ]
)
