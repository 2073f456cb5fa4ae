"""Subcommands: detect, evaluate, bench, calibrate, teach.

Heavy imports (onnxruntime through vision.detector) happen inside the handlers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

DEFAULT_COLOURS_NAME = "colours.json"
DEFAULT_FACES_NAME = "faces.npz"


def default_colours_path() -> Path:
    """Where `calibrate` saves the table's colours and `detect` finds them: the table's
    data folder ($DICETABLE_DATA, else ~/.local/share/dicetable, as the appliance's
    default data_dir), file colours.json."""
    return Path(os.environ.get("DICETABLE_DATA") or "~/.local/share/dicetable").expanduser() / DEFAULT_COLOURS_NAME


def default_faces_path() -> Path:
    """Where `teach` saves the table's own faces, beside the colour calibration."""
    return default_colours_path().with_name(DEFAULT_FACES_NAME)


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _split_period(text: str) -> int:
    """argparse type: every Nth photo is validation, N >= 2 (1 would leave no training split)."""
    value = positive_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError("every photo would be validation; use 2 or more")
    return value


#: More inference threads than this only slow a photo down (and a thousand stall it).
MAX_THREADS = 64


def thread_count(text: str) -> int:
    """argparse type: inference threads, 1 to ``MAX_THREADS``."""
    value = positive_int(text)
    if value > MAX_THREADS:
        raise argparse.ArgumentTypeError(f"{value} threads is more than any Pi or laptop has cores; "
                                         f"use 1 to {MAX_THREADS}")
    return value


def register(sub) -> None:
    """Add this module's subcommands to the `dicetable` parser."""
    p = sub.add_parser("detect", help="read the dice in photos: one JSON line per image",
                       description="Find the dice in images (files or folders) and read their top faces.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="image files or folders of images")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", dest="fmt", action="store_const", const="json",
                     help="one JSON line per image (the default)")
    fmt.add_argument("--text", dest="fmt", action="store_const", const="text", help="one readable line per image")
    p.set_defaults(fmt="json")
    _common(p)
    p.add_argument("--colours", metavar="PATH",
                   help="a colour table saved by `dicetable calibrate`, or `default` for the default "
                        "palette (default: the saved calibration when there is one, see `calibrate`)")
    p.add_argument("--all", action="store_true",
                   help="also print the candidates the table does not act on (confidence under the "
                        "decision threshold, 0.3, and not plainly a die)")
    _faces_option(p)
    p.set_defaults(handler=detect_command)

    p = sub.add_parser("evaluate", help="score the model on labelled photo folders",
                       description="Detect the dice of labelled folders (images + annotations.json) and print "
                                   "the shared scorer's metrics as one JSON line per folder.")
    p.add_argument("folders", nargs="+", metavar="FOLDER")
    p.add_argument("--split", choices=["all", "train", "val"], default="all",
                   help="which images: all, or the train/validation split (sorted names, every "
                        "VAL_EVERY-th is validation); default all")
    p.add_argument("--val-every", type=_split_period, default=5,
                   help="validation split period, 2 or more: every Nth photo (default 5)")
    p.add_argument("--detections", metavar="FILE", help="also write the detections (JSON lines) here")
    _common(p)
    _faces_option(p)
    p.set_defaults(handler=evaluate_command)

    p = sub.add_parser("teach", help="learn this table's own dice (a logo for a 6, numerals, its d10 and d20) "
                                     "from labelled photos",
                       description="Read a labelled folder (images + annotations.json, the shared format: "
                                   "[x0, y0, x1, y1, face] for a d6, [x0, y0, x1, y1, face, 10 or 20] for a d10 "
                                   "or a d20) of this table's dice: the faces the model reads wrong or is unsure of "
                                   "(a logo instead of pips, numerals in a font of their own) are learnt, and "
                                   "saved where `detect`, `evaluate` and the appliance use them. A few photos are "
                                   "enough; every die needs its label, and each face of each kind of die taught "
                                   "should be shown once: the faces no photo showed are named.")
    p.add_argument("folder", metavar="FOLDER")
    _saved_where(p, "faces", "faces.npz beside the colour calibration, $DICETABLE_DATA or ~/.local/share/dicetable")
    p.add_argument("--threads", type=thread_count, default=1, help="inference threads (default 1)")
    p.add_argument("--models", metavar="DIR", help="folder with the ONNX models (default: models/)")
    p.set_defaults(handler=teach_command)

    p = sub.add_parser("bench", help="time the dice reading on 640x480 frames with 10 dice, or on your photos",
                       description="Median and 90th percentile ms per 640x480 frame with 10 rendered dice, "
                                   "end to end after decoding, with 1 and 4 threads, the 8-bit and the float "
                                   "classifier side by side, and which of them the appliance's `auto` picks on "
                                   "this machine; peak memory. With --photos: ms per photo of `detect --json` on "
                                   "those photos, file reading and decoding included.")
    p.add_argument("--photos", nargs="+", metavar="PATH",
                   help="image files or folders to time instead of the rendered frames")
    p.add_argument("--runs", type=positive_int,
                   help="timed runs per thread count (default 50), or with --photos passes over them (default 5)")
    p.add_argument("--threads", type=thread_count, nargs="+",
                   help="thread counts (default 1 4, or with --photos 1)")
    p.add_argument("--classifier", choices=["int8", "float"],
                   help="time this classifier only (default: both, side by side)")
    p.add_argument("--models", metavar="DIR", help="folder with the ONNX models (default: models/)")
    _views(p)
    p.set_defaults(handler=bench_command)

    p = sub.add_parser("calibrate", help="learn this table's die colours from one photo per colour",
                       description="For each colour, one photo of a throw of that colour's dice: the dice are "
                                   "found and their colours learnt; the table is saved for `detect --colours`.")
    p.add_argument("--colour", nargs=2, action="append", metavar=("NAME", "IMAGE"), required=True,
                   help="a colour name and a photo of dice of that colour; repeat per colour")
    _saved_where(p, "table", "colours.json in the table's data folder, $DICETABLE_DATA or "
                 "~/.local/share/dicetable, where `detect` and the appliance find it")
    p.add_argument("--models", metavar="DIR", help="folder with the ONNX models (default: models/)")
    p.set_defaults(handler=calibrate_command)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threads", type=thread_count, default=1, help="inference threads (default 1)")
    p.add_argument("--models", metavar="DIR", help="folder with the ONNX models (default: models/)")
    _views(p)


def _faces_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--faces", metavar="PATH",
                   help="faces taught by `dicetable teach`, or `none` (default: the saved ones when there "
                        "are some)")


def _face_book(command: str, name: str | None):
    """The FaceBook `--faces` names (None: none); raises ValueError for a file that cannot
    be used. Without `--faces`, the saved one when there is one."""
    from vision.faces import FaceBook

    if name == "none":
        return None
    if name:
        return FaceBook.load(name)
    saved = default_faces_path()
    if not saved.is_file():
        return None
    try:
        return FaceBook.load(saved)
    except ValueError as exc:
        print(f"dicetable {command}: {exc}; reading without taught faces", file=sys.stderr)
        return None


def _views(p: argparse.ArgumentParser) -> None:
    p.add_argument("--views", type=int, choices=[1, 2, 4], default=2,
                   help="read each die as it is and turned by quarter turns, averaged (default 2)")


def image_paths(paths: list[str]) -> tuple[list[Path], list[str]]:
    """Images named by `paths` (files, or folders whose images are taken in name order),
    and error messages for paths that are neither."""
    from vision.camera import IMAGE_SUFFIXES

    out: list[Path] = []
    errors: list[str] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            # Hidden files (macOS "._IMG_1.JPG" resource forks and the like) are no photos.
            found = sorted(f for f in p.iterdir()
                           if f.is_file() and not f.name.startswith(".") and f.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                errors.append(f"{raw}: no images in this folder ({', '.join(IMAGE_SUFFIXES)})")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            errors.append(f"{raw}: no such file or folder")
    return out, errors


def read_image(path):
    """The image at `path` as BGR uint8, its EXIF orientation applied, or None when it is
    not a file or cannot be decoded (`vision.photos.read_photo`)."""
    from vision.photos import read_photo

    return read_photo(path) if Path(path).is_file() else None


def dice_json(raw) -> dict:
    """One die as `detect --json` prints it: an unsure face (0 inside the library) is
    reported as its most likely face, with its lower confidence."""
    return {
        "box": [round(float(v), 1) for v in raw.box],
        "face": int(raw.best_face),
        "colour": raw.colour,
        "confidence": round(float(raw.confidence), 4),
        "sides": int(raw.sides),
    }


def _detector(command: str, model_dir, **options):
    """The Detector (`options` as its own: threads, colours, views), or None after saying
    on stderr that the models are missing."""
    from vision.detector import Detector, ModelMissingError

    try:
        return Detector(model_dir=model_dir, **options)
    except ModelMissingError as exc:
        print(f"dicetable {command}: {exc}", file=sys.stderr)
        return None


def _colour_table(name: str | None):
    """The table `detect --colours` names: a file, "default" (None: the default palette),
    or, when not given, the saved calibration if there is one. Raises ValueError for a file
    that cannot be used."""
    from vision.colours import ColourTable

    if name == "default":
        return None
    if name:
        return ColourTable.load(name)
    saved = default_colours_path()
    if not saved.is_file():
        return None
    try:
        return ColourTable.load(saved)
    except ValueError as exc:
        print(f"dicetable detect: {exc}; naming colours with the default palette", file=sys.stderr)
        return None


def _totals(dice: list[dict]) -> str:
    """The sum of the faces of each kind of die: "total 17" for d6 alone, else
    "totals d6 12, d10 7" (a d10's face and a d6's pips do not add up)."""
    sums: dict[int, int] = {}
    for d in dice:
        sums[d["sides"]] = sums.get(d["sides"], 0) + d["face"]
    if set(sums) <= {6}:
        return f"total {sums.get(6, 0)}"
    return "totals " + ", ".join(f"d{k} {v}" for k, v in sorted(sums.items()))


def _photo(path):
    """The photo at `path` as the detector reads it. Raises ValueError, saying why, for a
    file that is no photo the detector can read (not an image, too small)."""
    from vision.detector import as_bgr

    img = read_image(path)
    if img is None:
        raise ValueError(f"cannot read {path} as an image")
    try:
        return as_bgr(img)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def detect_line(det, path: Path, everything: bool = False) -> dict:
    """What `detect --json` prints for the photo at `path` (before JSON). Raises ValueError
    as `_photo` does."""
    return {"image": path.name, "dice": [dice_json(r) for r in det.detect_raw(_photo(path), everything=everything)]}


def detect_command(args) -> int:
    try:
        colours = _colour_table(args.colours)
        faces = _face_book("detect", args.faces)
    except ValueError as exc:
        print(f"dicetable detect: {exc}", file=sys.stderr)
        return 2
    det = _detector("detect", args.models, threads=args.threads, colours=colours, views=args.views, faces=faces)
    if det is None:
        return 2
    files, errors = image_paths(args.paths)
    for e in errors:
        print(f"dicetable detect: {e}", file=sys.stderr)
    failed = bool(errors)
    for f in files:
        try:
            line = detect_line(det, f, everything=args.all)
        except ValueError as exc:
            print(f"dicetable detect: {exc}; skipped", file=sys.stderr)
            failed = True
            continue
        dice = line["dice"]
        if args.fmt == "json":
            print(json.dumps(line), flush=True)
        else:
            faces = " ".join(f"{d['face']}{'' if d['sides'] == 6 else '/d' + str(d['sides'])}"
                             f"{'(' + d['colour'] + ')' if d['colour'] else ''}" for d in dice)
            print(f"{f.name}: {len(dice)} dice, {_totals(dice)}: {faces}", flush=True)
    return 1 if failed else 0


def evaluate_command(args) -> int:
    from vision import evaluate

    try:
        faces = _face_book("evaluate", args.faces)
    except ValueError as exc:
        print(f"dicetable evaluate: {exc}", file=sys.stderr)
        return 2
    det = _detector("evaluate", args.models, threads=args.threads, colours=False, views=args.views, faces=faces)
    if det is None:
        return 2
    status = 0
    try:
        out = open(args.detections, "w") if args.detections else None
    except OSError as exc:
        print(f"dicetable evaluate: cannot write the detections to {args.detections}: {exc}", file=sys.stderr)
        return 2
    try:
        for folder in args.folders:
            try:
                gt = evaluate.select(evaluate.load_annotations(folder), args.split, args.val_every)
            except (OSError, ValueError) as exc:
                print(f"dicetable evaluate: {exc}", file=sys.stderr)
                status = 1
                continue
            dets: dict = {}
            for name in sorted(gt):
                try:
                    line = detect_line(det, Path(folder) / name)
                except ValueError as exc:
                    print(f"dicetable evaluate: {exc}; counted as no output", file=sys.stderr)
                    status = 1
                    continue
                dets[name] = line["dice"]
                if out:
                    out.write(json.dumps({"image": name, "dice": line["dice"]}) + "\n")  # the labels' own key
            result = {"folder": str(folder), "split": args.split, **evaluate.score(gt, dets)}
            print(json.dumps(result), flush=True)
    finally:
        if out:
            out.close()
    return status


def bench_command(args) -> int:
    try:
        report = bench_report(args)
    except (FileNotFoundError, ValueError) as exc:
        print(f"dicetable bench: {exc}", file=sys.stderr)
        return 2
    if report is None:
        return 2
    print(format_bench(report))
    print(json.dumps(report))
    return 0


def bench_report(args) -> dict | None:
    """The figures `dicetable bench` prints for its arguments; None after saying on stderr
    why there is nothing to time (photos that are not there). Raises FileNotFoundError
    (models missing) and ValueError as the Detector does."""
    kinds = (args.classifier,) if args.classifier else None
    if args.photos:
        files, errors = image_paths(args.photos)
        if errors or not files:
            for e in errors or ["no photos given"]:
                print(f"dicetable bench: {e}", file=sys.stderr)
            return None
        return run_photo_bench(files, model_dir=args.models, passes=args.runs or 5, threads=args.threads or [1],
                               views=args.views, kinds=kinds)
    return run_bench(model_dir=args.models, runs=args.runs or 50, threads=args.threads or [1, 4], views=args.views,
                     kinds=kinds)


def bench_frames(n_frames: int = 8, n_dice: int = 10, seed: int = 0):
    """640x480 frames with `n_dice` dice of the default palette, rendered by vision.synth."""
    import numpy as np

    from vision import synth
    from vision.colours import DEFAULT_PALETTE

    rng = np.random.default_rng(seed)
    names = list(DEFAULT_PALETTE)
    frames = []
    for _ in range(n_frames):
        places = synth.layout(n_dice, rng, (640, 480), 48)
        dice = [(names[int(rng.integers(0, len(names)))], int(rng.integers(1, 7)), x, y, a) for x, y, a in places]
        frames.append(synth.render_table(dice, rng, (640, 480), 48)[0])
    return frames


def _bench_detectors(model_dir, threads: int, views: int, kinds) -> tuple[dict, list[str]]:
    """A Detector per classifier kind to time (`kinds`, default both), and the kinds whose
    file is missing (not timed: the Detector would read with the other)."""
    from vision.classifiers import KINDS
    from vision.detector import Detector

    dets, missing = {}, []
    for kind in kinds or KINDS:
        det = Detector(model_dir=model_dir, threads=threads, views=views, classifier=kind)
        if det.classifier.kind == kind:
            dets[kind] = det
        else:
            missing.append(kind)
    return dets, missing


def _auto_choice(model_dir, threads: int) -> dict:
    """What `Detector(classifier="auto")` picks on this machine with `threads` threads,
    timed now (as the appliance's first start does)."""
    import dataclasses

    from vision.detector import Detector

    det = Detector(model_dir=model_dir, threads=threads, colours=False, classifier="auto")
    return {"threads": threads, **dataclasses.asdict(det.classifier)}


def run_bench(model_dir=None, runs: int = 50, threads=(1, 4), warmup: int = 5, views: int = 2, kinds=None) -> dict:
    """Median and p90 ms of Detector.detect() per frame for each thread count and
    classifier kind (`kinds`, default both; their runs taken in turn, so that a busy moment
    of the machine slows both alike), and what `auto` picks."""
    import time

    frames = bench_frames()
    report: dict = {"frame": "640x480, 10 dice (vision.synth.render_table)", "runs": runs, "views": views,
                    "results": [], "auto": []}
    for n in threads:
        dets, report["missing"] = _bench_detectors(model_dir, n, views, kinds)
        for det in dets.values():
            for i in range(warmup):
                det.detect(frames[i % len(frames)])
        times: dict = {k: [] for k in dets}
        found: dict = {k: [] for k in dets}
        for i in range(runs):
            f = frames[i % len(frames)]
            for kind, det in dets.items():
                t0 = time.perf_counter()
                dice = det.detect(f)
                times[kind].append((time.perf_counter() - t0) * 1000)
                found[kind].append(len(dice))
        for kind in dets:
            report["results"].append(_timing(n, times[kind], times[kind], found[kind], kind))
        report["auto"].append(_auto_choice(model_dir, n))
    return _with_machine(report)


def run_photo_bench(files: list[Path], model_dir=None, passes: int = 5, threads=(1,), views: int = 2,
                    kinds=None) -> dict:
    """`dicetable detect --json`'s own work on photo files, per photo: reading and decoding
    the file, the dice with faces and colours, the JSON line (not the process's start). For
    each thread count and classifier kind (passes taken in turn): the median over `passes`
    passes of the mean ms a photo, and the 90th percentile of single photos."""
    import time

    report: dict = {"photos": len(files), "passes": passes, "views": views, "results": [], "auto": []}
    for n in threads:
        dets, report["missing"] = _bench_detectors(model_dir, n, views, kinds)
        for det in dets.values():
            for f in files[:5]:
                detect_line(det, f)  # warm-up
        means: dict = {k: [] for k in dets}
        singles: dict = {k: [] for k in dets}
        found: dict = {k: [] for k in dets}
        for _ in range(passes):
            for kind, det in dets.items():
                start = time.perf_counter()
                for f in files:
                    t0 = time.perf_counter()
                    line = detect_line(det, f)
                    json.dumps(line)
                    singles[kind].append((time.perf_counter() - t0) * 1000)
                    found[kind].append(len(line["dice"]))
                means[kind].append((time.perf_counter() - start) * 1000 / len(files))
        for kind in dets:
            report["results"].append(_timing(n, means[kind], singles[kind], found[kind], kind))
        report["auto"].append(_auto_choice(model_dir, n))
    return _with_machine(report)


def _timing(threads: int, runs: list[float], singles: list[float], found: list[int], classifier: str) -> dict:
    """One line of a bench report (a thread count and a classifier): the median of `runs`
    and the 90th percentile of `singles` (ms), and the mean number of dice found."""
    import numpy as np

    return {"threads": threads, "classifier": classifier, "median_ms": round(float(np.median(runs)), 2),
            "p90_ms": round(float(np.percentile(singles, 90)), 2), "mean_dice_found": round(float(np.mean(found)), 2)}


def machine() -> dict:
    """The machine and the versions that its figures depend on."""
    import os
    import platform

    import cv2
    import numpy as np
    import onnxruntime

    from vision.evaluate import cpu_name

    return {"cpu": cpu_name(), "cores": os.cpu_count(), "os": f"{platform.system()} {platform.release()}",
            "arch": platform.machine(), "python": platform.python_version(), "numpy": np.__version__,
            "opencv": cv2.__version__, "onnxruntime": onnxruntime.__version__}


def _with_machine(report: dict) -> dict:
    """`report` with this process's peak memory and the machine it ran on."""
    import resource

    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    report["machine"] = machine()
    return report


def format_bench(report: dict) -> str:
    m = report["machine"]
    if "photos" in report:
        what, each = (f"{report['photos']} photo(s) read from file and read as `detect --json` does, "
                      f"{report['passes']} timed passes over them"), "photo"
    else:
        what, each = f"frame: {report['frame']}, {report['runs']} timed runs per thread count", "frame"
    lines = [f"machine: {m['cpu']}, {m['cores']} cores, {m['os']} {m['arch']}; python {m['python']}, "
             f"numpy {m['numpy']}, opencv {m['opencv']}, onnxruntime {m['onnxruntime']}",
             f"{what}, {report['views']} view(s) per die"]
    for r in report["results"]:
        over = f" (more threads than the {m['cores']} cores)" if m["cores"] and r["threads"] > m["cores"] else ""
        lines.append(f"threads {r['threads']}, {r['classifier']:>5} classifier: median {r['median_ms']} ms, "
                     f"p90 {r['p90_ms']} ms, {r['mean_dice_found']} dice found per {each}{over}")
    for kind in report.get("missing", []):
        lines.append(f"{kind} classifier: its file is not in the models folder; not timed")
    for a in report.get("auto", []):
        ms = ", ".join(f"{k} {v:.2f} ms" for k, v in (a["ms"] or {}).items())
        lines.append(f"auto picks the {a['kind']} classifier with {a['threads']} thread(s) "
                     f"({a['how']}{': ' + ms + ' per batch of crops' if ms else ''})")
    lines.append(f"peak memory (max RSS): {report['peak_rss_mb']} MB")
    return "\n".join(lines)


def _saved_where(p, what: str, default: str) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", metavar="PATH", help=f"where to save the {what} (default: {default})")
    where.add_argument("--config", metavar="PATH",
                       help=f"save the {what} in the data_dir of this appliance config (on the Pi: "
                            "/etc/dicetable/dicetable.toml), where the appliance finds it")


def _out_path(args, command: str, default: Path) -> Path | None:
    """Where `calibrate` or `teach` saves: --out, the data_dir of --config, or ``default``;
    None after a line on stderr when the config cannot be read."""
    out = Path(args.out).expanduser() if args.out else default
    if args.config:
        from pi.config import ConfigError, load

        try:
            out = Path(load(args.config).data_dir) / default.name
        except ConfigError as exc:
            print(f"dicetable {command}: config error: {exc}", file=sys.stderr)
            return None
    if out.is_dir():  # said before the work, not after it
        print(f"dicetable {command}: {out} is a folder; give --out a file name, e.g. {out / default.name}",
              file=sys.stderr)
        return None
    return out


_RESTART = "a running appliance loads it when it starts again (on the Pi: sudo systemctl restart dicetable)"


def calibrate_command(args) -> int:
    from vision import colours as colours_mod

    from vision.colours import DEFAULT_PALETTE

    unknown = [name for name, _ in args.colour if name.lower() not in DEFAULT_PALETTE]
    if unknown:
        print(f"dicetable calibrate: {unknown[0]!r} is not a dice colour the table knows; "
              f"use {', '.join(DEFAULT_PALETTE)}", file=sys.stderr)
        return 2
    out = _out_path(args, "calibrate", default_colours_path())
    if out is None:
        return 2
    det = _detector("calibrate", args.models, colours=False)
    if det is None:
        return 2
    samples = []
    for name, path in ((name.lower(), path) for name, path in args.colour):
        try:
            img = _photo(path)
        except ValueError as exc:
            print(f"dicetable calibrate: {exc} (for colour {name})", file=sys.stderr)
            return 1
        boxes = [d.box for d in det.detect(img)]
        if not boxes:
            print(f"dicetable calibrate: no dice found in {path} (for colour {name}); "
                  "take a top-down photo of a throw of that colour's dice", file=sys.stderr)
            return 1
        print(f"{name}: {len(boxes)} dice in {path}", file=sys.stderr)
        samples.append((name, img, boxes))
    try:
        table = colours_mod.ColourTable.calibrate(samples)
    except ValueError as exc:
        print(f"dicetable calibrate: {exc}", file=sys.stderr)
        return 1
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        table.save(out)
    except OSError as exc:
        print(f"dicetable calibrate: cannot save the colour table to {out}: {exc}; choose another --out",
              file=sys.stderr)
        return 1
    detect = "`dicetable detect` uses it" if out == default_colours_path() else f"`dicetable detect --colours {out}` uses it"
    use = f"{detect}; {_RESTART}" if not args.out else f"use it with `dicetable detect --colours {out}`"
    print(f"colour table saved to {out}; {use}")
    return 0


def teach_command(args) -> int:
    """`dicetable teach FOLDER`: exit 0 when faces were taught and saved; 2 (nothing
    written) for a folder that cannot be read or teaches nothing."""
    from vision import evaluate
    from vision.faces import FaceBook, FaceBookError

    out = _out_path(args, "teach", default_faces_path())
    if out is None:
        return 2
    try:
        labels = evaluate.load_annotations(args.folder)
    except (OSError, ValueError) as exc:
        print(f"dicetable teach: {exc}", file=sys.stderr)
        return 2
    photos = []
    for name in sorted(labels):
        try:
            image = _photo(Path(args.folder) / name)
        except ValueError as exc:
            print(f"dicetable teach: {exc}; nothing saved", file=sys.stderr)
            return 2
        photos.append((image, labels[name]["dice"]))
    if not photos:
        print(f"dicetable teach: {args.folder}/annotations.json labels no photo; nothing saved", file=sys.stderr)
        return 2
    det = _detector("teach", args.models, threads=args.threads, colours=False)
    if det is None:
        return 2
    try:
        book, report = FaceBook.teach(det, photos)
    except FaceBookError as exc:
        print(f"dicetable teach: {exc}; nothing saved", file=sys.stderr)
        return 2
    print(f"dicetable teach: {report.photos} photos, {report.labelled} labelled dice, {report.matched} found by "
          f"the detector ({report.unmatched} not found); {report.taught} read wrong or unsure by the model and "
          f"taught, {report.controls} kept as controls")
    for line in missing_faces(report.missing()):
        print(f"dicetable teach: {line}")
    if not report.matched:
        print(f"dicetable teach: none of the {report.labelled} labelled dice lies where the detector finds a die "
              "(boxes in each photo's own pixels, [x0, y0, x1, y1, face]?): nothing to teach, nothing saved",
              file=sys.stderr)
        return 2
    if not report.taught:
        print("dicetable teach: the model already reads every labelled die right: nothing to teach, nothing saved",
              file=sys.stderr)
        return 2
    try:
        book.save(out)
    except OSError as exc:
        print(f"dicetable teach: cannot save the faces to {out}: {exc}", file=sys.stderr)
        return 2
    det.faces = book
    pairs = [pair for image, lbs in photos for pair in _matched(det, image, lbs)]
    right = sum(r.face == int(lb[4]) and r.sides == (int(lb[5]) if len(lb) > 5 else 6) for r, lb in pairs)
    print(f"dicetable teach: saved {book!r} to {out}; with it the teaching photos read {right} of their "
          f"{report.labelled} labelled dice right ({len(pairs)} found)" + ("" if args.out else f"; {_RESTART}"))
    return 0


def missing_faces(missing: dict[int, list[int]]) -> list[str]:
    """One line per kind of die taught: every face shown, or the faces still missing."""
    return [f"d{sides}: every face shown" if not faces else
            f"d{sides}: faces {', '.join(str(f) for f in faces)} still missing (no photo showed them)"
            for sides, faces in missing.items()]


def _matched(det, image, labels):
    """(detection, label) pairs of one photo: each label with the detection in its box."""
    from vision.faces import _match

    import numpy as np

    raws = det.detect_raw(image, everything=False)
    boxes = np.array([r.box for r in raws], np.float32).reshape(-1, 4)
    used: set[int] = set()
    for lb in labels:
        k = _match(boxes, tuple(float(v) for v in lb[:4]), used)
        if k is not None:
            used.add(k)
            yield raws[k], lb
