"""Settling and identity on synthetic frame sequences (lists of Detection)."""
from __future__ import annotations

import itertools
import random

import pytest

from vision.detector import Detection
from vision.settle import Roll, Settler, SettleStatus, TrackedDie, _assign

DIE = 40.0  # die size in pixels


def die(x: float, y: float, face: int, colour: str | None = "red", confidence: float = 0.9) -> Detection:
    return Detection(box=(x, y, x + DIE, y + DIE), face=face, confidence=confidence, colour=colour)


def feed(settler: Settler, frames, t0: float = 0.0) -> list[SettleStatus]:
    return [settler.update(frame, t0 + k * 0.1) for k, frame in enumerate(frames)]


def rolls(statuses: list[SettleStatus]) -> list[Roll]:
    return [s.roll for s in statuses if s.roll is not None]


def by_place(roll: Roll) -> dict[tuple[float, float], TrackedDie]:
    return {(d.box[0], d.box[1]): d for d in roll.dice}


def tumbling(rng: random.Random, n: int, count: int, colour: str = "red") -> list[list[Detection]]:
    """Frames of dice bouncing around: places and faces change every frame."""
    return [
        [die(rng.uniform(0, 600), rng.uniform(0, 400), rng.randint(1, 6), colour) for _ in range(count)]
        for _ in range(n)
    ]


def jitter(rng: random.Random, dice: list[Detection], amount: float) -> list[Detection]:
    """The same dice, each moved by up to `amount` of the die's size (detector noise)."""
    out = []
    for d in dice:
        dx, dy = rng.uniform(-amount, amount) * DIE, rng.uniform(-amount, amount) * DIE
        x0, y0, x1, y1 = d.box
        out.append(Detection((x0 + dx, y0 + dy, x1 + dx, y1 + dy), d.face, d.confidence, d.colour))
    return out


THREE = [die(100, 100, 3), die(300, 120, 5), die(200, 300, 1, "blue")]


def test_empty_table_is_empty():
    statuses = feed(Settler(), [[], [], []])
    assert [s.state for s in statuses] == ["empty"] * 3
    assert rolls(statuses) == []


def test_a_throw_settles_into_one_roll():
    rng = random.Random(1)
    frames = tumbling(rng, 6, 3) + [jitter(rng, THREE, 0.03) for _ in range(8)]
    statuses = feed(Settler(settle_frames=3), frames)
    states = [s.state for s in statuses]
    assert states[:8] == ["moving"] * 8  # tumbling, then the first two still frames
    assert states[8:] == ["settled"] * 6
    (roll,) = rolls(statuses)
    assert statuses[8].roll is roll  # reported on the frame that settles, once
    assert roll.t == pytest.approx(0.8)
    assert [d.status for d in roll.dice] == ["new"] * 3
    assert [d.id for d in roll.dice] == sorted(d.id for d in roll.dice)
    faces = roll.faces_by_colour()
    assert sorted(faces) == ["blue", "red"]
    assert sorted(faces["red"]) == [3, 5] and faces["blue"] == [1]
    assert roll.cocked == ()


def test_settle_frames_counts_agreeing_frames():
    settler = Settler(settle_frames=5)
    statuses = feed(settler, [THREE] * 6)
    assert [s.state for s in statuses] == ["moving"] * 4 + ["settled"] * 2
    assert statuses[4].roll is not None and statuses[5].roll is None


def test_noise_below_tolerance_does_not_break_settling():
    rng = random.Random(2)
    # each frame within 0.05 x size of the true place per axis: frames at most 0.14 apart
    frames = [jitter(rng, THREE, 0.05) for _ in range(30)]
    statuses = feed(Settler(move_tolerance=0.15), frames)
    assert [s.state for s in statuses][2:] == ["settled"] * 28
    assert len(rolls(statuses)) == 1


def test_motion_above_tolerance_keeps_it_moving():
    frames = [[die(100 + 10 * k, 100, 3)] for k in range(6)]  # 10 px = 0.25 x size per frame
    statuses = feed(Settler(), frames)
    assert {s.state for s in statuses} == {"moving"}
    assert rolls(statuses) == []


def test_a_slowly_creeping_die_is_not_still():
    # 4 px a frame: each frame is within the tolerance (6 px) of the one before, but the
    # run is compared with its first frame, so the creeping die never settles.
    frames = [[die(100 + 4 * k, 100, 3)] for k in range(12)]
    statuses = feed(Settler(settle_frames=3, move_tolerance=0.15), frames)
    assert {s.state for s in statuses} == {"moving"}


def test_a_face_flicker_resets_settling():
    flicker = [die(100, 100, 3), die(300, 120, 6), die(200, 300, 1, "blue")]
    statuses = feed(Settler(), [THREE, THREE, flicker, THREE, THREE, THREE])
    assert [s.state for s in statuses] == ["moving", "moving", "moving", "moving", "moving", "settled"]


def test_dice_landing_one_by_one():
    a, b = die(100, 100, 4), die(300, 100, 2)
    settler = Settler()
    first = rolls(feed(settler, [[a]] * 4))
    second = rolls(feed(settler, [[a, die(250, 50, 6)], [a, die(280, 90, 1)]] + [[a, b]] * 4, t0=1.0))
    assert len(first) == 1 and len(second) == 1
    (die_a,) = first[0].dice
    assert die_a.status == "new"
    dice = by_place(second[0])
    assert dice[(100, 100)].status == "still" and dice[(100, 100)].id == die_a.id
    assert dice[(300, 100)].status == "new" and dice[(300, 100)].id != die_a.id


def test_one_die_rethrown_keeps_its_id_others_still():
    settler = Settler()
    (before,) = rolls(feed(settler, [THREE] * 3))
    moved = [THREE[0], die(420, 330, 6), THREE[2]]  # the red 5 rethrown elsewhere as a 6
    rng = random.Random(3)
    frames = [[THREE[0], d, THREE[2]] for (d,) in tumbling(rng, 4, 1)] + [moved] * 3
    (after,) = rolls(feed(settler, frames, t0=1.0))
    old, new = by_place(before), by_place(after)
    assert new[(100, 100)].status == "still" and new[(100, 100)].id == old[(100, 100)].id
    assert new[(200, 300)].status == "still" and new[(200, 300)].id == old[(200, 300)].id
    assert new[(420, 330)].status == "rethrown" and new[(420, 330)].id == old[(300, 120)].id
    assert after.removed == ()
    assert [d.id for d in after.dice] == sorted(d.id for d in after.dice)


def test_rethrown_in_place_with_another_face():
    settler = Settler()
    (before,) = rolls(feed(settler, [THREE] * 3))
    flipped = [THREE[0], die(300, 120, 2), THREE[2]]
    (after,) = rolls(feed(settler, [flipped] * 3))
    assert by_place(after)[(300, 120)].status == "rethrown"
    assert by_place(after)[(300, 120)].id == by_place(before)[(300, 120)].id


def test_rethrown_dice_pair_with_the_nearest_of_their_colour():
    settler = Settler()
    reds = [die(100, 100, 1), die(500, 100, 2)]
    (before,) = rolls(feed(settler, [reds] * 3))
    landed = [die(520, 300, 3), die(80, 300, 4)]  # both rethrown; each lands below its old place
    (after,) = rolls(feed(settler, [landed] * 3))
    old, new = by_place(before), by_place(after)
    assert new[(80, 300)].id == old[(100, 100)].id
    assert new[(520, 300)].id == old[(500, 100)].id
    assert {d.status for d in after.dice} == {"rethrown"}


def test_a_die_of_another_colour_is_new_not_rethrown():
    settler = Settler()
    (before,) = rolls(feed(settler, [[die(100, 100, 1, "red")]] * 3))
    (after,) = rolls(feed(settler, [[die(300, 300, 2, "blue")]] * 3))
    (blue,) = after.dice
    assert blue.status == "new" and blue.id != before.dice[0].id
    assert after.removed == (before.dice[0].id,)


def test_unknown_colour_is_never_taken_for_a_rethrown_die():
    settler = Settler()
    feed(settler, [[die(100, 100, 1, None)]] * 3)
    (after,) = rolls(feed(settler, [[die(300, 300, 2, None)]] * 3))
    assert after.dice[0].status == "new"


def test_one_die_cocked_is_flagged_not_guessed():
    settler = Settler(min_confidence=0.6)
    cocked = [die(100, 100, 3), die(300, 120, 0), die(200, 300, 4, "blue", confidence=0.3)]
    (roll,) = rolls(feed(settler, [cocked] * 3))
    dice = by_place(roll)
    assert not dice[(100, 100)].cocked
    assert dice[(300, 120)].cocked and dice[(300, 120)].face == 0
    assert dice[(200, 300)].cocked and dice[(200, 300)].face == 4  # kept as read
    assert {d.box[:2] for d in roll.cocked} == {(300, 120), (200, 300)}
    assert roll.faces_by_colour() == {"red": [3]}


def test_a_d6_read_plainly_is_not_cocked_for_a_low_box_score_alone():
    """A d6 turned 45 degrees fills its square box least, so the detector scores it low
    while the classifier reads its face plainly: it is not flagged for that alone. A face
    read less plainly, an unknown face probability, or a d20 is still flagged."""
    settler = Settler(min_confidence=0.6)
    low = 0.57
    frame = [
        Detection((100, 100, 150, 150), 1, low, "red", face_prob=0.97),  # plain face
        Detection((300, 100, 350, 150), 1, low, "red", face_prob=0.85),  # face in doubt
        Detection((100, 300, 150, 350), 2, low, "red"),  # face probability not known
        Detection((300, 300, 350, 350), 17, low, "red", sides=20, face_prob=0.97),  # not a d6
    ]
    (roll,) = rolls(feed(settler, [frame] * 3))
    dice = by_place(roll)
    assert [dice[p].cocked for p in ((100, 100), (300, 100), (100, 300), (300, 300))] == [False, True, True, True]


def test_a_second_group_of_dice_is_new():
    settler = Settler()
    (first,) = rolls(feed(settler, [THREE] * 3))
    group = THREE + [die(500, 400, 2, "green"), die(560, 300, 6, "red")]
    (second,) = rolls(feed(settler, [group] * 3))
    old, new = by_place(first), by_place(second)
    for place, d in old.items():
        assert new[place].status == "still" and new[place].id == d.id
    assert new[(500, 400)].status == "new" and new[(560, 300)].status == "new"
    assert len({d.id for d in second.dice}) == 5


def test_removed_dice_vanish():
    settler = Settler()
    (first,) = rolls(feed(settler, [THREE] * 3))
    (second,) = rolls(feed(settler, [[THREE[0], THREE[2]]] * 3))
    assert [d.status for d in second.dice] == ["still", "still"]
    assert second.removed == (by_place(first)[(300, 120)].id,)


def test_table_settling_back_into_the_same_layout_reports_nothing():
    settler = Settler()
    feed(settler, [THREE] * 3)
    statuses = feed(settler, [THREE[:1], [], THREE, THREE, THREE])  # a hand over the dice
    assert [s.state for s in statuses] == ["moving", "empty", "moving", "moving", "settled"]
    assert rolls(statuses) == []


def test_an_escape_rethrows_all_dice_keeping_ids():
    settler = Settler()
    (first,) = rolls(feed(settler, [THREE] * 3))
    rethrown = [die(400, 50, 2), die(50, 400, 6), die(500, 250, 4, "blue")]
    (second,) = rolls(feed(settler, [[]] * 2 + [rethrown] * 3))
    assert {d.status for d in second.dice} == {"rethrown"}
    assert {d.id for d in second.dice} == {d.id for d in first.dice}


def test_reset_makes_the_next_landing_new():
    settler = Settler()
    (first,) = rolls(feed(settler, [THREE] * 3))
    settler.reset()
    assert rolls(feed(settler, [THREE] * 3)) == []  # nothing changed on the table
    thrown = [die(400, 50, 2), die(50, 400, 6), die(500, 250, 4, "blue")]
    (second,) = rolls(feed(settler, [thrown] * 3))
    assert {d.status for d in second.dice} == {"new"}
    assert not {d.id for d in second.dice} & {d.id for d in first.dice}


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="settle_frames"):
        Settler(settle_frames=0)
    with pytest.raises(ValueError, match="move_tolerance"):
        Settler(move_tolerance=0)
    with pytest.raises(ValueError, match="min_confidence"):
        Settler(min_confidence=1.5)


def test_assignment_is_optimal():
    rng = random.Random(4)
    for _ in range(200):
        n, m = rng.randint(1, 5), rng.randint(1, 5)
        cost = [[rng.choice([rng.uniform(0, 10), 1e9]) for _ in range(m)] for _ in range(n)]
        pairs = _assign(cost)
        k = min(n, m)
        assert len(pairs) == k
        assert len({i for i, _ in pairs}) == k and len({j for _, j in pairs}) == k
        best = min(
            sum(cost[i][j] for i, j in zip(rows, cols))
            for rows in itertools.permutations(range(n), k)
            for cols in itertools.permutations(range(m), k)
        )
        assert sum(cost[i][j] for i, j in pairs) == pytest.approx(best)


# --- rendered frames through the real detector ----------------------------------------------


@pytest.fixture(scope="module")
def detector():
    from vision.detector import Detector

    return Detector()


def rendered(detector, scenes, seed: int = 0) -> list[list[Detection]]:
    """Detections of frames rendered by vision.synth (camera noise differs per frame)."""
    import numpy as np

    from vision import synth

    rng = np.random.default_rng(seed)
    return [detector.detect(synth.render_table(scene, rng)[0]) for scene in scenes]


def test_rendered_throw_then_one_die_rethrown_then_one_landing(detector):
    rng = random.Random(5)
    table = [("red", 3, 150, 150, 10), ("blue", 5, 400, 200, 30), ("white", 2, 250, 350, 60)]

    def tumbling(dice, n):  # the dice of `dice` hop, turn and show other faces
        return [[(c, rng.randint(1, 6), x + rng.uniform(-60, 60), y + rng.uniform(-60, 60), rng.uniform(0, 90))
                 for c, _, x, y, _ in dice] for _ in range(n)]

    settler = Settler()
    statuses = feed(settler, rendered(detector, tumbling(table, 4) + [table] * 4))
    assert [s.state for s in statuses] == ["moving"] * 6 + ["settled"] * 2
    (first,) = rolls(statuses)
    assert sorted((d.colour, d.face, d.status) for d in first.dice) == [
        ("blue", 5, "new"), ("red", 3, "new"), ("white", 2, "new")]
    ids = {d.colour: d.id for d in first.dice}

    rethrown = [table[0], ("blue", 6, 520, 380, 45), table[2]]
    frames = [[table[0], hop, table[2]] for (hop,) in tumbling([table[1]], 3)] + [rethrown] * 4
    (second,) = rolls(feed(settler, rendered(detector, frames, seed=1), t0=1.0))
    assert {(d.colour, d.face, d.status, d.id) for d in second.dice} == {
        ("red", 3, "still", ids["red"]), ("blue", 6, "rethrown", ids["blue"]),
        ("white", 2, "still", ids["white"])}

    landed = rethrown + [("green", 4, 500, 100, 20)]
    frames = [rethrown + hop for hop in tumbling([landed[3]], 3)] + [landed] * 4
    (third,) = rolls(feed(settler, rendered(detector, frames, seed=2), t0=2.0))
    assert [d.status for d in third.dice] == ["still"] * 3 + ["new"]
    assert (third.dice[-1].colour, third.dice[-1].face) == ("green", 4)
    assert third.cocked == () and third.removed == ()


def test_a_d10_showing_0_is_read_and_stays_the_same_die_when_its_face_is_unsure_in_a_later_roll():
    import dataclasses

    d10 = dataclasses.replace(die(100, 100, 0), sides=10)
    d20 = dataclasses.replace(die(200, 100, 17), sides=20)
    first = rolls(feed(Settler(settle_frames=3), [[d10, d20]] * 4))[-1]
    zero, seventeen = sorted(first.dice, key=lambda d: d.box[0])
    assert (zero.face, zero.sides, zero.cocked, seventeen.sides) == (0, 10, False, 20)
    settler = Settler(settle_frames=3)
    feed(settler, [[d10, d20]] * 4)
    unsure = dataclasses.replace(d10, sure=False)  # the same place, now unreadable: lying still
    seven = dataclasses.replace(die(200, 100, 7), sides=20)  # the same place, another face read: thrown
    again = rolls(feed(settler, [[unsure, seven]] * 4, t0=1.0))[-1]
    by_x = {d.box[0]: d for d in again.dice}
    assert by_x[100].cocked and by_x[100].status == "still" and by_x[200].status != "still"
