"""Every game with dice, played through the demo's camera with the shipped models: the demo
throws onto the synthetic tray, the real detector reads the frames, the settler settles
them and the table applies what it read. Each kind of throw the games ask for goes through
the camera: a group's throw (ALEA, the Die-angler), single throws of several seats at once
each claimed by its thrower (Chiritsumo, 40 dice on the tray), a throw of every die (Ari
Express), a rethrow of picked-up dice (the Die-angler) and a pyramid laid out and read with
"Read my layout" (Chiritsumo). Skipped when the models are missing.

What the players would do by hand is done here too: a d10 or d20 the camera is unsure of is
typed by its owner, and a throw the camera misread is applied as thrown; each test checks
that its throws of each kind were read by the camera all the same."""
from __future__ import annotations

import random

import pytest

from pi import inputs
from pi.table import Table
from vision.camera import SyntheticTable
from vision.settle import Settler

from tests.pi.conftest import wait_until

NAMES = ["Aki", "Ben", "Chie", "Dai"]
COLOURS = ["red", "blue", "green", "yellow"]


@pytest.fixture(scope="module")
def detector():
    pytest.importorskip("onnxruntime")
    from vision.detector import Detector, ModelMissingError

    try:
        return Detector()
    except ModelMissingError as exc:
        pytest.skip(f"the dice models are missing: {exc}")


class Play:
    """A started table on the synthetic tray with the real detector, and a player's hands."""

    def __init__(self, config, store, detector, game: str, players: int, seed: int) -> None:
        self.synthetic = SyntheticTable(seed=seed, tumble_frames=3)
        self.table = Table(config, store, camera=self.synthetic, detector=detector, settler=Settler(),
                           synthetic=self.synthetic, frame_interval=0.0, rng=random.Random(seed))
        seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]
        assert self.table.start_game(game, seats, {}, seed=seed)["ok"]
        self.rng = random.Random(seed)
        self.read: list[str] = []  # the kinds of throw the camera read
        self.table.start()

    def events(self) -> list[dict]:
        return self.table.store.events(self.table.record.id)

    def wait_until(self, predicate, limit: int = 400) -> None:
        wait_until(self.table, predicate, limit, timeout=30)

    def through_camera(self, kind: str, do) -> dict:
        """A demo hand whose dice the camera must read; what a player does when it cannot
        (type an unsure d10 or d20, apply a misread throw as thrown). The new event."""
        t = self.table
        before = len(self.events())
        result = do()
        assert result["ok"], result
        self.wait_until(lambda: len(self.events()) > before or t.prompt is not None or t.pending is not None)
        if t.pending is not None:  # the owners type the d10 and d20 the camera is unsure of
            thrown = next(v for v in t.demo._thrown[2].values()
                          if isinstance(v, list) and v and isinstance(v[0], dict))  # the dice, not `picked`
            for seat, missing in list(t.pending["missing"].items()):
                pool = list(thrown)
                faces = []
                for colour, sides in missing:
                    die = next(d for d in pool if d["colour"] == colour and d.get("sides", 6) == sides)
                    pool.remove(die)
                    faces.append(die["face"])
                t.type_faces(seat, faces)
        elif len(self.events()) == before:
            assert t.demo.apply_thrown()["ok"], t.prompt  # misread: applied as thrown
            return self.events()[-1]
        assert len(self.events()) > before, t.prompt
        self.read.append(kind)
        return self.events()[-1]

    def other_step(self) -> None:
        """One input without dice, with plausible values (a player's choice)."""
        t = self.table
        todo = [i for i in t.expects_now()["inputs"] if not inputs.dice_field(i)]
        self.rng.shuffle(todo)
        for inp in todo:
            for _ in range(25):
                values = inputs.sample_values(inp, self.rng)
                seat = self.rng.choice(inp["seats"]) if inp["seats"] else None
                if t.act(seat, inp["type"], values)["ok"]:
                    return
        raise AssertionError(f"no input was accepted: {t.expects_now()}")

    def throws_due(self) -> list[dict]:
        return [i for i in inputs.throw_inputs(self.table.expects_now()) if i.get("camera") != "rethrown"]


@pytest.fixture
def play(config, store, detector):
    made: list[Play] = []

    def start(game: str, players: int, seed: int) -> Play:
        made.append(Play(config, store, detector, game, players, seed))
        return made[-1]

    yield start
    for p in made:
        p.table.stop()


def test_alea_group_throws(play):
    p = play("alea", 3, 4)
    for _ in range(80):
        if p.read.count("group") >= 2 or not p.table.expects_now()["inputs"]:
            break
        due = p.throws_due()
        if due:
            assert due[0].get("together")
            event = p.through_camera("group", p.table.demo.throw)
            assert event["type"] == "throw"
        else:
            p.other_step()
    assert p.read.count("group") >= 2


def test_dieangler_group_throw_then_a_rethrow(play, config):
    p = play("dieangler", 2, 1)
    t = p.table
    for seat in ("Aki", "Ben"):  # three d6 and the d10 each, the d10 to re-approach
        assert t.act(seat, "choose", {"d6": 3, "special": ["d10"]})["ok"]
    for seat in ("Aki", "Ben"):
        assert t.act(seat, "uses", {"d10": "reapproach"})["ok"]
    event = p.through_camera("group", t.demo.throw)
    assert event["type"] == "throw" and len(event["dice"]) == 8
    on_tray = p.synthetic.dice
    event = p.through_camera("rethrow", lambda: t.demo.rethrow("Aki"))  # some of its d6, picked at random
    assert event["type"] == "rethrow" and event["seat"] == "Aki"
    assert {d["colour"] for d in event["dice"]} == {"red"} and len(event["picked"]) == len(event["dice"])
    moved = [b for b, a in zip(on_tray, p.synthetic.dice) if b != a]
    assert sorted(event["picked"]) == sorted(d[1] for d in moved)
    assert p.read == ["group", "rethrow"]


def legal_pyramid(dice: list[dict], sizes: list[int]) -> list[list]:
    """A pyramid the rules allow, built greedily: side by side at most 1 apart, a die only
    on two dice and no higher than the lower of them."""
    left = sorted(dice, key=lambda d: d["face"])
    rows: list[list] = []
    below = None
    for n in sizes:
        row: list = [None] * n
        for i in range(n):
            if below is not None and (below[i] is None or below[i + 1] is None):
                continue
            cap = 6 if below is None else min(below[i]["face"], below[i + 1]["face"])
            prev = row[i - 1] if i else None
            fits = [d for d in left if d["face"] <= cap and (prev is None or abs(d["face"] - prev["face"]) <= 1)]
            if below is None and prev is None:  # start the bottom row where most faces lie close
                fits.sort(key=lambda d: -sum(abs(e["face"] - d["face"]) <= 1 for e in left))
            if fits:
                row[i] = fits[0] if below is None else max(fits, key=lambda d: d["face"])
                left.remove(row[i])
        rows.append(row)
        below = row
    return [[[d["colour"], d["face"]] if d else None for d in row] for row in rows]


def test_chiritsumo_four_seats_throw_forty_dice_and_their_pyramids_are_read(play):
    p = play("chiritsumo", 4, 2)
    t = p.table
    for seat in ("Dai", "Chie", "Ben", "Aki"):  # each throws in turn, the table told whose dice landed
        event = p.through_camera("single", lambda: t.demo.throw(seat))
        assert event["type"] == "throw" and event["seat"] == seat and len(event["dice"]) == 10
    assert len(p.synthetic.dice) == 40
    built = 0
    for seat in NAMES:
        inp = next(i for i in t.expects_now()["inputs"] if i["seats"] == [seat] and i["type"] != "throw")
        field = next(f for f in inp["fields"] if f["kind"] == "layout")
        rows = legal_pyramid(field["dice"], field["rows"])
        for _ in range(2):  # a die the camera cannot read: the player lays them out again
            seen = t.last_roll
            assert t.demo.lay_out(seat, {field["name"]: rows})["ok"]
            laid = sorted((d[0], d[1]) for d in p.synthetic.dice)
            p.wait_until(lambda: t.last_roll is not seen)
            assert sorted((d.colour, d.face) for d in t.last_roll) == laid
            result = t.read_layout(seat)
            if result["ok"] or "cannot read" not in result["error"]["en"]:
                break
        assert result["ok"], result
        read = [[d and [d["colour"], d["face"]] for d in row] for row in p.events()[-1][field["name"]]]
        assert read == rows
        built += 1
    assert built == 4 and p.read == ["single"] * 4


def test_ariexpress_throw_of_every_die(play):
    p = play("ariexpress", 3, 1)
    (due,) = p.throws_due()
    assert due["camera"] == "all"
    event = p.through_camera("all", p.table.demo.throw)
    assert event["type"] == "throw" and event["seat"] == due["seats"][0]
    assert len(event["dice"]) == due["dice"][0]["count"] == len(p.synthetic.dice)
    assert p.read == ["all"]
