"""`python -m vision.training.blend`: the weights of two exports of one network mixed."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

from vision.training.blend import blend, main  # noqa: E402

FLOAT = Path(__file__).resolve().parents[2] / "models" / "dice_classifier_float.onnx"


def _weights(model) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer if numpy_helper.to_array(i).dtype.kind == "f"}


def test_a_blend_is_the_weighted_mean_of_every_float_weight(tmp_path):
    a = onnx.load(FLOAT)
    b = onnx.load(FLOAT)
    for init in b.graph.initializer:
        x = numpy_helper.to_array(init)
        if x.dtype.kind == "f":
            init.CopyFrom(numpy_helper.from_array((x + 1.0).astype(x.dtype), init.name))
    out = _weights(blend(a, b, 0.7))
    for name, x in _weights(a).items():
        assert np.allclose(out[name], x + 0.7, atol=1e-5), name
    assert _weights(blend(a, b, 0.0)).keys() == out.keys()
    onnx.save(b, tmp_path / "b.onnx")
    assert main([str(FLOAT), str(tmp_path / "b.onnx"), "0.25", str(tmp_path / "out.onnx")]) == 0
    assert np.allclose(next(iter(_weights(onnx.load(tmp_path / "out.onnx")).values())),
                       next(iter(_weights(a).values())) + 0.25, atol=1e-5)


def test_two_different_networks_or_a_share_out_of_range_are_refused(tmp_path, capsys):
    a = onnx.load(FLOAT)
    b = onnx.load(FLOAT)
    b.graph.initializer[0].name = "renamed"
    with pytest.raises(ValueError, match="not the same network"):
        blend(a, b, 0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        blend(a, a, 1.5)
    assert main([str(FLOAT), str(tmp_path / "missing.onnx"), "0.5", str(tmp_path / "out.onnx")]) == 2
    assert "blend:" in capsys.readouterr().err and not (tmp_path / "out.onnx").exists()
