"""Packaging: the version has one source, the changelog and the licence match it, and the Pi's
pinned set covers every runtime dependency (and is what .venv-pi really runs)."""
from __future__ import annotations

import os
import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

import pi
from pi.cli import main

ROOT = Path(__file__).resolve().parents[1]
PI_SET = ROOT / "constraints" / "pi-bookworm.txt"


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def pins() -> dict[str, str]:
    """The constraints file's pins, by normalised name."""
    found = {}
    for line in PI_SET.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            found[_normal(name)] = version
    return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3])


def test_dicetable_version_prints_the_release(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"dicetable {pi.__version__}\n"


def test_the_version_has_one_source_and_the_changelog_leads_with_it():
    project = pyproject()
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pi.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", pi.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## (\S+)", changelog, re.MULTILINE)
    assert first and first.group(1) == pi.__version__, "CHANGELOG.md needs a section for this release"


def test_the_licence_file_is_the_declared_mit():
    assert pyproject()["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_the_pi_set_pins_every_runtime_dependency_within_its_floor():
    pinned = pins()
    for requirement in pyproject()["project"]["dependencies"]:
        name, floor = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", requirement).groups()
        assert _normal(name) in pinned, f"{name} is not pinned in {PI_SET.name}"
        assert _version(pinned[_normal(name)]) >= _version(floor), requirement
    # apt's numpy on Bookworm, which picamera2 is built against; the classifier's opset floor.
    assert pinned["numpy"] == "1.24.2"
    assert _version(pinned["onnxruntime"]) >= (1, 18)


@pytest.mark.skipif(not os.environ.get("DICETABLE_PI_SET"),
                    reason="only in the Pi set's venv (make test sets DICETABLE_PI_SET there)")
def test_this_venv_runs_exactly_the_pi_set():
    wrong = {}
    for name, version in pins().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # a pin for a package this install does not need
        if installed != version:
            wrong[name] = (installed, version)
    assert not wrong, f"installed versions that are not the pins (installed, pinned): {wrong}"
    for runtime in ("numpy", "opencv-python-headless", "onnxruntime", "flask", "gpiozero"):
        assert metadata.version(runtime) == pins()[runtime]
