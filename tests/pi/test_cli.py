"""The `dicetable` command as a process: what it sets up before any subcommand runs."""
from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

import pi.cli

ROOT = Path(__file__).resolve().parents[2]

# Reads the fixture photos as `dicetable detect` does, and prints the minor page faults per
# photo after a warm-up (the kernel handing the process fresh zeroed pages).
FAULTS = """
import resource, sys
from pathlib import Path
if sys.argv[1] == "reuse":
    from pi.cli import reuse_frame_buffers
    assert reuse_frame_buffers()
from vision.cli import detect_line
from vision.detector import Detector
det = Detector(threads=1)
photos = sorted(Path(sys.argv[2]).glob("*.jpg")) * 4
for p in photos[:3]:
    detect_line(det, p)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for p in photos:
    detect_line(det, p)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / len(photos))
"""


def faults_per_photo(mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", FAULTS, mode, str(ROOT / "tests" / "fixtures" / "byler")],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return float(out)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_frame_buffers_are_reused_not_faulted_in_again_for_every_photo():
    # Without the setting this machine faults in about a thousand pages (4 MB) per photo.
    assert faults_per_photo("reuse") < 100


def test_every_dicetable_command_starts_by_keeping_frame_buffers(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(pi.cli, "reuse_frame_buffers", lambda: calls.append("kept"))
    assert pi.cli.main(["odds", "--card", "T01"]) == 0 and "T01" in capsys.readouterr().out
    assert calls == ["kept"]
