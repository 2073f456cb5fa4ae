"""The ONNX dice detector: preprocessing, inference, decoding.

Two small models from `models/` (see models/MODEL.md):
1. `dice_detector.onnx`, a tiny CenterNet on the whole frame resized so that its longer
   side is 384 px (padded to a multiple of 32 with grey): a centre heatmap, the log box
   size and the sub-cell offset at stride 4, decoded here (sigmoid, 3x3 peak picking,
   threshold, boxes mapped back to the image's own pixels). Two more passes cover the
   sizes the main one misses: at 128 px for a close-up's big dice, and at 768 px for small
   dice in a photo that has the detail (its longer side 768 px or more);
2. `dice_classifier.onnx` (8 bits) or `dice_classifier_float.onnx` (the same in floats;
   `classifier=`, see vision.classifiers), a tiny CNN on 48x48 crops around each found
   die (side 1.25x the box, cut from the full-resolution image), all crops in one batch:
   "not a die" or what the die is and shows (`CLASSES`: a d6 showing 1-6, a d10 showing
   0-9, a d20 showing 1-20; a classifier with 7 outputs knows the d6 only).

A die's reading is its likeliest kind of die (all its faces together) and that kind's
likeliest face; its confidence = detector score x classifier probability of that reading (a
d10's or d20's: of its kind; how sure its face is, is `sure`). A die
whose best reading is unsure (probability < `face_min`, `NUMBERED_FACE_MIN` for a d10 or
d20) is kept with face 0 and `sure=False` (unreadable, e.g. cocked); `detect_raw()` still
gives its best guess. `detect()` keeps the candidates whose confidence reaches the
decision threshold (`DECISION`), and those plainly a die however unsure their face
(`PLAIN_DIE_SCORE`); `detect_raw()` all of them.

Only numpy, OpenCV and onnxruntime: no torch here.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

DET_LONG = 384
#: Two more passes of the detector for dice outside the main pass's sizes (models/MODEL.md,
#: "Close-ups and small dice"): at COARSE_LONG for a close-up's dice, kept when their side
#: is at least BIG pixels at the main pass's scale; and, for a photo whose longer side is
#: at least FINE_LONG, at FINE_LONG for dice of less than SMALL pixels at that scale.
COARSE_LONG = 128
BIG = 64
#: The main pass finds dice of up to about MAIN_MAX pixels at its scale: a bigger die both
#: passes found is read from the coarse pass's box where that pass is the surer of it.
MAIN_MAX = 100
FINE_LONG = 768
SMALL = 20
STRIDE = 4
CROP = 48
CROP_EXPAND = 1.25
PAD_VALUE = 114
#: The decision threshold: a candidate whose confidence (detector score x the classifier's
#: probability of its face, a d10's or d20's of its kind) is lower is not acted on (measured
#: in models/MODEL.md).
DECISION = 0.3
#: Boxes overlapping this much (intersection over union) are one die, found twice.
OVERLAP = 0.4
#: A speck beside dice (`_specks`): confidence under SPECK_CONFIDENCE and side under SPECK_SIDE
#: of the median side of the dice read with a confidence of at least PLAIN (models/MODEL.md).
SPECK_CONFIDENCE = 0.5
SPECK_SIDE = 0.4
PLAIN = 0.6
#: A die plainly there: the detector at least PLAIN_DIE_SCORE sure of it and the classifier
#: at least PLAIN_DIE_PROB sure it is a die. Such a die is kept whatever its face's
#: confidence, its face unsure (its owner is asked), rather than lost to the decision
#: threshold: a die the classifier cannot read (numerals in a font it never saw) is still a
#: die (models/MODEL.md, "Decision").
PLAIN_DIE_SCORE = 0.6
PLAIN_DIE_PROB = 0.9
#: A speck alone on a dark tray (`_bare_tray`): the box of a d6 read as a 1 or a 2 (a speck
#: or two) holds less than BARE_BODY of anything unlike the tray around it (a die's body,
#: however dark, fills more: its edges and shading), and that tray is flat (its colours'
#: median distance from their median under BARE_NOISE, CIELAB units of 0-255) and dark
#: (lightness under BARE_DARK of 255). Measured on the one-die sets, Byler, webcam and the
#: rendered busy tables (models/MODEL.md).
BARE_BODY = 0.15
BARE_NOISE = 6.0
BARE_DARK = 100
#: A button, coin or token on a flat tray (`_round_body`): the body in the box of a d6 read
#: as one of BUTTON_FACES (two or four holes, a token's one mark) with confidence under
#: ROUND_CONFIDENCE (such things read 0.3-0.78; a die read plainly is not measured, which
#: keeps the cost off most dice) is as round as a disc, its outline's intersection over
#: union with the ellipse fitted to it at least ROUND (the body: what differs from the tray,
#: its middle in the box, covering ROUND_BODY of the box or more). Real dice seen from
#: above, with their rounded edges, reached 0.965 at most (1,920 of them on flat trays:
#: Byler, webcam, Byler dice on rendered tables; models/MODEL.md, "Specks and buttons").
ROUND = 0.97
ROUND_CONFIDENCE = 0.7
ROUND_BODY = 0.3
BUTTON_FACES = (1, 2, 4)
#: A d10 or d20 whose reading is less sure than this is unsure (`sure` False): at the
#: table its owner types it. Read numbers are misread more than pips (models/MODEL.md).
NUMBERED_FACE_MIN = 0.9
#: How much likelier (a share of the die's probability) the classifier and numeral reader
#: together must find another face of a taught d10 or d20 than the face the table's book
#: recognised, to read that face instead (`python -m vision.teach_check`: chosen at its
#: default seed and seeds 1-5, checked at 7-9; vision/README.md).
BOOK_MARGIN = 0.1
#: A d6 the classifier finds a die but reads less surely than NUMERAL_D6_UNSURE (its face's
#: share of the die's probability) may be a d6 with numerals, which the 48 px classifier reads
#: badly and the numeral reader well: where the reader is at least NUMERAL_D6_SURE sure of a
#: d6 face, the die shows the reader's faces (chosen on a one-die set of seed 2620, checked on
#: the held-out one and on real pip close-ups: models/MODEL.md, "Numeral reader").
NUMERAL_D6_UNSURE = 0.8
NUMERAL_D6_SURE = 0.9
#: Where the classifier is so unsure of such a d6 that its face would not count (under
#: `face_min`), the reader needs only `face_min` to decide, for a die at least this many
#: pixels wide: the 48 px classifier reads a numbered d6 it boxed as barely a die, while the
#: reader reads the numeral; a smaller die's crop, blown up to 96 px, the reader reads worse
#: than pips (chosen on a one-die set of seed 2630: models/MODEL.md, "Numeral reader").
NUMERAL_D6_MIN_SIDE = 40
#: Such a d6 that the reader finds a d10 or a d20 (the kind its faces together make likeliest,
#: as `best_readings` weighs kinds) with at least this share of its probability may be one
#: the classifier took for a d6 (a marbled d10 seen from above): its probabilities become the
#: mean of the two, as a d10's or d20's are (models/MODEL.md).
NUMBERED_FOR_D6 = 0.7
#: A d6 the table's book recognised moves to another face the book holds (taught, or a
#: control) where the numeral reader is at least this sure of it: the book compares 48 px
#: crops, and a numbered d6 whose 3 lay dark in its teaching photo looks more like its taught
#: 2 or 5 there. Only from a face the reader read right on every die taught as it
#: (`FaceBook.reader_knows`): a logo (a star on the 6) is no numeral to the reader (`python -m
#: vision.teach_check`; vision/README.md).
TAUGHT_D6_SURE = 0.7
#: A crop whose first reading is at least this sure is not read again turned.
SURE = 0.8
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "dice_detector.onnx"
CLASSIFIER_FILE = "dice_classifier.onnx"
#: The same classifier in floats: quicker than the 8-bit one on some CPUs (vision.classifiers).
FLOAT_CLASSIFIER_FILE = "dice_classifier_float.onnx"
#: The numeral reader (optional): the classifier's network trained on READER_CROP-pixel crops,
#: where a d10's or d20's numerals are big enough to read. It reads again the dice the
#: classifier takes for a d10 or a d20 and the d6 it is unsure of (`Detector._reread`;
#: models/MODEL.md, "Numeral reader").
READER_FILE = "dice_reader.onnx"
READER_CROP = 96
#: The close-up reader (optional, used only beside the numeral reader): the same network
#: fine-tuned on dice photographed large. It reads instead of the numeral reader the dice
#: whose box is CLOSE_SIDE photo pixels or more on its longer side, whose READER_CROP crop
#: is shrunk from the photo, sharp; smaller dice, blown up, stay with the numeral reader
#: (models/MODEL.md, "Numeral reader").
CLOSE_READER_FILE = "dice_reader_close.onnx"
CLOSE_SIDE = 100
#: The faces each kind of die shows, as printed (a d10 shows 0-9).
FACES: dict[int, range] = {6: range(1, 7), 10: range(0, 10), 20: range(1, 21)}
#: The classifier's classes in output order: (0, 0) is "not a die", then (sides, face).
CLASSES: tuple[tuple[int, int], ...] = ((0, 0),) + tuple((n, f) for n, faces in FACES.items() for f in faces)


def check_face(sides: int, face: int) -> None:
    """ValueError unless a d`sides` (6, 10 or 20) can show `face`."""
    if sides not in FACES:
        raise ValueError(f"a die has 6, 10 or 20 sides, got {sides!r}")
    if face not in FACES[sides]:
        raise ValueError(f"a d{sides} face is {FACES[sides][0]}-{FACES[sides][-1]}, got {face!r}")


def face_read(face: int, sides: int, sure: bool) -> bool:
    """The model was sure of the face and it is one a d`sides` shows."""
    return sure and face in FACES.get(sides, ())


def best_readings(probs: np.ndarray, classes: tuple[tuple[int, int], ...] = CLASSES) -> tuple[np.ndarray, np.ndarray]:
    """The best reading (a class of `classes`, never "not a die") of each row of class
    probabilities (N x len(classes)), and the probability of its kind of die: the kind is the
    one whose faces together are likeliest (a d20's probability is spread over twenty faces,
    a d6's over six), the reading that kind's likeliest face."""
    probs = np.asarray(probs, np.float32).reshape(-1, len(classes))
    kinds = np.array([sides for sides, _ in classes])
    sizes = sorted(set(kinds.tolist()) - {0})
    totals = np.stack([probs[:, kinds == n].sum(1) for n in sizes], 1)
    kind = np.asarray(sizes)[totals.argmax(1)]
    return np.where(kinds[None, :] == kind[:, None], probs, -1.0).argmax(1), totals.max(1)


def class_of(sides: int, face: int) -> int:
    """The classifier's class of a d`sides` showing `face` (ValueError for no such die)."""
    try:
        return CLASSES.index((int(sides), int(face)))
    except ValueError:
        raise ValueError(f"no die class for a d{sides} showing {face}: dice are d6 (1-6), d10 (0-9) "
                         "or d20 (1-20)") from None


@dataclass(frozen=True)
class Detection:
    """One die read in one image: its box in the image's own pixels, the top face (1-6 on
    a d6, 0-9 on a d10, 1-20 on a d20; 0 with `sure` False when unreadable or cocked), the
    model's confidence, the colour name (None when far from every known colour or not
    classified), its number of sides, and `face_prob`: the classifier's probability of this
    reading (that it is a die showing this face), whatever the detector's box score (1.0 for
    a face the table taught; None where not known)."""

    box: tuple[float, float, float, float]
    face: int
    confidence: float
    colour: str | None = None
    sides: int = 6
    sure: bool = True
    face_prob: float | None = None

    @property
    def readable(self) -> bool:
        """The face was read and is one this die carries."""
        return face_read(self.face, self.sides, self.sure)


@dataclass(frozen=True)
class RawDetection:
    """Everything the models said about one die: `best_face` is the most likely face
    even when `face` is 0 (unsure, `sure` False); `face_probs` are the probabilities of the
    classifier's die classes (`CLASSES[1:]`) given that it is a die; `die_prob` = 1 -
    P(not a die); `sides` the kind of die of the best reading."""

    box: tuple[float, float, float, float]
    face: int
    best_face: int
    confidence: float
    det_score: float
    die_prob: float
    face_probs: tuple[float, ...]
    colour: str | None = None
    sides: int = 6
    sure: bool = True

    def detection(self) -> Detection:
        face_prob = self.die_prob * self.face_probs[class_of(self.sides, self.best_face) - 1]
        return Detection(self.box, self.face, self.confidence, self.colour, self.sides, self.sure, face_prob)


class ModelMissingError(FileNotFoundError):
    """The ONNX files are not where the detector looks for them."""


class Detector:
    """Finds dice (d6, and d10 and d20 with a classifier that knows them) in BGR images
    and reads their top faces.

    `model_dir`: folder with the two ONNX files (default: the package's models/);
    `threads`: onnxruntime intra-op threads; `colours`: a `vision.colours.ColourTable`
    naming each die's colour (default: `ColourTable.default()`; pass False for none);
    `views`: each crop is read as it is and turned by `views - 1` quarter turns, and the
    class probabilities averaged (default 2: one more die right in 274 on the Byler
    validation split for about 2 ms a frame; see models/MODEL.md); `decision`: the least
    confidence of a die `detect()` reports; `score_threshold`: the least detector score of
    a candidate (default: the decision threshold, since a die's confidence is at most its
    score); `faces`: a `vision.faces.FaceBook` of this table's own faces (`dicetable
    teach`), which override the classifier where it knows the face; `classifier`: which
    classifier file reads the crops, "int8" (`CLASSIFIER_FILE`), "float"
    (`FLOAT_CLASSIFIER_FILE`) or "auto", the quicker of the two on this machine, timed at
    start (the appliance's default), remembered in `choices` (a path, see
    `vision.classifiers.ChoiceFile`) when given; a missing file is replaced by the other.
    `self.classifier` tells which was taken and how (`vision.classifiers.Choice`);
    `reader`: read the dice the classifier takes for a d10 or a d20, and the d6 it is unsure
    of, again with the numeral reader (`READER_FILE`, when the model folder has one; the
    dice of `CLOSE_SIDE` pixels and more with `CLOSE_READER_FILE`, when it has that too).
    """

    def __init__(self, model_dir: str | Path | None = None, threads: int = 1, colours=None,
                 score_threshold: float = DECISION, die_threshold: float = 0.5, face_min: float = 0.6,
                 views: int = 2, decision: float = DECISION, faces=None, classifier: str = "int8",
                 choices: str | Path | None = None, reader: bool = True):
        import onnxruntime as ort

        from vision import classifiers

        classifiers.check_choice(classifier)
        d = Path(model_dir) if model_dir else DEFAULT_MODEL_DIR
        hint = (f"the dice models ship in models/ of the dicetable source; pass model_dir= (or --models) "
                f"pointing at a folder with {DETECTOR_FILE} and {CLASSIFIER_FILE} (or {FLOAT_CLASSIFIER_FILE}), "
                "or retrain (models/MODEL.md)")
        if not (d / DETECTOR_FILE).is_file():
            raise ModelMissingError(f"{d / DETECTOR_FILE} not found: {hint}")
        so = ort.SessionOptions()
        so.intra_op_num_threads = max(1, int(threads))
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.log_severity_level = 3
        prov = ["CPUExecutionProvider"]
        load = lambda p: ort.InferenceSession(str(p), so, providers=prov)  # noqa: E731
        self._det = load(d / DETECTOR_FILE)
        files = {"int8": d / CLASSIFIER_FILE, "float": d / FLOAT_CLASSIFIER_FILE}
        try:
            self.classifier, self._cls = classifiers.choose(
                classifier, files, load,
                threads=so.intra_op_num_threads, remember=classifiers.ChoiceFile(choices) if choices else None)
        except FileNotFoundError as exc:  # neither classifier there, or neither loads
            raise ModelMissingError(f"{exc}: {hint}") from None
        log.info("dice classifier: %s", self.classifier.describe())
        n = self._cls.get_outputs()[0].shape[1]
        if n not in (7, len(CLASSES)):
            raise ModelMissingError(f"{files[self.classifier.kind]} has {n} outputs; this dicetable reads "
                                    f"classifiers of 7 (d6) or {len(CLASSES)} (d6, d10, d20) classes")
        self.classes = CLASSES[:n]
        self._reader = self._close_reader = None
        if reader and n == len(CLASSES):
            self._reader = _optional(load, d / READER_FILE, "numeral reader",
                                     "d10 and d20 are read by the classifier alone")
            if self._reader is not None:
                self._close_reader = _optional(load, d / CLOSE_READER_FILE, "close-up reader",
                                               "big dice are read by the numeral reader")
        self.score_threshold = score_threshold
        self.die_threshold = die_threshold
        self.face_min = face_min
        self.decision = decision
        self.faces = faces  # a vision.faces.FaceBook: this table's own faces (logos), or None
        if views not in (1, 2, 4):
            raise ValueError(f"views is 1, 2 or 4 (quarter turns of each crop averaged), got {views!r}")
        self.views = views
        if colours is None:
            colours = _default_colours()
        self.colours = colours or None

    @property
    def reads_sides(self) -> bool:
        """The classifier tells d6, d10 and d20 apart: the table takes every die of a throw
        from the camera (else its owners type the d10 and d20)."""
        return len(self.classes) == len(CLASSES)

    # -- stage 1: the heatmap detector ---------------------------------------------------

    def _find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidate boxes (N x 4, image pixels), their scores, and which of them come from
        the coarse pass (whole dice of a close-up, to be weighed against what the main pass
        found inside them once all are read: `_nested`)."""
        longest = max(image.shape[:2])
        if longest >= FINE_LONG:  # the photo has detail the main pass shrinks away
            large, large_scale = _resized(image, FINE_LONG)
            small, k = _resized(large, DET_LONG)  # one resize of a big photo, not two
            scale = large_scale * k
            boxes, scores = self._peaks(small, scale, image.shape)
            fine, fine_scores = self._peaks(large, large_scale, image.shape)
            keep = _side(fine) * (DET_LONG / longest) < SMALL
            boxes, scores = np.concatenate([boxes, fine[keep]]), np.concatenate([scores, fine_scores[keep]])
        else:
            small, scale = _resized(image, DET_LONG)
            boxes, scores = self._peaks(small, scale, image.shape)
        boxes, scores = _one_peak_each(boxes, scores)
        coarse_small, k = _resized(small, COARSE_LONG)  # from the main pass's input: cheap
        coarse, coarse_scores = self._peaks(coarse_small, scale * k, image.shape)
        keep = _side(coarse) * (DET_LONG / longest) >= BIG
        coarse, coarse_scores = coarse[keep], coarse_scores[keep]
        boxes, scores, coarse, coarse_scores = _one_box_each(boxes, scores, coarse, coarse_scores, DET_LONG / longest)
        from_coarse = np.r_[np.zeros(len(boxes), bool), np.ones(len(coarse), bool)]
        return (np.concatenate([boxes, coarse]).astype(np.float32),
                np.concatenate([scores, coarse_scores]).astype(np.float32), from_coarse)

    def _peaks(self, small: np.ndarray, scale: float, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
        """The detector's peaks on `small`, the image of `shape` resized by `scale`: boxes
        in the image's own pixels and their scores."""
        nh, nw = small.shape[:2]
        pw, ph = -(-nw // 32) * 32, -(-nh // 32) * 32
        canvas = np.full((ph, pw, 3), PAD_VALUE, np.uint8)
        canvas[:nh, :nw] = small
        x = canvas.transpose(2, 0, 1).astype(np.float32, order="C")[None]  # channels first, then floats: 5x quicker
        heat, size, off = self._det.run(None, {"image": x})
        heat = 1.0 / (1.0 + np.exp(-heat[0, 0]))
        peaks = cv2.dilate(heat, np.ones((3, 3), np.uint8))
        ys, xs = np.nonzero((heat >= peaks) & (heat >= self.score_threshold))
        if len(xs) == 0:
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
        scores = heat[ys, xs]
        cx = (xs + off[0, 0, ys, xs]) * STRIDE
        cy = (ys + off[0, 1, ys, xs]) * STRIDE
        bw = np.exp(size[0, 0, ys, xs]) * STRIDE
        bh = np.exp(size[0, 1, ys, xs]) * STRIDE
        boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1) / scale
        h, w = shape[:2]
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return boxes, scores

    # -- stage 2: the crop classifier ------------------------------------------------------

    def _crops(self, image: np.ndarray, boxes: np.ndarray, size: int = CROP) -> np.ndarray:
        h, w = image.shape[:2]
        out = np.empty((len(boxes), size, size, 3), np.uint8)
        for i, b in enumerate(boxes):
            side = max(b[2] - b[0], b[3] - b[1], 4.0) * CROP_EXPAND
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
            s = max(2, int(round(side)))
            x1, y1 = x0 + s, y0 + s
            sx0, sy0, sx1, sy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            region = image[sy0:sy1, sx0:sx1]
            if sx0 != x0 or sy0 != y0 or sx1 != x1 or sy1 != y1:
                region = cv2.copyMakeBorder(region, sy0 - y0, y1 - sy1, sx0 - x0, x1 - sx1, cv2.BORDER_REPLICATE)
            interp = cv2.INTER_AREA if s > size else cv2.INTER_LINEAR
            out[i] = cv2.resize(region, (size, size), interpolation=interp)
        return out

    def _probs(self, x: np.ndarray, session) -> np.ndarray:
        (logits,) = session.run(None, {"crops": np.ascontiguousarray(x)})
        e = np.exp(logits - logits.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    def _classify(self, crops: np.ndarray) -> np.ndarray:
        """The classifier's class probabilities of each crop (`_read`)."""
        return self._read(crops, self._cls)

    def _read(self, crops: np.ndarray, session) -> np.ndarray:
        """Class probabilities of each crop by the classifier `session`. The crops the
        first reading is sure of (probability at least `SURE`) keep it; the others are
        averaged over `self.views` quarter turns, which is where the extra views help
        (models/MODEL.md)."""
        x = crops.astype(np.float32).transpose(0, 3, 1, 2)
        p = self._probs(x, session)
        unsure = np.nonzero(p.max(1) < SURE)[0] if self.views > 1 else np.empty(0, np.int64)
        if len(unsure):
            turned = np.concatenate([np.rot90(x[unsure], k, axes=(2, 3)) for k in range(1, self.views)], 0)
            more = self._probs(turned, session).reshape(self.views - 1, len(unsure), -1)
            p[unsure] = (p[unsure] + more.sum(0)) / self.views
        return p

    def read_numerals(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The class probabilities of the dice in `boxes` read from `READER_CROP` crops: by the
        close-up reader where a die is `CLOSE_SIDE` pixels or more and it is there, else by the
        numeral reader (which must be there)."""
        crops = self._crops(image, boxes, READER_CROP)
        close = _side(boxes) >= CLOSE_SIDE if self._close_reader is not None else np.zeros(len(boxes), bool)
        out = np.empty((len(boxes), len(self.classes)), np.float32)
        for which, session in ((~close, self._reader), (close, self._close_reader)):
            if which.any():
                out[which] = self._read(crops[which], session)
        return out

    def _reread(self, image: np.ndarray, boxes: np.ndarray, probs: np.ndarray, taught: list) -> None:
        """The numeral reader's second look (read from `READER_CROP` crops), where a crop's
        numerals matter.

        - The dice the classifier takes for a d10 or a d20, or this table taught as one:
          `probs` become the mean of the classifier's and the reader's (the reader sees a big
          die's numerals, the classifier reads a small die better than the reader's blown-up
          crop: models/MODEL.md). A taught d10 or d20 shows the face of its kind they find
          likeliest where that face is `BOOK_MARGIN` likelier than the taught one (its entry
          in `taught` changes): the book compares 48 px crops, where a d20's numeral is 6-8 px
          tall; the reader sees it twice that size.
        - An untaught d6 read less surely than `NUMERAL_D6_UNSURE`: where the reader is
          `NUMERAL_D6_SURE` sure of a d6 face (`face_min` sure where the classifier's face
          is under `face_min` and the die `NUMERAL_D6_MIN_SIDE` wide), the die's face
          probabilities become the reader's (its probability of being a die stays the
          classifier's). Pips the classifier is unsure of rarely make the reader sure;
          numerals often do. Where the reader finds a d10 or a d20 instead, with
          `NUMBERED_FOR_D6` of its probability on that kind's faces, the die's probabilities
          become the mean of the two.
        - A d6 the book recognised: where the reader is `TAUGHT_D6_SURE` sure of another
          face the book holds, it shows that face (its entry in `taught` changes)."""
        reading, _ = best_readings(probs, self.classes)
        kinds = np.array([sides for sides, _ in self.classes])
        die = 1.0 - probs[:, 0]
        face = probs[np.arange(len(probs)), reading] / np.maximum(die, 1e-6)
        numbered = np.array([kinds[c] in (10, 20) if t is None else t.sides in (10, 20)
                             for c, t in zip(reading, taught)])
        unsure_d6 = np.array([kinds[c] == 6 and t is None for c, t in zip(reading, taught)])
        unsure_d6 &= (face < NUMERAL_D6_UNSURE) & (die >= self.die_threshold)
        taught_d6 = np.array([t is not None and t.sides == 6 for t in taught])
        again = numbered | unsure_d6 | taught_d6
        if not again.any():
            return
        read = np.zeros_like(probs)
        read[again] = self.read_numerals(image, boxes[again])
        probs[numbered] = (probs[numbered] + read[numbered]) / 2
        d6 = kinds == 6
        kind_read, of_kind_read = best_readings(read, self.classes)
        side = _side(boxes)
        for k in np.flatnonzero(unsure_d6):
            r = read[k]
            faceless = face[k] < self.face_min and side[k] >= NUMERAL_D6_MIN_SIDE  # its own face would not count
            if kinds[r.argmax()] == 6 and r.max() >= (self.face_min if faceless else NUMERAL_D6_SURE):
                probs[k, d6] = die[k] * r[d6] / r[d6].sum()
            elif kinds[kind_read[k]] in (10, 20) and of_kind_read[k] >= NUMBERED_FOR_D6:
                probs[k] = (probs[k] + r) / 2
        for k in np.flatnonzero(taught_d6):
            c = int(read[k].argmax())
            if (kinds[c] == 6 and read[k, c] >= TAUGHT_D6_SURE and c in self.faces.held_classes
                    and taught[k].cls in self.faces.reader_knows):
                taught[k] = taught[k]._replace(cls=c, face=self.classes[c][1])
        for k in np.flatnonzero(numbered):
            t, p = taught[k], probs[k]
            if t is None:
                continue
            best = int(np.where(kinds == t.sides, p, -1.0).argmax())
            if p[best] - p[t.cls] > BOOK_MARGIN * (1.0 - p[0]):
                taught[k] = t._replace(cls=best, face=self.classes[best][1])

    # -- the whole reading -------------------------------------------------------------

    def detect_raw(self, image_bgr: np.ndarray, everything: bool = True) -> list[RawDetection]:
        """The dice with the models' full opinion (see RawDetection): every candidate, or
        with ``everything=False`` only those at or above the decision threshold or plainly
        a die (the others' colours are then not measured)."""
        image = as_bgr(image_bgr)
        boxes, scores, from_coarse = self._find(image)
        if len(boxes) == 0:
            return []
        crops = self._crops(image, boxes)
        probs = self._classify(crops)
        taught = self.faces.read(crops, probs) if self.faces is not None else [None] * len(probs)
        if self._reader is not None:
            self._reread(image, boxes, probs, taught)
        for k, t in enumerate(taught):  # a face this table taught (or its d10/d20 face the reader chose) is sure
            if t is not None:
                probs[k] = np.eye(probs.shape[1], dtype=probs.dtype)[t[0]]
        # A d10's or d20's confidence is of its kind: its face, spread over 10 or 20 classes,
        # may be unsure (`sure`) while the die is plainly there. A d6's is of its face.
        reading, of_kind = best_readings(probs, self.classes)
        d6 = np.array([self.classes[c][0] == 6 for c in reading])
        confidence = scores * np.where(d6, probs[np.arange(len(probs)), reading], of_kind)
        rank = np.where(1.0 - probs[:, 0] < self.die_threshold, -1.0, confidence)
        nested = _nested(boxes, rank, from_coarse)
        kept = nested & _suppress(boxes, np.where(nested, rank, -1.0))
        kept &= ~_specks(boxes, np.where(kept, rank, -1.0))
        found: list[dict] = []
        for b, sc, p, conf, keep, c in zip(boxes, scores, probs, confidence, kept, reading):
            die_prob = 1.0 - float(p[0])
            if not keep or die_prob < self.die_threshold:
                continue
            faces = p[1:] / max(die_prob, 1e-6)
            k = int(c) - 1
            sides, best = self.classes[k + 1]
            sure = float(faces[k]) >= (self.face_min if sides == 6 else NUMBERED_FACE_MIN)
            face = best if sure else 0
            confidence = float(conf)
            plainly = sc >= PLAIN_DIE_SCORE and die_prob >= PLAIN_DIE_PROB
            if not everything and confidence < self.decision and not plainly:
                continue
            if sides == 6 and best in (1, 2) and _bare_tray(image, b):  # one speck or two
                continue
            if sides == 6 and best in BUTTON_FACES and confidence < ROUND_CONFIDENCE and _round_body(image, b):
                continue  # a button, a coin or a token
            found.append(dict(box=tuple(b.tolist()), face=face, best_face=best, confidence=confidence,
                              det_score=float(sc), die_prob=die_prob, face_probs=tuple(faces.tolist()),
                              sides=sides, sure=sure))
        names = [None] * len(found)
        if self.colours is not None and found:  # the scene's light is estimated once for all its dice
            names = self.colours.name_dice(image, [f["box"] for f in found])
        return [RawDetection(colour=c, **f) for f, c in zip(found, names)]

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        """The dice in a BGR image (any size from 512x384 to 4032x3024 and beyond),
        boxes in the image's own pixels: the candidates at or above the decision threshold,
        and those plainly a die (`PLAIN_DIE_SCORE`)."""
        return [r.detection() for r in self.detect_raw(image_bgr, everything=False)]


def _resized(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """`image` resized so that its longer side is `long_side`, and the factor."""
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    # Area averaging for big reductions only: from 640 px (x0.6) bilinear reads the same
    # (models/MODEL.md) at a sixth of the cost.
    interp = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
    return cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=interp), scale


def _optional(load, path: Path, what: str, without: str):
    """The session `load` makes of the optional reader at `path`; None when there is no such
    file, or (logged: what is read `without` it) when onnxruntime cannot load it or it does
    not read the `CLASSES`."""
    if not path.is_file():
        return None
    try:
        session = load(path)
        n = session.get_outputs()[0].shape[1]
        if n != len(CLASSES):
            raise ValueError(f"{n} outputs, not {len(CLASSES)}")
    except Exception as exc:  # onnxruntime's own errors, or another model: the dice are read without it
        log.warning("%s %s not loaded (%s): %s", what, path, exc, without)
        return None
    log.info("%s: %s", what, path)
    return session


def _side(boxes: np.ndarray) -> np.ndarray:
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def _deep_inside(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[i, j]: the centre of box a[i] lies deep inside box b[j] (within 0.3 of b[j]'s
    width and height of its centre)."""
    ca, cb = (a[:, :2] + a[:, 2:]) / 2, (b[:, :2] + b[:, 2:]) / 2
    return (np.abs(ca[:, None, :] - cb[None, :, :]) < 0.3 * (b[:, 2:] - b[:, :2])[None, :, :]).all(2)


def _one_box_each(boxes: np.ndarray, scores: np.ndarray, coarse: np.ndarray, coarse_scores: np.ndarray,
                  to_main: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A die both passes found (the coarse box's centre deep inside a main-pass box at least
    0.6 of its side) is read once: from the main pass's box, unless the die is bigger than
    the main pass's dice (`MAIN_MAX` pixels at its scale, `to_main` the factor from the
    image's pixels) and the coarse pass is surer of it than of every main box it matches.
    Returns the main and the coarse boxes and scores that remain."""
    if not len(coarse) or not len(boxes):
        return boxes, scores, coarse, coarse_scores
    same = _deep_inside(coarse, boxes) & (_side(boxes)[None, :] >= 0.6 * _side(coarse)[:, None])
    big = _side(coarse) * to_main > MAIN_MAX
    wins = big & same.any(1) & ~(same & (coarse_scores[:, None] <= scores[None, :])).any(1)
    main, whole = ~same[wins].any(0), ~same.any(1) | wins
    return boxes[main], scores[main], coarse[whole], coarse_scores[whole]


def _one_peak_each(boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two peaks for one die (rare): a weaker one whose centre lies deep inside a stronger
    box goes. Boxes come back strongest first."""
    order = np.argsort(-scores)
    boxes, scores = boxes[order], scores[order]
    inside = _deep_inside(boxes, boxes)
    kept = np.zeros(len(scores), bool)
    for i in range(len(scores)):
        kept[i] = not (inside[i, :i] & kept[:i]).any()
    return boxes[kept], scores[kept]


def _nested(boxes: np.ndarray, rank: np.ndarray, from_coarse: np.ndarray) -> np.ndarray:
    """Which boxes to keep where a close-up's whole die (a coarse-pass box) holds the
    centres of main-pass boxes (its pips or faces, or smaller dice): a die holds no other
    die, so either it goes or they do, whichever was read with more confidence (`rank`,
    -1 for "not a die")."""
    keep = np.ones(len(boxes), bool)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    for i in np.nonzero(from_coarse)[0][np.argsort(-rank[from_coarse])]:
        b = boxes[i]
        inner = (~from_coarse & keep & (centres[:, 0] >= b[0]) & (centres[:, 0] <= b[2])
                 & (centres[:, 1] >= b[1]) & (centres[:, 1] <= b[3]))
        if rank[i] >= 0 and (not inner.any() or rank[i] > rank[inner].max()):
            keep &= ~inner
        else:
            keep[i] = False
    return keep


def _specks(boxes: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """Which boxes are specks, not dice: weakly read (confidence under `SPECK_CONFIDENCE`)
    and under `SPECK_SIDE` of the median side of the photo's plainly read dice (confidence
    at least `PLAIN`). The dice of one photo lie at about one distance from the camera; a
    speck of dust or a crumb beside a die is read as a small d6 showing 1 (`confidence` -1:
    not a die)."""
    plain = confidence >= PLAIN
    if not plain.any():
        return np.zeros(len(boxes), bool)
    side = _side(boxes)
    return (confidence >= 0) & (confidence < SPECK_CONFIDENCE) & (side < SPECK_SIDE * np.median(side[plain]))


@dataclass(frozen=True)
class TrayAround:
    """A box and its surroundings (a square twice its side) in CIELAB (`lab`), with masks
    of the box (`inside`) and of the square's outer quarter (`ring`, which gives the tray's
    colour and noise), of what differs from that colour by more than the noise (`unlike`,
    at least 10 units), and whether the tray is `flat`: its noise under `BARE_NOISE` and
    under 0.1 of the ring unlike it (no die or pattern beside the box)."""
    lab: np.ndarray
    inside: np.ndarray
    ring: np.ndarray
    unlike: np.ndarray
    flat: bool


def _tray_around(image: np.ndarray, box, px: int) -> TrayAround | None:
    """The `TrayAround` of `box`, measured at `px` pixels per box side; None where too
    little of the box or of its surroundings is in the image."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 1.0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ax0, ay0 = int(max(0, cx - side)), int(max(0, cy - side))
    ax1, ay1 = int(min(w, cx + side)), int(min(h, cy + side))
    k = px / side
    size = (max(2, round((ax1 - ax0) * k)), max(2, round((ay1 - ay0) * k)))
    lab = cv2.cvtColor(cv2.resize(image[ay0:ay1, ax0:ax1], size, interpolation=cv2.INTER_AREA),
                       cv2.COLOR_BGR2LAB).astype(np.float32)
    xs = ((np.arange(size[0]) + 0.5) * (ax1 - ax0) / size[0] + ax0 - cx) / side
    ys = ((np.arange(size[1]) + 0.5) * (ay1 - ay0) / size[1] + ay0 - cy) / side
    ring = np.maximum(np.abs(xs)[None, :], np.abs(ys)[:, None]) > 0.75
    inside = (np.abs(xs)[None, :] <= (x1 - x0) / (2 * side)) & (np.abs(ys)[:, None] <= (y1 - y0) / (2 * side))
    if ring.sum() < px * px // 50 or inside.sum() < px * px // 50:
        return None
    tray = np.median(lab[ring], 0)
    distance = np.linalg.norm(lab - tray, axis=2)
    noise = float(np.median(distance[ring]))
    unlike = distance > max(10.0, 3.0 * noise)
    return TrayAround(lab, inside, ring, unlike, noise < BARE_NOISE and unlike[ring].mean() <= 0.1)


def _bare_tray(image: np.ndarray, box) -> bool:
    """A box on a flat, dark tray holding hardly anything but that tray: a white speck of
    dust the detector boxed as a d6 showing 1 or 2. Measured at 32 px per box side
    (`_tray_around`): the box is bare when under `BARE_BODY` of it differs from the tray.
    A crowded or textured tray (a die or a pattern beside the box) or a light one never
    makes a box bare."""
    t = _tray_around(image, box, 32)
    return bool(t is not None and t.flat and np.median(t.lab[t.ring][:, 0]) < BARE_DARK
                and t.unlike[t.inside].mean() < BARE_BODY)


def _round_body(image: np.ndarray, box) -> bool:
    """A box on a flat tray whose body is a disc. The body is the largest patch unlike the
    tray (at 64 px per box side: `_tray_around`) whose middle lies in the box, and it must
    cover `ROUND_BODY` of the box (not a pip or a speck on it); it is a disc when its
    outline's intersection over union with the ellipse fitted to it is at least `ROUND`. A
    die seen from above is a square with rounded corners (at most 0.965 on the real photos
    measured), a button, coin or token a disc (0.97-0.99); a busy tray, told at 16 px per
    box side first, is never measured."""
    glance = _tray_around(image, box, 16)  # a busy tray is told from a sixteenth of the pixels
    if glance is None or not glance.flat:
        return False
    t = _tray_around(image, box, 64)
    if t is None or not t.flat:
        return False
    inside = t.inside
    _, labels, stats, middles = cv2.connectedComponentsWithStats(t.unlike.astype(np.uint8))
    rows, cols = np.nonzero(inside)
    in_box = ((middles[:, 0] >= cols.min()) & (middles[:, 0] <= cols.max())
              & (middles[:, 1] >= rows.min()) & (middles[:, 1] <= rows.max()))
    areas = np.where(in_box, stats[:, cv2.CC_STAT_AREA], 0)
    areas[0] = 0  # the tray
    if areas.max() < ROUND_BODY * inside.sum():
        return False
    body = (labels == int(np.argmax(areas))).astype(np.uint8)
    outline = max(cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=cv2.contourArea)
    if len(outline) < 5:
        return False
    filled, ellipse = np.zeros_like(body), np.zeros_like(body)
    cv2.drawContours(filled, [outline], -1, 1, -1)
    cv2.ellipse(ellipse, cv2.fitEllipse(outline), 1, -1)
    return bool((filled & ellipse).sum() >= ROUND * max(int((filled | ellipse).sum()), 1))


def _suppress(boxes: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """Which boxes to keep: of two boxes overlapping by `OVERLAP` (intersection over union)
    or more, the less confident goes (a die found twice, e.g. its top and a side face)."""
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    w = np.clip(np.minimum(boxes[:, None, 2], boxes[:, 2]) - np.maximum(boxes[:, None, 0], boxes[:, 0]), 0, None)
    h = np.clip(np.minimum(boxes[:, None, 3], boxes[:, 3]) - np.maximum(boxes[:, None, 1], boxes[:, 1]), 0, None)
    inter = w * h
    iou = inter / np.maximum(area[:, None] + area - inter, 1e-6)
    beats = (iou >= OVERLAP) & (confidence[None, :] < confidence[:, None])  # row i drops column j
    keep = np.ones(len(boxes), bool)
    for i in np.argsort(-confidence):
        if keep[i]:
            keep &= ~beats[i]
    return keep


def as_bgr(image: np.ndarray) -> np.ndarray:
    """`image` as the detector reads it (HxWx3 BGR uint8; grey and BGRA converted). Raises
    TypeError for an array that is not uint8, ValueError for one that is no photo of dice
    (not 2 or 3 dimensions of 1, 3 or 4 channels, or under 16 px on a side)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise TypeError("detect() takes a uint8 numpy image (BGR, as cv2.imread gives)")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected an HxWx3 BGR image, got shape {image.shape}")
    if min(image.shape[:2]) < 16:
        raise ValueError(f"image of {image.shape[1]}x{image.shape[0]} px is too small to hold dice")
    return image


def _default_colours():
    """The colour engineer's default table, or None while vision.colours has none yet."""
    try:
        from vision.colours import ColourTable
    except ImportError:
        return None
    return ColourTable.default()
