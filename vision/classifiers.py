"""Which classifier file a machine reads the dice with: the 8-bit one or the float one.

`models/` ships the crop classifier twice: `dice_classifier.onnx` in 8 bits (QDQ) and
`dice_classifier_float.onnx` in floats. Which one is quicker depends on the CPU (8-bit dot
products on a recent x86, not necessarily on a Pi's ARM cores), so
`Detector(classifier="auto")` times both on batches of crops when it starts (`time_kinds`,
well under a second) and reads with the quicker one. With a `ChoiceFile` (the appliance
keeps one in its data folder) the choice is remembered per machine and model files: the
key is both files' hashes, the CPU, the thread count and onnxruntime's version, so a later
start does not time again, and a new model, CPU or onnxruntime does.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

log = logging.getLogger(__name__)

#: The kinds of classifier, as `Detector(classifier=...)` and `dicetable bench` name them.
KINDS = ("int8", "float")
CHOICES = ("auto", *KINDS)
#: Where the appliance remembers its choice, in the table's data folder.
CHOICE_FILE_NAME = "classifier.json"
#: The timing: `ROUNDS` alternating runs of each kind on a batch of `BATCH` crops (about a
#: frame's dice, read twice as `views=2` does for the unsure ones), after one warm-up run.
BATCH = 12
ROUNDS = 9


@dataclass(frozen=True)
class Choice:
    """The classifier a detector reads with: `kind` ("int8" or "float"), `how` it was
    chosen ("asked", "timed", "remembered", or "only usable file" when the other is missing
    or does not load), and the median ms per batch of `BATCH` crops of each kind when they
    were timed."""

    kind: str
    how: str
    ms: dict[str, float] | None = None

    def describe(self) -> str:
        """One line for the log and the bench: "float (timed: int8 0.91 ms, float 0.62 ms
        per 12 crops)"."""
        if not self.ms:
            return f"{self.kind} ({self.how})"
        times = ", ".join(f"{k} {v:.2f} ms" for k, v in self.ms.items())
        return f"{self.kind} ({self.how}: {times} per {BATCH} crops)"


def check_choice(classifier: str) -> None:
    """ValueError unless `classifier` is "auto", "int8" or "float"."""
    if classifier not in CHOICES:
        raise ValueError(f"classifier is auto, int8 or float, got {classifier!r}")


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def machine_key(paths: dict[str, Path], threads: int) -> str:
    """What a remembered choice holds for: both files' contents, the CPU, the thread count
    and onnxruntime's version."""
    import onnxruntime

    from vision.evaluate import cpu_name

    hashes = " ".join(f"{k}={file_hash(paths[k])}" for k in KINDS)
    return f"{hashes} cpu={cpu_name()} cores={os.cpu_count()} threads={threads} onnxruntime={onnxruntime.__version__}"


def timing_crops(n: int = BATCH, seed: int = 0) -> np.ndarray:
    """A batch of crops as the classifier takes them (N x 3 x 48 x 48 float): grey noise;
    the time of a small CNN does not depend on what the crops show."""
    from vision.detector import CROP

    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (n, 3, CROP, CROP)).astype(np.float32)


def time_kinds(sessions: dict[str, object], crops: np.ndarray | None = None, rounds: int = ROUNDS) -> dict[str, float]:
    """Median ms of each onnxruntime session (kind -> session) on one batch of crops, the
    kinds run in turn so that a busy moment of the machine slows both alike."""
    x = timing_crops() if crops is None else crops
    for s in sessions.values():
        s.run(None, {"crops": x})  # warm-up: the first run allocates
    times: dict[str, list[float]] = {k: [] for k in sessions}
    for _ in range(rounds):
        for k, s in sessions.items():
            t0 = time.perf_counter()
            s.run(None, {"crops": x})
            times[k].append((time.perf_counter() - t0) * 1000)
    return {k: round(float(np.median(v)), 3) for k, v in times.items()}


def quicker(ms: dict[str, float]) -> str:
    """The kind with the lower time; the 8-bit one on a tie (the one the accuracy is
    measured with, models/MODEL.md)."""
    return min(KINDS, key=lambda k: (ms[k], k != "int8"))


class ChoiceFile:
    """A JSON file of remembered choices, one per machine key (`machine_key`). A file that
    cannot be read is as good as none (the kinds are timed again and the file rewritten);
    one that cannot be written is logged and the choice kept for this run only."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("%s: cannot read the remembered classifier choice (%s); timing again", self.path, exc)
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> Choice | None:
        entry = self._read().get(key)
        try:
            kind, ms = entry["kind"], {k: float(entry["ms"][k]) for k in KINDS}
        except (TypeError, KeyError, ValueError):
            return None
        return Choice(kind, "remembered", ms) if kind in KINDS else None

    def put(self, key: str, choice: Choice) -> None:
        data = self._read()
        data[key] = {"kind": choice.kind, "ms": choice.ms, "timed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            tmp.replace(self.path)
        except OSError as exc:
            log.warning("%s: cannot remember the classifier choice (%s); it is timed again at the next start",
                        self.path, exc)


def choose(classifier: str, paths: dict[str, Path], open_session: Callable[[Path], object], threads: int = 1,
           remember: ChoiceFile | None = None,
           timer: Callable[[dict[str, object]], dict[str, float]] | None = None) -> tuple[Choice, object]:
    """The classifier to read with and its session. `paths`: kind -> file; `classifier`:
    "int8" or "float" as asked, or "auto": the quicker on this machine, remembered in
    `remember` when given; `timer` times the sessions (default `time_kinds`). A file that
    is missing, or that this onnxruntime cannot load (logged), is replaced by the other
    (`how` "only usable file"). Raises FileNotFoundError, saying why, when neither file is there
    or neither loads."""
    check_choice(classifier)
    present = [k for k in KINDS if Path(paths[k]).is_file()]
    if not present:
        raise FileNotFoundError(f"{paths['int8']} not found")
    if classifier != "auto":
        present.sort(key=lambda k: k != classifier)  # the one asked for first
    sessions: dict[str, object] = {}
    errors: list[Exception] = []
    for kind in present:
        try:
            sessions[kind] = open_session(paths[kind])
        except Exception as exc:  # onnxruntime's own errors: an opset it lacks, a damaged file
            log.warning("%s cannot be loaded (%s): reading with the other classifier", paths[kind], exc)
            errors.append(exc)
            continue
        if classifier != "auto":
            break
    if not sessions:
        import onnxruntime

        raise FileNotFoundError(f"{paths[present[0]]} cannot be loaded by onnxruntime {onnxruntime.__version__} "
                                f"({errors[0]})")
    if classifier != "auto" and classifier not in present:
        log.warning("%s not found: reading with the %s classifier", paths[classifier], next(iter(sessions)))
    if len(sessions) == 1 and classifier not in sessions:
        ((kind, session),) = sessions.items()
        return Choice(kind, "only usable file"), session
    if classifier != "auto":
        return Choice(classifier, "asked"), sessions[classifier]
    key = machine_key(paths, threads) if remember is not None else None
    choice = remember.get(key) if remember is not None else None
    if choice is None:
        ms = (timer or time_kinds)(sessions)
        choice = Choice(quicker(ms), "timed", {k: ms[k] for k in KINDS})
        if remember is not None:
            remember.put(key, choice)
    return choice, sessions[choice.kind]
