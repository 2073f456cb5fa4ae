"""`dicetable replay` and `dicetable odds`, through pi.cli.main."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engines
from pi.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "alea.jsonl"
HEADER = {
    "game": "alea",
    "seats": [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}, {"name": "Cy", "colour": "green"}],
    "options": {"cards": [{"id": "X1", "players": [3], "condition": "1 1 1"}]},
    "seed": 7,
}


def write_script(tmp_path: Path, *lines: object) -> str:
    path = tmp_path / "game.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n", encoding="utf-8"
    )
    return str(path)


def strict_json(line: str) -> object:
    """``json.loads`` that takes only strict JSON: no NaN or Infinity."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(line, parse_constant=refuse)


def output_lines(capsys) -> list[dict]:
    return [strict_json(line) for line in capsys.readouterr().out.splitlines()]


def test_replay_of_the_shipped_example_prints_the_expected_final_scores(capsys):
    assert main(["replay", str(EXAMPLE)]) == 0
    lines = output_lines(capsys)
    assert all(line["accepted"] for line in lines[:-1])
    final = lines[-1]["final"]
    assert final["scores"] == {"Aki": 11, "Ben": 0, "Chika": 7, "Dan": 11}
    assert final["winner"] == "Aki"
    assert final["phase"] == "over" and final["round"] == 4


# --- games worked out by hand from docs/rules/alea.md ------------------------------------------

COLOURS = {"Aki": "red", "Ben": "blue", "Cy": "green", "Dee": "yellow"}


def d(seat: str, *faces: int) -> list[dict]:
    return [{"colour": COLOURS[seat], "face": f} for f in faces]


def declare(**values: int) -> list[dict]:
    return [{"type": "declare", "seat": seat, "value": v} for seat, v in values.items()]


def throw(*dice: list[dict], seat: str | None = None) -> list[dict]:
    event = {"type": "throw", "dice": [die for part in dice for die in part]}
    return [event | {"seat": seat}] if seat else [event]


def card(card_id: str) -> list[dict]:
    return [{"type": "card", "card": card_id}]


def replay_lines(tmp_path, capsys, header: dict, events: list[dict]) -> list[dict]:
    assert main(["replay", write_script(tmp_path, header, *events)]) == 0
    return output_lines(capsys)


def test_hand_worked_3_player_game_with_the_physical_deck(tmp_path, capsys):
    header = {
        "game": "alea",
        "seats": [{"name": n, "colour": COLOURS[n]} for n in ("Aki", "Ben", "Cy")],
        "options": {
            "deck": "physical",
            "cards": [
                {"id": "P", "condition": "1 1"},
                {"id": "S", "condition": "total >= 20"},
                {"id": "L", "condition": "A A A"},
            ],
        },
        "seed": 0,
    }
    events = (
        # 1, total >= 20: Aki 6 5 (11) safe +2; Ben 4 1 2 (18) safe +3.            2 3 0
        card("S") + declare(Aki=2, Ben=3, Cy=0) + throw(d("Aki", 6, 5)) + throw(d("Ben", 4, 1, 2))
        # 2, 1 1: Aki and Ben (the first group) throw two 1s; Cy declared 4: nobody scores.
        + card("P") + declare(Aki=1, Ben=1, Cy=4) + throw(d("Aki", 1), d("Ben", 1))
        # 3, A A A: Ben 5 5 safe +2; Cy 5 2 3 makes three 5s; Cy's escape 1 2 3 4 6 +3;
        # Aki's 0 scores nothing (the trap was not the first group's).                 2 5 3
        + card("L") + declare(Aki=0, Ben=2, Cy=3) + throw(d("Ben", 5, 5)) + throw(d("Cy", 5, 2, 3))
        + throw(d("Ben", 1, 2), d("Cy", 3, 4, 6))
        # 4, total >= 20 (every card used: any may come again): Cy 6 +1; Aki and Ben
        # reach 26; Aki (2) escapes before Ben (5) with seven 1s, +3; Ben's 27 fails.   5 5 4
        + card("S") + declare(Aki=3, Ben=3, Cy=1) + throw(d("Cy", 6)) + throw(d("Aki", 6, 6, 1), d("Ben", 2, 2, 3))
        + throw(d("Aki", 1, 1, 1), d("Ben", 1, 1, 1), d("Cy", 1))
        + throw(d("Aki", 6, 6, 6), d("Ben", 6, 1, 1), d("Cy", 1))
        # 5: everyone declares 0: nobody scores.
        + card("P") + declare(Aki=0, Ben=0, Cy=0)
        # 6, A A A: ten dice with no triple, +5 each: 10 10 4, below 12 with 3 players.
        + card("L") + declare(Aki=5, Ben=5, Cy=0) + throw(d("Aki", 1, 2, 3, 4, 5), d("Ben", 6, 6, 5, 4, 3))
        # 7, total >= 20: Ben 6 +1, Aki 6 6 (18) +2, Cy's five 1s make 23; Cy's escape,
        # eight 1s, +5. Aki has 12: the next round is the last.                       12 11 9
        + card("S") + declare(Aki=2, Ben=1, Cy=5) + throw(d("Ben", 6)) + throw(d("Aki", 6, 6))
        + throw(d("Cy", 1, 1, 1, 1, 1)) + throw(d("Aki", 1, 1), d("Ben", 1), d("Cy", 1, 1, 1, 1, 1))
        # 8 (last, double), 1 1: Aki 1 safe +2; Cy 1 4 trapped, the escape 1 1 3 fails.  14 11 9
        + card("P") + declare(Aki=1, Ben=0, Cy=2) + throw(d("Aki", 1)) + throw(d("Cy", 1, 4))
        + throw(d("Aki", 1), d("Cy", 1, 3))
    )
    lines = replay_lines(tmp_path, capsys, header, events)
    assert [line["line"] for line in lines[:-1] if not line["accepted"]] == []
    final = lines[-1]["final"]
    assert final["scores"] == {"Aki": 14, "Ben": 11, "Cy": 9}
    assert final["winner"] == "Aki" and final["round"] == 8 and final["phase"] == "over"


def test_hand_worked_4_player_game_with_refused_events_and_a_repeated_tie_break(tmp_path, capsys):
    header = {
        "game": "alea",
        "seats": ["Aki", "Ben", "Cy", "Dee"],
        "colours": ["red", "blue", "green", "yellow"],
        "options": {"cards": [{"id": "K", "condition": "6"}]},
        "seed": 5,
    }
    ten = lambda ones, seat=None: throw([{"colour": "white", "face": 1}] * ones + [{"colour": "white", "face": 5}] * (10 - ones), seat=seat)  # noqa: E731
    events = (
        # 1: Aki and Ben throw ten dice, no 6: +5 each.                                5 5 0 0
        declare(Aki=5, Ben=5, Cy=0, Dee=0) + throw(d("Aki", 1, 2, 3, 4, 5), d("Ben", 1, 2, 3, 4, 5))
        # 2: Ben declares twice (refused); Dee throws two dice for 1 (refused), then a 6:
        # the first group is trapped, Cy's 0 scores 3.                                 5 5 3 0
        + declare(Aki=5, Ben=4) + declare(Ben=3) + declare(Cy=0, Dee=1)
        + throw(d("Dee", 6, 6)) + throw(d("Dee", 6))
        # 3: Cy 2 3 +2; Aki and Ben trap (a 6); Aki and Ben tie on 5: seat order. An escape
        # without Cy's dice, and one named for Ben, are refused; Aki escapes (+5), Ben fails.
        + declare(Aki=5, Ben=5, Cy=2, Dee=0) + throw(d("Cy", 2, 3))
        + throw(d("Aki", 1, 1, 1, 1, 1), d("Ben", 2, 2, 2, 2, 6))
        + throw(d("Aki", 1, 1, 1, 1, 1), d("Ben", 2, 2, 2, 2, 2))
        + throw(d("Aki", 1, 1, 1, 1, 1), d("Ben", 2, 2, 2, 2, 2), d("Cy", 3, 3), seat="Ben")
        + throw(d("Aki", 1, 1, 1, 1, 1), d("Ben", 2, 2, 2, 2, 2), d("Cy", 3, 3))
        + throw(d("Aki", 1, 1, 1, 1, 1), d("Ben", 2, 2, 2, 2, 6), d("Cy", 3, 3))
        # Aki has 10: round 4 is the last. Aki throws a 6 first: Ben and Cy score 3 x 2.  10 11 11 0
        + declare(Aki=1, Ben=0, Cy=0, Dee=5) + throw(d("Aki", 6))
        # Tie-break: Cy out of turn (refused); 2 ones each, again; Ben 0, Cy 1: Cy wins.
        + ten(2, "Cy") + ten(2) + ten(2) + ten(0) + ten(1)
        + declare(Aki=1)
    )
    lines = replay_lines(tmp_path, capsys, header, events)
    refused = {line["line"]: line["error"] for line in lines[:-1] if not line["accepted"]}
    assert list(refused) == [9, 12, 20, 21, 29, 34]
    assert refused[9] == "Ben has already declared; a declaration is locked once given"
    assert refused[12] == "expected 1 yellow die (Dee's throw), saw 2 yellow"
    assert refused[20] == (
        "expected 5 red, 5 blue and 2 green dice (Aki's escape: rethrow all 12 dice on the table), saw 5 red and 5 blue"
    )
    assert refused[21].startswith("the throw names Ben, but the table is waiting for 5 red, 5 blue and 2 green dice")
    assert refused[29].startswith("the throw names Cy, but the table is waiting for 10 dice of any colour (Ben's")
    assert refused[34] == "the game is over (Cy won); no event is expected"
    final = lines[-1]["final"]
    assert final["scores"] == {"Aki": 10, "Ben": 11, "Cy": 11, "Dee": 0}
    assert final["winner"] == "Cy" and final["round"] == 4 and final["phase"] == "over"


DOC = EXAMPLE.parents[1] / "replay.md"


def doc_blocks(fence: str, section: str) -> list[str]:
    """The lines of the ``fence`` code blocks of one section of docs/replay.md."""
    text = DOC.read_text(encoding="utf-8").split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [line for block in re.findall(rf"```{fence}\n(.*?)```", text, re.S) for line in block.splitlines()]


def test_the_documented_walk_through_replays_with_every_event_type_and_the_stated_result(tmp_path, capsys):
    script = doc_blocks("jsonl", "ALEA events, by example")
    types = [json.loads(line).get("type") for line in script[1:]]
    assert set(types) == {"card", "declare", "throw"}
    assert main(["replay", write_script(tmp_path, *script)]) == 0
    lines = output_lines(capsys)
    assert all(line["accepted"] for line in lines[:-1])
    final = lines[-1]["final"]
    assert final["scores"] == {"Aki": 5, "Ben": 7, "Chika": 7} and final["winner"] == "Chika"
    assert final["tiebreak"]["ones"] == {"Ben": 0, "Chika": 1}


def test_the_documented_output_is_what_replay_prints(tmp_path, capsys):
    script = doc_blocks("jsonl", "ALEA events, by example")
    shown = doc_blocks("json", "The output")
    refused = [
        {"type": "declare", "seat": "Chika", "value": 3},
        {"type": "throw", "dice": [{"colour": "blue", "face": 1}, {"colour": "blue", "face": 6}]},
    ]
    assert main(["replay", write_script(tmp_path, *script[:5], *refused)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:6] == shown[:6]
    assert main(["replay", write_script(tmp_path, *script)]) == 0
    documented = json.loads(" ".join(shown[6:]).replace(", ...]", "]"))["final"]
    final = output_lines(capsys)[-1]["final"]
    assert documented["log"] == final["log"][:1]
    assert {k: v for k, v in documented.items() if k != "log"} == {k: v for k, v in final.items() if k != "log"}


def test_replay_prints_one_line_per_event_with_refusals_and_their_reasons(tmp_path, capsys):
    script = write_script(
        tmp_path,
        "# a comment, then a blank line",
        "",
        HEADER,
        {"type": "declare", "seat": "Aki", "value": 1},
        {"type": "declare", "seat": "Aki", "value": 2},
        {"type": "declare", "seat": "Ben", "value": 2},
        {"type": "declare", "seat": "Cy", "value": 0},
        {"type": "throw", "dice": [{"colour": "red", "face": 1}, {"colour": "red", "face": 1}]},
        {"type": "throw", "dice": [{"colour": "red", "face": 1}]},
        {"type": "throw", "dice": [{"colour": "blue", "face": 2}, {"colour": "blue", "face": 3}]},
    )
    assert main(["replay", script]) == 0
    lines = output_lines(capsys)
    assert [(line.get("line"), line.get("accepted")) for line in lines[:-1]] == [
        (4, True),
        (5, False),
        (6, True),
        (7, True),
        (8, False),
        (9, True),
        (10, True),
    ]
    assert lines[1]["error"] == "Aki has already declared; a declaration is locked once given"
    assert lines[4]["error"] == "expected 1 red die (Aki's throw), saw 2 red"
    assert lines[0]["event"] == {"type": "declare", "seat": "Aki", "value": 1}
    final = lines[-1]["final"]
    assert final["scores"] == {"Aki": 1, "Ben": 2, "Cy": 0}
    assert final["round"] == 2 and final["phase"] == "declare" and final["winner"] is None


def test_replay_reads_standard_input(monkeypatch, capsys):
    script = json.dumps(HEADER) + "\n" + json.dumps({"type": "declare", "seat": "Cy", "value": 3}) + "\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["replay", "-"]) == 0
    lines = output_lines(capsys)
    assert lines[0]["accepted"] and lines[1]["final"]["declarations"] is None


def test_replay_with_seat_shows_that_seats_secret(tmp_path, capsys):
    script = write_script(tmp_path, HEADER, {"type": "declare", "seat": "Cy", "value": 3})
    assert main(["replay", script, "--seat", "Cy"]) == 0
    assert output_lines(capsys)[-1]["final"]["mine"]["declaration"] == 3


@pytest.mark.parametrize(
    "lines, message",
    [
        ([HEADER, "{not json"], "line 2: not valid JSON"),
        (['["alea"]'], "line 1: the first line must be an object"),
        ([{"seats": []}], 'the first line has no "game"'),
        ([{"game": "alea"}], 'the first line has no "seats" list'),
        ([{**HEADER, "seed": "x"}], '"seed" must be a whole number'),
        ([{**HEADER, "players": 3}], r"unknown key\(s\) \['players'\]"),
        ([{**HEADER, "game": "chess"}], "unknown game 'chess'"),
        ([{**HEADER, "seats": HEADER["seats"][:2]}], "cannot start a game: this game is for 3 to 5 seats, saw 2"),
        ([{**HEADER, "options": {"fast": True}}], r'unknown option\(s\) \["fast"\]'),
        (["# only a comment"], "the script is empty"),
        (["# a comment", {**HEADER, "game": "chess"}], "line 2: unknown game 'chess'"),
        ([{**HEADER, "seats": ["Aki", "Ben", "Cy"], "colours": ["red", "blue"]}], 'with "colours", give "seats"'),
    ],
)
def test_malformed_script_exits_2_with_a_message(tmp_path, capsys, lines, message):
    assert main(["replay", write_script(tmp_path, *lines)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("dicetable replay: ")
    assert re.search(message, captured.err), captured.err


def test_game_not_implemented_yet_exits_2_with_a_clear_message(tmp_path, capsys):
    missing = [g for g in engines.GAMES if importlib.util.find_spec(f"engines.{g}") is None]
    if not missing:
        pytest.skip("every game has an engine now")
    assert main(["replay", write_script(tmp_path, {**HEADER, "game": missing[0]})]) == 2
    assert f"the {missing[0]} engine is not implemented yet" in capsys.readouterr().err


def test_script_that_is_not_utf8_exits_2_and_a_byte_order_mark_is_fine(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"\xff\xfe" + json.dumps(HEADER).encode())
    assert main(["replay", str(path)]) == 2
    assert "not UTF-8 text" in capsys.readouterr().err
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(HEADER).encode())
    assert main(["replay", str(path)]) == 0
    assert output_lines(capsys)[-1]["final"]["round"] == 1


def test_missing_script_file_or_a_folder_exits_2(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["replay", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"dicetable replay: cannot read {tmp_path}: Is a directory\n"


# --- scripts a fuzzer found: each is answered with one line on stderr and exit 2 -------------

SCRIPT = json.dumps(HEADER)
DECLARE = '{"type": "declare", "seat": "Aki", "value": %s}'


def nested(depth: int) -> str:
    """A comment of lists nested so that, inside its event, the deepest list is ``depth`` deep."""
    return '{"type": "declare", "seat": "Aki", "value": 1, "comment": %s}' % ("[" * (depth - 1) + "]" * (depth - 1))


@pytest.mark.parametrize(
    "lines, message",
    [
        ([SCRIPT, DECLARE % ("9" * 5000)], "line 2: a whole number of 5,000 digits; numbers in a script have at most 100$"),
        ([SCRIPT, DECLARE % ("-" + "9" * 101)], "line 2: a whole number of 101 digits"),
        (["[" * 1000 + "]" * 1000], "line 1: lists and objects nested more than 100 deep"),
        ([SCRIPT, '{"type": "declare", "c": ' + '{"a": ' * 990 + "1" + "}" * 990 + "}"], "line 2: lists and objects nested more than 100 deep"),
        ([SCRIPT, nested(101)], "line 2: lists and objects nested more than 100 deep"),
        ([SCRIPT.replace('"Aki"', '"\\ud800"')], r"line 1: the text holds \\ud800, half of a UTF-16 surrogate pair"),
        ([SCRIPT, '{"type": "declare", "seat": "Aki", "value": 1, "x": [{"\\udfff": 1}]}'], r"line 2: the text holds \\udfff"),
        ([SCRIPT, DECLARE % "NaN"], "line 2: NaN is not a JSON number; write a number"),
        ([SCRIPT, DECLARE % "Infinity"], "line 2: Infinity is not a JSON number"),
        ([SCRIPT, DECLARE % "-Infinity"], "line 2: -Infinity is not a JSON number"),
        ([SCRIPT, DECLARE % "1e400"], "line 2: the number 1e400 is too large"),
        ([SCRIPT, "# " + "x" * 1_000_000], "line 2 is longer than 1,000,000 characters"),
        (['"alea"'], "line 1: the first line must be an object"),
        ([{**HEADER, "seats": [1, 2, 3]}], "line 1: the first line cannot start a game: ."),  # the engine's words
        ([{**HEADER, "seed": 2**64}], "line 1: the first line cannot start a game: .*seed"),
        ([{**HEADER, "seed": "x" * 5000}], r'"seed" must be a whole number, saw "x{10,40}\.\.\."$'),
    ],
    ids=["long int", "long negative int", "deep header", "deep event", "101 deep", "surrogate in a name",
         "surrogate in an event's key", "NaN", "Infinity", "-Infinity", "1e400", "long line", "header a string",
         "bad seats", "seed beyond 64 bits", "long bad seed"],
)
def test_a_fuzzed_script_exits_2_with_one_line_of_message(tmp_path, capsys, lines, message):
    assert main(["replay", write_script(tmp_path, *lines)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("dicetable replay: ") and captured.err.count("\n") == 1
    assert re.search(message, captured.err.rstrip("\n")), captured.err[:300]


def test_numbers_and_nesting_at_the_limits_are_read_and_every_line_printed_is_strict_json(tmp_path, capsys):
    big = "9" * 100
    script = write_script(tmp_path, SCRIPT, DECLARE % big, DECLARE % "1e308", nested(100),
                          '{"type": "declare", "seat": "Ben", "value": 2, "comment": "\\ud83c\\udfb2 ok"}')
    assert main(["replay", script]) == 0
    lines = output_lines(capsys)  # strict: a NaN or Infinity would fail here
    assert [(line["line"], line["accepted"]) for line in lines[:-1]] == [(2, False), (3, False), (4, True), (5, True)]
    assert lines[0]["event"]["value"] == int(big) and lines[1]["event"]["value"] == 1e308
    assert lines[3]["event"]["comment"] == "\N{GAME DIE} ok"


def test_a_line_that_is_not_utf8_is_named(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_bytes(SCRIPT.encode() + b"\n# caf\xe9\n")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == "dicetable replay: line 2 is not UTF-8 text; save the script as UTF-8\n"


def run_command(*args: str, stdin: bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from pi.cli import main; sys.exit(main(sys.argv[1:]))",
                           *args], input=stdin, capture_output=True, timeout=60, env={**os.environ, **(env or {})})


def test_standard_input_is_read_as_utf8_bytes_and_the_output_is_utf8_whatever_the_locale():
    script = SCRIPT.encode() + b"\n" + DECLARE.encode() % b"7" + b"\n"
    done = run_command("replay", "-", stdin=script, env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr.decode()
    lines = [strict_json(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert lines[0]["accepted"] is False and not done.stdout.isascii()  # the log's Japanese, in UTF-8
    done = run_command("replay", "-", stdin=script + b'{"comment": "\xff"}\n', env={"LC_ALL": "C"})
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == "dicetable replay: line 3 is not UTF-8 text; save the script as UTF-8\n"


def test_odds_for_one_card_prints_exact_and_decimal_probabilities(capsys):
    assert main(["odds", "--card", "T15", "--max", "3"]) == 0
    out = capsys.readouterr().out
    assert "T15" in out and "count(3) == 2/4" in out
    assert "   2  0.027778  1/36" in out  # two dice: both 3s
    assert "   3  0.069444  5/72" in out


def test_odds_table_for_a_player_count(capsys):
    assert main(["odds", "--players", "5"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("dice"))
    assert "T09" in header and "T06" not in header  # T06 is a 3-player card
    assert len([line for line in out.splitlines() if line[:4].strip().isdigit()]) == 26


def test_odds_json(capsys):
    assert main(["odds", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == list(range(26))
    assert len(data["cards"]) == 22
    t01 = next(c for c in data["cards"] if c["id"] == "T01")
    assert t01["odds"][3] == pytest.approx(1 / 216) and t01["exact"][3] == "1/216"


def test_odds_of_an_unknown_card_exits_2(capsys):
    assert main(["odds", "--card", "T99"]) == 2
    assert "no card 'T99'" in capsys.readouterr().err


def test_a_reader_that_went_away_stops_the_command_without_a_traceback():
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)  # like `dicetable odds | head` once head has quit
    try:
        done = subprocess.run([sys.executable, "-c", "import sys; from pi.cli import main; sys.exit(main(['odds']))"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr
    assert done.returncode == 141


def test_replay_whose_reader_leaves_after_one_line_exits_141(tmp_path):
    # `dicetable replay long.jsonl | head -1`: the reader goes while replay is still writing.
    script = tmp_path / "long.jsonl"
    header = {"game": "alea", "seats": ["Aki", "Ben", "Cy"], "colours": ["red", "blue", "green"]}
    script.write_text("\n".join([json.dumps(header)] + ['{"type": "bogus"}'] * 5000) + "\n")
    child = subprocess.Popen([sys.executable, "-c", "import sys; from pi.cli import main; sys.exit(main(sys.argv[1:]))",
                              "replay", str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert json.loads(child.stdout.readline())["accepted"] is False
    child.stdout.close()
    assert child.wait(timeout=60) == 141
    assert b"Traceback" not in child.stderr.read()
    child.stderr.close()


def test_a_full_disk_or_ctrl_c_ends_a_command_with_a_message_not_a_traceback(monkeypatch, capsys):
    import pi.replay

    if os.path.exists("/dev/full"):  # Linux
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-c", "import sys; from pi.cli import main; sys.exit(main(['odds']))"],
                                  stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        assert done.returncode == 1 and "No space left on device" in done.stderr and "Traceback" not in done.stderr

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(pi.replay, "play_script", interrupted)
    assert main(["replay", "-"]) == 130 and "Traceback" not in capsys.readouterr().err
