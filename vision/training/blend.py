"""Blend two exports of the same network: `python -m vision.training.blend A B T OUT`.

Every float weight of the ONNX model OUT is (1 - T) x A's + T x B's, where A and B are
exports of the same graph (a fine-tuning B and the model A it started from, say). A blend
between a model and its fine-tuning often keeps most of what the fine-tuning learnt and
most of what it forgot: the shipped stage-Q classifier is the stage-P2 one blended 0.7 of
the way towards its 100-minute fine-tuning on new looks (models/MODEL.md). Both files must
be float exports (quantise the blend afterwards with `vision.training.quantize`).

Needs the `onnx` package (`pip install -e .[train]`); the runtime never imports this module.
"""
from __future__ import annotations

import argparse
import sys


def blend(a, b, t: float):
    """A copy of onnx model `a` whose float initializers are (1 - t) a + t b. ValueError when
    `b` lacks one of them or holds it in another shape (not the same network)."""
    import onnx
    from onnx import numpy_helper

    if not 0.0 <= t <= 1.0:
        raise ValueError(f"the share of B is between 0 and 1, got {t!r}")
    out = onnx.ModelProto()
    out.CopyFrom(a)
    theirs = {init.name: numpy_helper.to_array(init) for init in b.graph.initializer}
    for init in out.graph.initializer:
        x = numpy_helper.to_array(init)
        if x.dtype.kind != "f":
            continue
        y = theirs.get(init.name)
        if y is None or y.shape != x.shape:
            raise ValueError(f"{init.name}: not in the other model, or in another shape (not the same network)")
        init.CopyFrom(numpy_helper.from_array(((1 - t) * x + t * y).astype(x.dtype), init.name))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.blend", description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="the first float ONNX export")
    ap.add_argument("b", help="the second, of the same network")
    ap.add_argument("t", type=float, help="the share of B (0: A, 1: B)")
    ap.add_argument("out", help="where to write the blend")
    args = ap.parse_args(argv)
    import onnx

    try:
        model = blend(onnx.load(args.a), onnx.load(args.b), args.t)
    except (OSError, ValueError) as exc:
        print(f"blend: {exc}", file=sys.stderr)
        return 2
    onnx.save(model, args.out)
    print(f"blend: {args.out} = {1 - args.t:g} x {args.a} + {args.t:g} x {args.b}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
