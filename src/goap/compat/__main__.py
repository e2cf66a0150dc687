"""``python -m goap.compat``: LangGOAP's command line."""

from goap.compat.cli.main import main

main()
