"""The classifier in 8 bits: the last step of the training chain (models/MODEL.md).

`python -m vision.training.quantize MODEL_DIR` rewrites MODEL_DIR/dice_classifier.onnx (a float
export of `vision.training.train`) with onnxruntime's static quantisation: weights as 8-bit
integers per output channel, activations as 8-bit integers with ranges calibrated on the
crops the detector in MODEL_DIR cuts from rendered scenes (`vision.training.scenes`, fixed seeds:
the same float model always gives the same 8-bit one, and no photos are needed). On an
x86 CPU with 8-bit dot products (VNNI) the classifier then runs in about half the time,
and reads within a die or two of the float one on every test set (models/MODEL.md); on a
Pi's ARM cores it was not measured. The weights take 7 bits (`reduce_range`): an x86 CPU
without VNNI (AVX2 alone) multiplies 8-bit activations by 8-bit weights with an
instruction whose 16-bit sums saturate, and there full 8-bit weights lost 1 die in 100 on
the webcam photos; with 7 bits the sums fit, and the file reads the same on every CPU.
When the detector finds nothing to read in the rendered scenes (an untrained one), there
is nothing to calibrate on: the command says so and exits with 2, the float classifier
left as it was.

The detector stays in floats: its depthwise convolutions run slower in 8 bits.
`vision.training.train --init-from` and `--teacher` read both kinds of classifier.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from vision.detector import CLASSIFIER_FILE

#: Rendered scenes the activation ranges are calibrated on.
SCENES = 160
SEED = 20261125


def is_quantized(path: str | Path) -> bool:
    """Does the ONNX model at `path` already carry 8-bit weights?"""
    import onnx

    return any(n.op_type in ("DequantizeLinear", "QLinearConv") for n in onnx.load(str(path)).graph.node)


def calibration_crops(model_dir: str | Path, scenes: int = SCENES, seed: int = SEED) -> list[np.ndarray]:
    """Batches (N x 3 x 48 x 48 float) of what the classifier reads at the table: the crops
    of every candidate the detector of `model_dir` finds in rendered scenes (dice, and the
    false alarms it is there to reject)."""
    from vision.detector import Detector
    from vision.training.scenes import random_scene

    det = Detector(model_dir=model_dir, colours=False)
    rng = np.random.default_rng(seed)
    batches = []
    for _ in range(scenes):
        image = random_scene(rng).image
        boxes = det._find(image)[0]
        if len(boxes):
            batches.append(det._crops(image, boxes).astype(np.float32).transpose(0, 3, 1, 2))
    return batches


def quantize(model_dir: str | Path, scenes: int = SCENES, seed: int = SEED) -> Path:
    """Replace the float classifier in `model_dir` by its 8-bit version; returns its path."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    path = Path(model_dir) / CLASSIFIER_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: quantize a folder with a trained classifier")
    if is_quantized(path):
        raise ValueError(f"{path} is already in 8 bits: quantize the float export of `vision.training.train`")
    batches = calibration_crops(model_dir, scenes, seed)
    if not batches:
        raise ValueError(f"the detector in {model_dir} finds no candidate in {scenes} rendered scenes: no crop "
                         "to calibrate the 8-bit ranges on; train the detector longer or give more --scenes "
                         "(the float classifier is left as it was)")

    class Crops(CalibrationDataReader):
        def __init__(self):
            self._it = iter(batches)

        def get_next(self):
            x = next(self._it, None)
            return None if x is None else {"crops": x}

    prepared, tmp = path.with_suffix(".prepared.tmp.onnx"), path.with_suffix(".int8.tmp.onnx")
    try:
        quant_pre_process(str(path), str(prepared))  # shapes inferred, graph optimised, as onnxruntime advises
        quantize_static(str(prepared), str(tmp), Crops(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, reduce_range=True)
        os.replace(tmp, path)
    finally:
        for leftover in (prepared, tmp):
            leftover.unlink(missing_ok=True)
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.training.quantize", description=__doc__.split("\n\n")[0])
    p.add_argument("model_dir", help="folder with dice_detector.onnx and a float dice_classifier.onnx")
    p.add_argument("--scenes", type=int, default=SCENES, help=f"rendered calibration scenes (default {SCENES})")
    args = p.parse_args(argv)
    try:
        path = quantize(args.model_dir, args.scenes)
    except (OSError, ValueError) as exc:
        print(f"vision.training.quantize: {exc}", file=sys.stderr)
        return 2
    print(f"{path}: 8-bit weights and activations ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
