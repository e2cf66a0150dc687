"""What the package says about itself: version, licence, project URLs, and what the wheel ships."""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import goap
import graphengine

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        project: dict[str, object] = tomllib.load(f)["project"]
    return project


def test_both_packages_report_the_version_of_pyproject() -> None:
    """`graphengine.__version__` and `goap.__version__` are the one version of pyproject.toml."""
    assert graphengine.__version__ == goap.__version__ == _project()["version"]


def test_version_is_not_a_star_import_name() -> None:
    """`__version__` is an attribute of goap, not one of its exported names."""
    assert "__version__" not in goap.__all__
    assert "__version__" in dir(goap)


def test_the_license_file_is_the_apache_2_text_the_metadata_declares() -> None:
    """LICENSE holds the Apache License 2.0 and pyproject.toml declares it and ships it."""
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    project = _project()
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]


def test_the_wheel_and_sdist_ship_the_license_urls_and_status(tmp_path: Path) -> None:
    """A wheel and an sdist built from a copy of the tree hold LICENSE, the project URLs and the
    development status."""
    tree = tmp_path / "tree"
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in files:
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    out = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(tree),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "-d", str(out)], cwd=tree, check=True, capture_output=True
    )
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(urls)
    assert any(c.startswith("Development Status ::") for c in meta.get_all("Classifier") or [])
    (sdist,) = out.glob("*.tar.gz")
    with tarfile.open(sdist) as t:
        assert any(m.name.endswith("/LICENSE") for m in t.getmembers())
