"""`dicetable replay` and `dicetable odds`, through pi.cli.main."""
from __future__ import annotations

import importlib.util
import io
import json
import re
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


def output_lines(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_replay_of_the_shipped_example_prints_the_expected_final_scores(capsys):
    assert main(["replay", str(EXAMPLE)]) == 0
    lines = output_lines(capsys)
    assert all(line["accepted"] for line in lines[:-1])
    final = lines[-1]["final"]
    assert final["scores"] == {"Aki": 11, "Ben": 0, "Chika": 7, "Dan": 11}
    assert final["winner"] == "Aki"
    assert final["phase"] == "over" and final["round"] == 4


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
        ([{**HEADER, "options": {"fast": True}}], r"unknown option\(s\) \['fast'\]"),
        (["# only a comment"], "the script is empty"),
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


def test_missing_script_file_exits_2(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


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
