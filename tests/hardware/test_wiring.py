"""The wiring guide is made from the config: header pins, grounds, the table and the drawing."""
from __future__ import annotations

from pathlib import Path

import pytest

from hardware import wiring
from pi import config
from pi.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "dicetable.example.toml"


def example_wiring() -> list[wiring.SeatWiring]:
    return wiring.seat_wiring(config.load(EXAMPLE).seats)


@pytest.mark.parametrize("bcm, pin", [(17, 11), (27, 13), (22, 15), (5, 29), (6, 31), (13, 33),
                                      (19, 35), (26, 37), (2, 3), (3, 5), (4, 7), (12, 32),
                                      (16, 36), (20, 38), (21, 40), (14, 8), (18, 12)])
def test_a_bcm_number_maps_to_its_header_pin(bcm, pin):
    assert wiring.header_pin(bcm) == pin


def test_the_header_has_every_gpio_once_and_its_eight_grounds():
    assert wiring.GROUND_PINS == (6, 9, 14, 20, 25, 30, 34, 39)
    assert sorted(wiring.BCM_TO_PIN) == list(range(28))
    assert len(set(wiring.BCM_TO_PIN.values())) == 28


def test_a_number_off_the_header_is_refused_with_the_range():
    with pytest.raises(ValueError, match="BCM number 2 to 27"):
        wiring.header_pin(28)


def test_each_seat_gets_a_ground_pin_of_its_own_near_its_pins():
    rows = example_wiring()
    assert [(w.name, w.button_pin, w.led_pin) for w in rows] == [
        ("Aki", 29, 32), ("Ben", 31, 36), ("Chie", 33, 38), ("Dai", 35, 40)]
    grounds = [w.ground_pin for w in rows]
    assert len(set(grounds)) == len(grounds)
    assert all(g in wiring.GROUND_PINS for g in grounds)
    # No seat's wires reach further along the header than four rows from its ground.
    for w in rows:
        for pin in (w.button_pin, w.led_pin):
            assert abs((pin - 1) // 2 - (w.ground_pin - 1) // 2) <= 4, w


def test_eight_seats_use_all_eight_grounds_and_a_ninth_is_refused():
    pins = [(2, 3), (4, 17), (27, 22), (10, 9), (11, 5), (6, 13), (19, 26), (12, 16)]
    seats = [config.SeatConfig(f"S{i}", "red", b, led) for i, (b, led) in enumerate(pins)]
    assert sorted(w.ground_pin for w in wiring.seat_wiring(seats)) == list(wiring.GROUND_PINS)
    with pytest.raises(ValueError, match="8 ground pins"):
        wiring.seat_wiring([*seats, config.SeatConfig("S8", "blue", 20, 21)])


def test_the_led_resistor_follows_the_leds_voltage():
    assert wiring.led_resistor("red") == wiring.led_resistor("yellow") == "330 Ω"
    assert wiring.led_resistor("blue") == wiring.led_resistor("white") == "100 Ω"


def test_the_committed_drawing_is_the_example_configs():
    committed = (ROOT / "hardware" / "wiring.svg").read_text(encoding="utf-8")
    assert committed == wiring.svg(example_wiring()), (
        "hardware/wiring.svg is stale: run `dicetable wiring --config dicetable.example.toml "
        "--svg hardware/wiring.svg`")


def test_the_readme_table_is_the_example_configs():
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert wiring.table(example_wiring()) in readme, (
        "hardware/README.md's wiring table is stale: paste `dicetable wiring --config "
        "dicetable.example.toml`")


def test_the_drawing_names_every_seats_pins():
    drawing = wiring.svg(example_wiring())
    assert drawing.startswith("<svg ")
    for w in example_wiring():
        assert f"pin {w.button_pin} GPIO{w.button_bcm}" in drawing
        assert f"pin {w.led_pin} GPIO{w.led_bcm}" in drawing
        assert f"pin {w.ground_pin} GND" in drawing


def test_dicetable_wiring_prints_the_table_and_writes_the_drawing(tmp_path, capsys):
    out = tmp_path / "wiring.svg"
    assert main(["wiring", "--config", str(EXAMPLE), "--svg", str(out)]) == 0
    assert capsys.readouterr().out == wiring.table(example_wiring())
    assert out.read_text(encoding="utf-8") == wiring.svg(example_wiring())


def test_dicetable_wiring_names_a_bad_config_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('host_pin = "4821"\n[[seats]]\nname = "Aki"\ncolour = "red"\n'
                   'button_pin = 30\nled_pin = 12\n', encoding="utf-8")
    out = tmp_path / "wiring.svg"
    assert main(["wiring", "--config", str(bad), "--svg", str(out)]) == 2
    err = capsys.readouterr().err
    assert "seats[0].button_pin" in err and "Traceback" not in err
    assert not out.exists()


def test_dicetable_wiring_says_when_the_drawing_cannot_be_written(tmp_path, capsys):
    out = tmp_path / "missing-folder" / "wiring.svg"
    assert main(["wiring", "--svg", str(out)]) == 1
    assert "cannot write" in capsys.readouterr().err
