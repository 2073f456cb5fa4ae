"""The runtime never loads the training code: importing every module of `pi/`, `hardware/`
and `vision/` (outside `vision/training/`) leaves `vision.training` and torch unloaded, so
the appliance runs without the `train` extra."""
from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
RUNTIME_PACKAGES = ("pi", "hardware", "vision")


def runtime_modules() -> list[str]:
    """Every module of the runtime packages, found on disk (new modules are checked too)."""
    names = []
    for package in RUNTIME_PACKAGES:
        names.append(package)
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            if not info.name.startswith("vision.training"):
                names.append(info.name)
    return sorted(names)


def loaded_after_importing(modules: list[str]) -> list[str]:
    """The modules loaded in a fresh interpreter after importing `modules`."""
    code = ("import importlib, json, sys\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "print(json.dumps(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_runtime_loads_neither_the_training_code_nor_torch():
    modules = runtime_modules()
    assert {"pi.appliance", "pi.cli", "vision.detector", "vision.camera", "vision.cli", "vision.synth"} <= set(modules)
    loaded = loaded_after_importing(modules)
    assert "vision.detector" in loaded and "pi.cli" in loaded  # they were imported, in this very process
    offending = [m for m in loaded if m.startswith("vision.training") or m == "torch" or m.startswith("torch.")]
    assert offending == [], f"the runtime loads training code: {offending[:5]}"


def test_the_check_sees_a_runtime_module_that_imports_training():
    """The same check fails where a runtime module does load the training code."""
    loaded = loaded_after_importing(["vision.synth", "vision.training.scenes"])
    assert "vision.training.scenes" in loaded and "torch" not in loaded
