"""Training the two dice models, apart from the runtime: nothing in `pi/`, `hardware/` or the
rest of `vision/` imports this package (tests/vision/test_runtime_imports.py checks it).

- `scenes`: synthetic training scenes with their labels (`random_scene`, `SceneMix`), and
  `python -m vision.training.scenes` for a labelled synthetic folder;
- `cutouts`: real dice cut out of labelled tray photos and laid on rendered tables;
- `negatives`: hard negatives painted on a scene's table (specks, platforms, coins);
- `train`: trains both models and exports ONNX (the only module that imports torch);
- `quantize`: the classifier in 8 bits, the last step of the chain;
- `scales`: how the reader does on dice smaller and bigger than a labelled folder shows them.

models/MODEL.md says how the shipped models were made.
"""
