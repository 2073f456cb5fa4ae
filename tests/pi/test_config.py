"""The config loader: laptop defaults, the example file, and one clear message per mistake."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pi import config
from pi.config import ConfigError

REPO = Path(__file__).resolve().parents[2]

GOOD = """\
host_pin = "4821"
language = "en"
data_dir = "state"

[web]
host = "127.0.0.1"
port = 9000

[camera]
source = "opencv"
device = "/dev/video2"

[[seats]]
name = "Aki"
colour = "red"
button_pin = 5
led_pin = 12

[[seats]]
name = "Ben"
colour = "blue"
button_pin = 6
led_pin = 16
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "dicetable.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_run_on_a_laptop(monkeypatch, tmp_path):
    monkeypatch.setenv("DICETABLE_DATA", str(tmp_path / "data"))
    cfg = config.load(None)
    assert cfg.camera.source == "synthetic"
    assert (cfg.web.host, cfg.web.port) == ("0.0.0.0", 8080)
    assert cfg.data_dir == tmp_path / "data"
    assert cfg.db_path == tmp_path / "data" / "dicetable.sqlite3"
    assert cfg.language == "ja"
    assert cfg.host_pin == "0000"
    assert [s.colour for s in cfg.seats] == ["red", "blue", "green", "yellow"]
    pins = [p for s in cfg.seats for p in (s.button_pin, s.led_pin)]
    assert len(set(pins)) == len(pins)
    assert len({s.name for s in cfg.seats}) == 4


def test_data_dir_default_without_env(monkeypatch):
    monkeypatch.delenv("DICETABLE_DATA", raising=False)
    assert config.load(None).data_dir == Path("~/.local/share/dicetable").expanduser()


def test_a_file_without_seats_says_it_takes_the_default_seats(tmp_path, caplog):
    path = tmp_path / "table.toml"
    path.write_text('language = "en"\nhost_pin = "4821"\n', encoding="utf-8")
    cfg = config.load(path)
    assert cfg.seats == config.DEFAULT_SEATS
    assert f"{path} has no [[seats]]: the four default seats" in caplog.text
    caplog.clear()
    config.load(REPO / "dicetable.example.toml")
    assert "[[seats]]" not in caplog.text


def test_example_file_is_valid_and_complete():
    cfg = config.load(REPO / "dicetable.example.toml")
    assert cfg.camera.source == "picamera2"
    assert cfg.data_dir == Path("/var/lib/dicetable")
    assert len(cfg.seats) == 4
    # Every key the loader knows appears in the example.
    text = (REPO / "dicetable.example.toml").read_text(encoding="utf-8")
    keys = (config._TOP_KEYS + config._SEAT_KEYS + config._CAMERA_KEYS + config._WEB_KEYS)
    for key in keys:
        assert f"{key} =" in text or f"[{key}]" in text or f"[[{key}]]" in text, key


def test_a_full_file_round_trips(tmp_path):
    cfg = config.load(write(tmp_path, GOOD))
    assert cfg.language == "en"
    assert cfg.data_dir == tmp_path / "state"  # relative to the file's folder
    assert cfg.web == config.WebConfig("127.0.0.1", 9000)
    assert cfg.camera.source == "opencv" and cfg.camera.device == "/dev/video2"
    assert cfg.seat("Ben") == config.SeatConfig("Ben", "blue", 6, 16)
    with pytest.raises(KeyError):
        cfg.seat("Nobody")


def test_missing_file_says_to_copy_the_example(tmp_path):
    with pytest.raises(ConfigError, match="dicetable.example.toml"):
        config.load(tmp_path / "nope.toml")


def test_a_byte_order_mark_is_fine_and_other_encodings_are_named(tmp_path):
    path = write(tmp_path, GOOD)
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())  # Windows Notepad
    assert config.load(path).host_pin == "4821"
    path.write_bytes(GOOD.replace('"Ben"', '"Beñ"').encode("latin-1"))
    with pytest.raises(ConfigError, match=r"line 20 is not UTF-8 text; save the config as UTF-8"):
        config.load(path)


def test_toml_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, 'host_pin = "4821"\nlanguage = en\n')
    with pytest.raises(ConfigError, match=r"not valid TOML.*line 2"):
        config.load(path)


def test_host_pin_is_required_in_a_file(tmp_path):
    with pytest.raises(ConfigError, match=r"^.*host_pin_hash: missing; run \"dicetable pin\""):
        config.load(write(tmp_path, GOOD.replace('host_pin = "4821"\n', "")))


@pytest.mark.parametrize(
    ("old", "new", "pattern"),
    [
        ('host_pin = "4821"', 'host_pin = "12"', r"host_pin: not 4 to 8 digits"),
        ('host_pin = "4821"', 'host_pin = "12ab"', r"host_pin: not 4 to 8 digits"),
        ('host_pin = "4821"', "host_pin = 4821", r'host_pin: write the PIN as a quoted'),
        ('language = "en"', 'language = "fr"', r'language: "fr" is not known; use "ja" or "en"'),
        ('device = "/dev/video2"', "exposure_us = 200000",
         r"camera.exposure_us: 200000 µs is longer than one frame at 10 fps"),
        ("port = 9000", "port = 70000", r"web.port: 70000 is out of range"),
        ("port = 9000", 'port = "9000"', r"web.port: expected a TCP port .* string"),
        ("port = 9000", "port = true", r"web.port: expected .* boolean"),
        ('source = "opencv"', 'source = "webcam"', r'camera.source: "webcam" is not known'),
        ('source = "opencv"', 'source = "replay"', r"camera.path: missing"),
        ('device = "/dev/video2"', "device = 1.5", r"camera.device: expected a device"),
        ("button_pin = 5", "button_pin = 1", r"seats\[0\].button_pin: 1 is out of range"),
        ("button_pin = 5", "button_pin = 28", r"seats\[0\].button_pin: 28 is out of range"),
        ("led_pin = 16", "led_pin = 5",
         r"seats\[1\].led_pin: GPIO 5 is already used by seats\[0\].button_pin"),
        ("button_pin = 6", "button_pin = 12",
         r"seats\[1\].button_pin: GPIO 12 is already used by seats\[0\].led_pin"),
        ('name = "Ben"', 'name = "Aki"', r'seats\[1\].name: "Aki" is already the name'),
        ('colour = "blue"', 'colour = "red"', r'seats\[1\].colour: "red" is already the colour'),
        ('colour = "blue"', 'colour = "teal"', r'seats\[1\].colour: "teal" is not a known'),
        ('colour = "blue"', 'color = "blue"', r'seats\[1\].color: unknown key.*"colour"'),
        ("[web]", "[webs]", r"webs: unknown key"),
        ('host = "127.0.0.1"', 'hots = "127.0.0.1"', r'web.hots: unknown key.*"host"'),
        ('data_dir = "state"', 'data_dir = ""', r"data_dir: empty; write the path in quotes"),
        ('data_dir = "state"', 'data_dir = "st\\u0000ate"', r"data_dir: holds a NUL character"),
    ],
)
def test_each_mistake_names_the_key_and_the_fix(tmp_path, old, new, pattern):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(ConfigError, match=pattern) as info:
        config.load(path)
    assert str(path) in str(info.value)


def test_a_seat_missing_a_key(tmp_path):
    with pytest.raises(ConfigError, match=r"seats\[1\].led_pin: missing"):
        config.load(write(tmp_path, GOOD.replace("led_pin = 16\n", "")))


def test_seat_count_is_1_to_8(tmp_path):
    head = GOOD.split("[[seats]]")[0]
    with pytest.raises(ConfigError, match="seats: expected a list"):
        config.from_dict({"host_pin": "1234", "seats": "x"})
    with pytest.raises(ConfigError, match="camera: expected a table"):
        config.from_dict({"host_pin": "1234", "camera": 3})
    seats = "".join(
        f'[[seats]]\nname = "P{i}"\ncolour = "{c}"\nbutton_pin = {2 + 2 * i}\nled_pin = {3 + 2 * i}\n'
        for i, c in enumerate(["red", "orange", "yellow", "green", "blue", "purple",
                               "pink", "white", "black"])
    )
    with pytest.raises(ConfigError, match=r"seats: 9 seats given; give 1 to 8"):
        config.load(write(tmp_path, head + seats))
    cfg = config.load(write(tmp_path, head + seats.rsplit("[[seats]]", 1)[0]))
    assert len(cfg.seats) == 8


def test_camera_defaults_and_gains(tmp_path):
    cfg = config.load(write(tmp_path, GOOD))
    assert cfg.camera.width == 640 and cfg.camera.awb_gains == (1.8, 1.6)
    bad = GOOD.replace('device = "/dev/video2"', "awb_gains = [1.8]")
    with pytest.raises(ConfigError, match=r"camera.awb_gains: expected two numbers"):
        config.load(write(tmp_path, bad))


def test_the_service_unit_and_the_example_agree():
    unit = (REPO / "systemd" / "dicetable.service").read_text(encoding="utf-8")
    lines = dict(line.split("=", 1) for line in unit.splitlines()
                 if "=" in line and not line.startswith("#") and not line.startswith("DeviceAllow"))
    assert lines["ExecStart"].endswith("run --config /etc/dicetable/dicetable.toml")
    assert lines["StateDirectory"] == "dicetable"  # /var/lib/dicetable
    assert lines["User"] == "dicetable" and lines["SupplementaryGroups"] == "video gpio audio"
    assert "PrivateDevices" not in lines and lines["DevicePolicy"] == "closed"
    example = config.load(REPO / "dicetable.example.toml")
    assert example.data_dir == Path("/var/lib/") / lines["StateDirectory"]


def test_the_unit_restarts_on_failure_and_reaches_the_camera_and_the_gpio():
    unit = (REPO / "systemd" / "dicetable.service").read_text(encoding="utf-8").splitlines()
    settings = [line.split("=", 1) for line in unit if "=" in line and not line.startswith("#")]
    allowed = {value.split()[0] for key, value in settings if key == "DeviceAllow"}
    assert {"char-gpiochip", "char-*gpiomem*", "char-video4linux", "char-media", "char-dma_heap",
            "char-vchiq", "char-alsa"} <= allowed
    values = dict(settings)
    assert values["Restart"] == "on-failure" and values["NoNewPrivileges"] == "yes"
    assert values["ProtectSystem"] == "strict" and values["CapabilityBoundingSet"] == ""


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_unit(tmp_path):
    # The unit names the Pi's venv; check it with a command that exists here.
    unit = (REPO / "systemd" / "dicetable.service").read_text(encoding="utf-8")
    copy = tmp_path / "dicetable.service"
    copy.write_text(unit.replace("/opt/dicetable/.venv/bin/dicetable", shutil.which("true")), encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "dicetable.service" in line]
    assert complaints == []


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_units_exposure_is_at_most_3(tmp_path):
    import re

    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(REPO / "systemd" / "dicetable.service")],
                            capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for dicetable.service: ([0-9.]+)", result.stdout)
    assert found, result.stdout[-500:] + result.stderr[-500:]
    assert float(found.group(1)) <= 3.0


def test_a_hashed_pin_opens_the_host_page_and_is_never_in_clear(tmp_path):
    from pi.pin import hash_pin

    line = hash_pin("2468")
    assert "2468" not in line and line.startswith("pbkdf2_sha256$")
    cfg = config.load(write(tmp_path, GOOD.replace('host_pin = "4821"', f'host_pin_hash = "{line}"')))
    assert cfg.host_pin is None and cfg.check_pin("2468") and not cfg.check_pin("2469")
    assert not cfg.check_pin(2468)
    with pytest.raises(ConfigError, match="keep only host_pin_hash"):
        config.load(write(tmp_path, GOOD.replace('host_pin = "4821"', f'host_pin = "4821"\nhost_pin_hash = "{line}"')))
    with pytest.raises(ConfigError, match="not a whole PIN hash"):
        config.load(write(tmp_path, GOOD.replace('host_pin = "4821"', 'host_pin_hash = "2468"')))
    iterations, salt, digest = line.split("$")[1:]
    for damaged in (line[:-1],  # its last "=" lost in copying: was a 500 at every login
                    line.replace(f"${iterations}$", "$0$"), line.replace(f"${iterations}$", "$999999999999$"),
                    line.replace(digest, digest[8:])):
        with pytest.raises(ConfigError, match="not a whole PIN hash"):
            config.load(write(tmp_path, GOOD.replace('host_pin = "4821"', f'host_pin_hash = "{damaged}"')))


def test_a_pin_line_appended_below_a_table_is_named_where_it_landed(tmp_path):
    from pi.pin import hash_pin

    appended = GOOD.replace('host_pin = "4821"\n', "") + f'[voice]\nvolume = 50\nhost_pin_hash = "{hash_pin("2468")}"\n'
    with pytest.raises(ConfigError, match=r"voice.host_pin_hash: .*comes after \[voice\].*move the line above"):
        config.load(write(tmp_path, appended))
    seated = GOOD.replace('host_pin = "4821"\n', "") + 'language = "en"\n'  # below the last [[seats]]
    with pytest.raises(ConfigError, match=r"seats\[\d\]\.language: .*comes after \[\[seats\]\]"):
        config.load(write(tmp_path, seated))


def test_dicetable_pin_prints_the_config_line(monkeypatch, capsys):
    import io

    from pi.cli import main
    from pi.pin import verify_pin

    monkeypatch.setattr("sys.stdin", io.StringIO("1357\n"))
    assert main(["pin"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith('host_pin_hash = "') and verify_pin("1357", out.split('"')[1])
    monkeypatch.setattr("sys.stdin", io.StringIO("12\n"))
    assert main(["pin"]) == 2 and "4 to 8 digits" in capsys.readouterr().err
