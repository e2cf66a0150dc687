"""What the package says about itself (version, licence, status) and what its sdist and wheel ship and do."""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import cast

import pytest

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


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An sdist built from a copy of the tree (tracked and new files, as a release would take),
    and a wheel built from that sdist with the C accelerators required, both in one folder."""
    tmp = tmp_path_factory.mktemp("dist")
    tree = tmp / "tree"
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
    out = tmp / "out"
    subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "-d", str(out)], cwd=tree, check=True, capture_output=True
    )
    (sdist,) = out.glob("*.tar.gz")
    # from the sdist, not the tree: a file the sdist forgets (a C header) fails here, as for a user
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(sdist),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        env={**os.environ, "GOAP_REQUIRE_C_EXTENSIONS": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_wheel_and_sdist_ship_the_license_and_status_and_no_invented_urls(dist: Path) -> None:
    """The wheel and the sdist hold LICENSE and the development status; the metadata names no
    project URL (the project has no public home yet: no address is made up)."""
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert meta.get_all("Project-URL") is None and meta.get("Home-page") is None
    assert "urls" not in _project()
    assert any(c.startswith("Development Status ::") for c in meta.get_all("Classifier") or [])
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as t:
        assert any(m.name.endswith("/LICENSE") for m in t.getmembers())


def test_the_wheel_carries_both_c_accelerators_for_this_platform(dist: Path) -> None:
    """The wheel built from the sdist holds goap.planning's two compiled extensions, for this
    interpreter, and is tagged for this platform (not as a pure-Python wheel)."""
    (wheel,) = dist.glob("*.whl")
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert f"-{tag}-{tag}-" in wheel.name and not wheel.name.endswith("-none-any.whl"), wheel.name
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert {f"goap/planning/_lmcut{suffix}", f"goap/planning/_ground{suffix}"} <= names


def test_the_wheel_is_manylinux_compatible(dist: Path) -> None:
    """auditwheel finds the wheel consistent with a manylinux tag no newer than manylinux_2_28,
    the image [tool.cibuildwheel] builds in: its C code needs nothing beyond an old glibc."""
    (wheel,) = dist.glob("*.whl")
    done = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.search(r'consistent with the\s+following platform tag:\s+"manylinux_2_(\d+)_', done.stdout)
    assert found is not None, done.stdout
    assert int(found.group(1)) <= 28, done.stdout


def test_the_wheel_installs_in_a_fresh_venv_and_plans_in_c(dist: Path, tmp_path: Path) -> None:
    """In a new venv holding nothing but the wheel, goap imports from the installation, both C
    extensions load, and `python -m goap plan --json` answers with ``"search": "c"``
    (tests/wheel_check.py, the check cibuildwheel runs on every wheel)."""
    (wheel,) = dist.glob("*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # no PYTHONPATH, so neither the source tree nor a test's extra paths leak into the venv
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GOAP_PURE_PYTHON")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        env=env,
    )
    problem = ROOT / "tests" / "data" / "problems" / "gripper-4.json"
    done = subprocess.run(
        # -I: neither the script's folder (tests/, with its own goap/) nor PYTHONPATH on sys.path
        [str(python), "-I", str(ROOT / "tests" / "wheel_check.py"), str(problem)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "search in C" in done.stdout and "wheel check passed" in done.stdout


def test_the_cibuildwheel_configuration_matches_the_package() -> None:
    """[tool.cibuildwheel] builds every CPython the classifiers name, requires the C extensions,
    and tests each wheel with tests/wheel_check.py on a problem file that exists."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        cibw = tomllib.load(f)["tool"]["cibuildwheel"]
    classifiers = cast(list[str], _project()["classifiers"])
    versions = [
        c.rsplit(" ", 1)[1] for c in classifiers if c.startswith("Programming Language :: Python :: 3.")
    ]
    assert cibw["build"].split() == [f"cp{v.replace('.', '')}-*" for v in versions]
    assert cibw["environment"] == {"GOAP_REQUIRE_C_EXTENSIONS": "1"}
    cmd = cibw["test-command"].split()
    assert cmd[:2] == ["python", "-I"] and "--full" in cmd
    for arg in cmd[2:4]:
        assert (ROOT / arg.replace("{project}/", "")).is_file(), arg
    assert "GOAP_REQUIRE_C_EXTENSIONS" in (ROOT / "setup.py").read_text()
