"""The float classifier from the 8-bit one: `python -m vision.training.dequantize MODEL_DIR`.

The runtime can read the dice with either classifier (`vision.detector.Detector`,
`classifier="auto"|"int8"|"float"`): on an x86 CPU with 8-bit dot products the 8-bit one
is quicker, on other CPUs (a Pi's ARM cores, say) the float one may be. Until training ships
both files, the float one is made here from the shipped QDQ model: every weight is
dequantised once ((integer - zero point) x scale), and every activation's
QuantizeLinear -> DequantizeLinear pair becomes the clamp it applied (a Clip to the range
its 8 bits span: the quantiser folds each ReLU into that range), so the float graph is the
8-bit one's arithmetic without its rounding. The 8-bit file itself is left as it is.

Needs the `onnx` package (`pip install -e .[train]`); the runtime never imports this module.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from vision.detector import CLASSIFIER_FILE, FLOAT_CLASSIFIER_FILE


def dequantize_model(model):
    """A float copy of the QDQ `model` (an onnx.ModelProto): weights dequantised, each
    activation's quantise/dequantise pair replaced by a Clip to its range, unused initializers and opset domains
    dropped (the float graph needs the default domain only). Raises ValueError for a model
    with no DequantizeLinear (already float) or with 8-bit operators other than QDQ pairs."""
    import onnx
    from onnx import numpy_helper

    model = onnx.ModelProto.FromString(model.SerializeToString())  # the caller's model is left alone
    graph = model.graph
    nodes = list(graph.node)
    if not any(n.op_type == "DequantizeLinear" for n in nodes):
        raise ValueError("the model has no DequantizeLinear node: it is not an 8-bit (QDQ) model")
    other = {n.op_type for n in nodes if n.op_type.startswith("QLinear") or n.domain not in ("", "ai.onnx")}
    if other:
        raise ValueError(f"the model has 8-bit operators other than QDQ pairs ({', '.join(sorted(other))}); "
                         "only QDQ models (vision.training.quantize's) are dequantised")
    inits = {t.name: t for t in graph.initializer}

    def value(name: str) -> np.ndarray:
        return numpy_helper.to_array(inits[name])

    made: dict[str, np.ndarray] = {}
    producer = {o: n for n in nodes for o in n.output}
    kept = []
    for n in nodes:
        if n.op_type == "DequantizeLinear" and n.input[0] in inits:  # a weight: dequantised once
            q, scale = value(n.input[0]).astype(np.float32), value(n.input[1]).astype(np.float32)
            zero = value(n.input[2]).astype(np.float32) if len(n.input) > 2 and n.input[2] else np.zeros_like(scale)
            axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
            if scale.ndim == 1 and q.ndim > 1:  # per channel along `axis`
                shape = [1] * q.ndim
                shape[axis] = -1
                scale, zero = scale.reshape(shape), zero.reshape(shape)
            made[n.output[0]] = ((q - zero) * scale).astype(np.float32)
        elif n.op_type == "DequantizeLinear":  # an activation: its pair becomes the clamp it applied
            q = producer.get(n.input[0])
            if q is None or q.op_type != "QuantizeLinear":
                raise ValueError(f"DequantizeLinear {n.name or n.output[0]!r} follows no QuantizeLinear: not a QDQ pair")
            scale = float(value(q.input[1]))
            zero_point = value(q.input[2])
            info = np.iinfo(zero_point.dtype)
            low, high = (float(info.min) - float(zero_point)) * scale, (float(info.max) - float(zero_point)) * scale
            made[n.output[0] + "_min"], made[n.output[0] + "_max"] = np.float32(low), np.float32(high)
            kept.append(onnx.helper.make_node("Clip", [q.input[0], n.output[0] + "_min", n.output[0] + "_max"],
                                              [n.output[0]], name=n.output[0] + "_Clip"))
        elif n.op_type != "QuantizeLinear":
            kept.append(n)
    for n in nodes:
        if n.op_type == "QuantizeLinear" and not any(
                c.op_type == "DequantizeLinear" and c.input[0] == n.output[0] for c in nodes):
            raise ValueError(f"QuantizeLinear {n.name or n.output[0]!r} feeds no DequantizeLinear: not a QDQ pair")
    graph_outputs = {o.name for o in graph.output}
    del graph.node[:]
    graph.node.extend(kept)
    used = {i for n in kept for i in n.input} | graph_outputs
    tensors = [t for t in graph.initializer if t.name in used and t.name not in made]
    tensors += [numpy_helper.from_array(a, name) for name, a in made.items() if name in used]
    del graph.initializer[:]
    graph.initializer.extend(tensors)
    del graph.value_info[:]  # shapes of the removed tensors; onnxruntime infers its own
    domains = {n.domain or "" for n in kept}
    opsets = [o for o in model.opset_import if (o.domain or "") in domains or o.domain in ("", "ai.onnx")]
    del model.opset_import[:]
    model.opset_import.extend(opsets)
    onnx.checker.check_model(model)
    return model


def dequantize(model_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the float classifier of `model_dir`'s 8-bit one (default: beside it, as
    `FLOAT_CLASSIFIER_FILE`); returns its path."""
    import onnx

    src = Path(model_dir) / CLASSIFIER_FILE
    if not src.is_file():
        raise FileNotFoundError(f"{src} not found: dequantize a folder with the 8-bit classifier")
    dst = Path(out) if out else Path(model_dir) / FLOAT_CLASSIFIER_FILE
    model = dequantize_model(onnx.load(str(src)))
    tmp = dst.with_suffix(".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(dst)
    return dst


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.training.dequantize", description=__doc__.split("\n\n")[0])
    p.add_argument("model_dir", help=f"folder with the 8-bit {CLASSIFIER_FILE}")
    p.add_argument("--out", metavar="PATH", help=f"where to write the float model (default MODEL_DIR/{FLOAT_CLASSIFIER_FILE})")
    args = p.parse_args(argv)
    try:
        path = dequantize(args.model_dir, args.out)
    except (FileNotFoundError, ValueError) as exc:
        print(f"vision.training.dequantize: {exc}", file=sys.stderr)
        return 2
    print(f"float classifier written to {path} ({path.stat().st_size / 1024:.0f} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
