"""`goap.__version__`: the version of the `graphengine` distribution, which ships goap.

One source of truth: the `version` of pyproject.toml, which installation writes into the
distribution's metadata, read here with `importlib.metadata` (an installed wheel or sdist). A
source tree is the exception, and there the version is read from the pyproject.toml beside `src/`:
run with `PYTHONPATH=src` it has no metadata at all, and in an editable install the metadata is a
copy taken when it was installed, stale after a version bump, or another worktree's in a shared
venv. Either way the number comes from that one line of pyproject.toml; nothing else holds it.
`graphengine._version` is its twin for `graphengine` (both packages ship in the one distribution);
this one reads the same line itself because `goap` must not load the engine (pydantic, the
stores) to learn its version: `python -m goap --version` and `plan` stay standard-library only.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

__all__ = ["__version__", "distribution_version"]

_DISTRIBUTION = "graphengine"


def distribution_version(package_file: str) -> str:
    """The version of the distribution holding the package whose `__init__.py` is `package_file`.

    Prefers the pyproject.toml of a source checkout the package lives in (so a checkout beside an
    older installed copy reports its own version), else the installed metadata; "0+unknown" when
    neither is there (a copied tree)."""
    pyproject = Path(package_file).resolve().parents[2] / "pyproject.toml"
    if pyproject.is_file():
        with pyproject.open("rb") as f:
            project = tomllib.load(f).get("project", {})
        if project.get("name") == _DISTRIBUTION and isinstance(project.get("version"), str):
            return str(project["version"])
    from importlib import metadata  # only installed copies pay for it

    try:
        return metadata.version(_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"


__version__ = distribution_version(str(Path(__file__).with_name("__init__.py")))
"""The version of goap (its distribution, graphengine), e.g. "0.1.0"."""
