"""Main CLI entry point.

Registers all subcommands under the ``langgoap`` group.

Ported from ``langgoap.cli.main`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

import click

from goap.compat import __version__
from goap.compat.cli.actions_cmd import actions
from goap.compat.cli.deploy_init_cmd import deploy_init
from goap.compat.cli.explain_cmd import explain
from goap.compat.cli.plan_cmd import plan
from goap.compat.cli.visualize_cmd import visualize


@click.group()
@click.version_option(version=__version__, prog_name="langgoap")
def cli() -> None:
    """LangGOAP — Goal-Oriented Action Planning for LangGraph."""


cli.add_command(plan)
cli.add_command(visualize)
cli.add_command(explain)
cli.add_command(actions)
cli.add_command(deploy_init)


__all__ = ["cli"]
