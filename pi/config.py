"""The appliance's one config file (TOML), validated at start.

`load(None)` gives built-in defaults that run on a laptop (`dicetable demo`): four seats
on mock pins, the synthetic camera, the web server on port 8080 and host PIN "0000".
`load(path)` reads a TOML file (see `dicetable.example.toml`); every key except
`host_pin` may be left out and takes the laptop default. A wrong value stops the program
with a `ConfigError` that names the key (e.g. `seats[2].button_pin`) and says what to do.

Config values are frozen dataclasses; change one with `dataclasses.replace`.
"""
from __future__ import annotations

import difflib
import logging
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# What each camera source is (see vision/camera.py).
CAMERA_SOURCES = ("picamera2", "opencv", "replay", "synthetic")
LANGUAGES = ("ja", "en")
MAX_SEATS = 8
# BCM numbers of the 40-pin header's general-purpose pins (0 and 1 are the HAT EEPROM).
GPIO_PINS = range(2, 28)


class ConfigError(ValueError):
    """A config value a person must fix; the message names the key and the fix."""


@dataclass(frozen=True)
class SeatConfig:
    """One seat: the player's name, their dice colour, and the BCM pins of the seat's
    button (to GND, internal pull-up) and LED (through a resistor to GND)."""

    name: str
    colour: str
    button_pin: int
    led_pin: int


@dataclass(frozen=True)
class CameraConfig:
    """Where frames come from.

    source: "picamera2" (the Pi camera), "opencv" (a V4L2/USB device), "replay" (a folder
    of images or a video file at `path`) or "synthetic" (the demo's rendered table).
    focus is picamera2's LensPosition in dioptres (1 / metres; 0 = infinity), fixed;
    exposure_us a fixed exposure time; awb_gains the fixed (red, blue) colour gains.
    """

    source: str = "synthetic"
    device: int | str = 0
    path: str | None = None
    width: int = 640
    height: int = 480
    fps: float = 10.0
    focus: float = 2.5
    exposure_us: int = 10000
    awb_gains: tuple[float, float] = (1.8, 1.6)


@dataclass(frozen=True)
class WebConfig:
    """Where the pages are served."""

    host: str = "0.0.0.0"
    port: int = 8080


@dataclass(frozen=True)
class VoiceConfig:
    """The table's voice (docs/voice.md): on where an audio device exists (``enabled``),
    its loudness (``volume``, 0 to 100) and whether it starts muted."""

    enabled: bool = True
    volume: int = 80
    muted: bool = False


@dataclass(frozen=True)
class WifiConfig:
    """The table's own Wi-Fi (the Pi as a hotspot, docs/hotspot.md): the host page shows
    its QR code so phones join with one scan. ``password``: WPA2, 8 to 63 characters."""

    ssid: str
    password: str

    def join_text(self) -> str:
        """What the join QR code holds (the Wi-Fi QR format phones read)."""
        return f"WIFI:T:WPA;S:{_wifi_escape(self.ssid)};P:{_wifi_escape(self.password)};;"


def _wifi_escape(text: str) -> str:
    return re.sub(r'([\\;,:"])', r"\\\1", text)


@dataclass(frozen=True)
class Config:
    """Everything the appliance reads at start."""

    seats: tuple[SeatConfig, ...]
    camera: CameraConfig = field(default_factory=CameraConfig)
    web: WebConfig = field(default_factory=WebConfig)
    data_dir: Path = field(default_factory=lambda: default_data_dir())
    host_pin: str | None = "0000"  # a PIN kept in clear (the laptop default); None with a hash
    language: str = "ja"
    host_pin_hash: str | None = None  # pi.pin's salted hash ("dicetable pin")
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    wifi: WifiConfig | None = None  # the table's own Wi-Fi, for its join QR code

    def check_pin(self, guess: Any) -> bool:
        """Whether ``guess`` is the host PIN (constant-time)."""
        import secrets as _secrets

        from pi.pin import verify_pin

        if not isinstance(guess, str):
            return False
        if self.host_pin_hash is not None:
            return verify_pin(guess, self.host_pin_hash)
        return self.host_pin is not None and _secrets.compare_digest(guess.encode(), self.host_pin.encode())

    def seat(self, name: str) -> SeatConfig:
        """The seat called `name` (KeyError if none)."""
        for seat in self.seats:
            if seat.name == name:
                return seat
        raise KeyError(name)

    @property
    def db_path(self) -> Path:
        """The SQLite event store inside the data directory."""
        return self.data_dir / "dicetable.sqlite3"


DEFAULT_SEATS: tuple[SeatConfig, ...] = (
    SeatConfig("Aki", "red", 5, 12),
    SeatConfig("Ben", "blue", 6, 16),
    SeatConfig("Chie", "green", 13, 20),
    SeatConfig("Dai", "yellow", 19, 21),
)


def default_data_dir() -> Path:
    """$DICETABLE_DATA, else ~/.local/share/dicetable."""
    env = os.environ.get("DICETABLE_DATA")
    if env:
        return Path(env).expanduser()
    return Path("~/.local/share/dicetable").expanduser()


def default() -> Config:
    """The laptop defaults (`dicetable demo`)."""
    return Config(seats=DEFAULT_SEATS, data_dir=default_data_dir())


def load(path: str | Path | None = None) -> Config:
    """Read and validate the config file at `path`; None gives `default()`.

    Raises ConfigError (a ValueError) naming the key and the fix.
    """
    if path is None:
        return default()
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8-sig")  # the byte-order mark Windows Notepad may write is fine
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such config file; copy dicetable.example.toml there and edit it"
        ) from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}: line {line} is not UTF-8 text; save the config as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid TOML: {exc}; fix the syntax there "
            "(strings need quotes, tables look like [camera], seats like [[seats]])"
        ) from None
    try:
        config = from_dict(raw, base_dir=path.parent)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if "seats" not in raw:
        logging.getLogger(__name__).warning(
            "%s has no [[seats]]: the four default seats and their pins are used "
            "(`dicetable wiring --config %s` shows them)", path, path)
    return config


# --- validation --------------------------------------------------------------------------

_TOP_KEYS = ("seats", "camera", "web", "data_dir", "host_pin", "host_pin_hash", "language", "voice", "wifi")
_SEAT_KEYS = ("name", "colour", "button_pin", "led_pin")
_CAMERA_KEYS = ("source", "device", "path", "width", "height", "fps", "focus",
                "exposure_us", "awb_gains")
_WEB_KEYS = ("host", "port")


def from_dict(raw: dict[str, Any], base_dir: Path | None = None) -> Config:
    """Validate a parsed TOML document; relative `data_dir`/`camera.path` are taken
    relative to `base_dir` (the config file's folder)."""
    _check_keys(raw, _TOP_KEYS, "")
    seats = _seats(raw.get("seats"))
    camera = _camera(raw.get("camera", {}), base_dir)
    web = _web(raw.get("web", {}))
    if "data_dir" in raw:
        data_dir = _path(_str(raw["data_dir"], "data_dir", "a folder path"), base_dir, "data_dir")
    else:
        data_dir = default_data_dir()
    voice = _voice(raw.get("voice", {}))
    wifi = _wifi(raw["wifi"]) if "wifi" in raw else None
    pin, pin_hash = None, None  # after every table: a PIN line appended below one is named there
    if "host_pin_hash" in raw:
        from pi.pin import parse_hash

        if "host_pin" in raw:
            raise ConfigError("host_pin and host_pin_hash: keep only host_pin_hash (the PIN must not be in clear too)")
        pin_hash = _str(raw["host_pin_hash"], "host_pin_hash", 'the line that "dicetable pin" prints')
        if parse_hash(pin_hash) is None:
            raise ConfigError('host_pin_hash: not a whole PIN hash (a character lost in copying?); '
                              'run "dicetable pin" and paste the line it prints')
    elif "host_pin" not in raw:
        raise ConfigError(
            'host_pin_hash: missing; run "dicetable pin" and paste the line it prints '
            '(or set host_pin = "<4 to 8 digits>"; it protects the host page)'
        )
    else:
        pin = _clear_pin(raw["host_pin"])
    language = _str(raw.get("language", "ja"), "language", '"ja" or "en"')
    if language not in LANGUAGES:
        raise ConfigError(f'language: "{language}" is not known; use "ja" or "en"')
    return Config(seats=seats, camera=camera, web=web, data_dir=data_dir,
                  host_pin=pin, host_pin_hash=pin_hash, language=language, voice=voice, wifi=wifi)


_WIFI_KEYS = ("ssid", "password")


def _wifi(raw: Any) -> WifiConfig:
    """The ``[wifi]`` table: the hotspot's name (1 to 32 bytes) and WPA2 password (8 to 63
    printable ASCII characters), as given to ``nmcli device wifi hotspot``."""
    raw = _table(raw, "wifi")
    _check_keys(raw, _WIFI_KEYS, "wifi.")
    for key in _WIFI_KEYS:
        if key not in raw:
            raise ConfigError(f"wifi.{key}: missing; [wifi] needs the ssid and password the hotspot was made with "
                              "(docs/hotspot.md), or remove [wifi]")
    ssid = _str(raw["ssid"], "wifi.ssid", "the Wi-Fi's name in quotes")
    if not 1 <= len(ssid.encode("utf-8")) <= 32 or not ssid.isprintable():
        raise ConfigError(f"wifi.ssid: {_shown(ssid)} is not a Wi-Fi name; use 1 to 32 bytes of printable text "
                          "(a Japanese character takes 3)")
    password = _str(raw["password"], "wifi.password", "the Wi-Fi's password in quotes")
    if not 8 <= len(password) <= 63 or not all(" " <= c <= "~" for c in password):
        raise ConfigError(f"wifi.password: a WPA2 password is 8 to 63 characters of printable ASCII "
                          f"(letters, digits, punctuation); this one has {len(password)} characters"
                          + ("" if all(" " <= c <= "~" for c in password) else " and some outside ASCII"))
    return WifiConfig(ssid, password)


_VOICE_KEYS = ("enabled", "volume", "muted")


def _voice(raw: Any) -> VoiceConfig:
    """The ``[voice]`` table: enabled and muted are true or false, volume 0 to 100."""
    raw = _table(raw, "voice")
    _check_keys(raw, _VOICE_KEYS, "voice.")
    for key in ("enabled", "muted"):
        if key in raw and not isinstance(raw[key], bool):
            raise ConfigError(f"voice.{key}: expected true or false (no quotes), got {_shown(raw[key])}")
    default = VoiceConfig()
    return VoiceConfig(enabled=raw.get("enabled", default.enabled),
                       volume=_int(raw.get("volume", default.volume), "voice.volume", 0, 100, "a loudness in percent"),
                       muted=raw.get("muted", default.muted))


def _clear_pin(pin: Any) -> str:
    if isinstance(pin, int) and not isinstance(pin, bool):
        raise ConfigError(
            'host_pin: write the PIN as a quoted string of 4 to 8 digits, e.g. host_pin = "4821"'
        )
    pin = _str(pin, "host_pin", 'a quoted string of 4 to 8 digits, e.g. "4821"')
    if not re.fullmatch(r"[0-9]{4,8}", pin):
        raise ConfigError('host_pin: not 4 to 8 digits; use e.g. "4821"')
    return pin


def _check_keys(table: dict[str, Any], known: tuple[str, ...], prefix: str) -> None:
    for key in table:
        if key not in known and prefix and key in _TOP_KEYS:  # `dicetable pin >> dicetable.toml`
            heading = "[[seats]]" if prefix.startswith("seats[") else f"[{prefix.rstrip('.')}]"
            raise ConfigError(f"{prefix}{key}: {key} belongs at the top of the file, but its line comes after "
                              f"{heading}, so TOML reads it as part of that table; move the line above the "
                              "first [...] heading")
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f'did you mean "{close[0]}"?' if close else "known keys: " + ", ".join(known)
            raise ConfigError(f"{prefix}{key}: unknown key; remove it ({hint})")


def _table(value: Any, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key}: expected a table ([{key}] with keys under it)")
    return value


def _str(value: Any, key: str, what: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key}: expected {what}, got {_shown(value)}")
    return value


def _int(value: Any, key: str, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key}: expected {what} (a whole number), got {_shown(value)}")
    if not lo <= value <= hi:
        raise ConfigError(f"{key}: {value} is out of range; use {what} ({lo} to {hi})")
    return value


def _float(value: Any, key: str, lo: float, hi: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{key}: expected {what} (a number), got {_shown(value)}")
    if not lo <= value <= hi:
        raise ConfigError(f"{key}: {value} is out of range; use {what} ({lo} to {hi})")
    return float(value)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}" (a string)'
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"{value!r} ({type(value).__name__})"


def _path(text: str, base_dir: Path | None, key: str) -> Path:
    if not text.strip() or "\0" in text:
        raise ConfigError(f"{key}: {'empty' if not text.strip() else 'holds a NUL character'}; "
                          "write the path in quotes")
    path = Path(text).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path


def _palette() -> tuple[str, ...]:
    from vision.colours import DEFAULT_PALETTE

    return tuple(DEFAULT_PALETTE)


def _seats(value: Any) -> tuple[SeatConfig, ...]:
    if value is None:
        return DEFAULT_SEATS
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        raise ConfigError("seats: expected a list of seat tables, each starting with [[seats]]")
    if not 1 <= len(value) <= MAX_SEATS:
        raise ConfigError(
            f"seats: {len(value)} seats given; give 1 to {MAX_SEATS} [[seats]] tables"
        )
    palette = _palette()
    seats: list[SeatConfig] = []
    names: dict[str, int] = {}
    colours: dict[str, int] = {}
    pins: dict[int, str] = {}
    for i, raw in enumerate(value):
        key = f"seats[{i}]"
        _check_keys(raw, _SEAT_KEYS, f"{key}.")
        for required in _SEAT_KEYS:
            if required not in raw:
                raise ConfigError(f"{key}.{required}: missing; every seat needs "
                                  "name, colour, button_pin and led_pin")
        name = _str(raw["name"], f"{key}.name", "the player's name in quotes").strip()
        if not name or len(name) > 24:
            raise ConfigError(f"{key}.name: give a name of 1 to 24 characters")
        if name in names:
            raise ConfigError(f'{key}.name: "{name}" is already the name of '
                              f"seats[{names[name]}]; give each seat its own name")
        names[name] = i
        colour = _str(raw["colour"], f"{key}.colour", "a colour name in quotes")
        if colour not in palette:
            raise ConfigError(f'{key}.colour: "{colour}" is not a known dice colour; '
                              "use one of " + ", ".join(palette))
        if colour in colours:
            raise ConfigError(f'{key}.colour: "{colour}" is already the colour of '
                              f"seats[{colours[colour]}]; give each seat its own colour")
        colours[colour] = i
        numbers = []
        for pin_key in ("button_pin", "led_pin"):
            full = f"{key}.{pin_key}"
            pin = _int(raw[pin_key], full, GPIO_PINS.start, GPIO_PINS.stop - 1,
                       "a BCM GPIO number")
            if pin in pins:
                raise ConfigError(f"{full}: GPIO {pin} is already used by {pins[pin]}; "
                                  "wire each button and LED to its own pin")
            pins[pin] = full
            numbers.append(pin)
        seats.append(SeatConfig(name, colour, numbers[0], numbers[1]))
    return tuple(seats)


def _camera(value: Any, base_dir: Path | None) -> CameraConfig:
    raw = _table(value, "camera")
    _check_keys(raw, _CAMERA_KEYS, "camera.")
    d = CameraConfig()
    source = _str(raw.get("source", d.source), "camera.source", "a source name in quotes")
    if source not in CAMERA_SOURCES:
        raise ConfigError(f'camera.source: "{source}" is not known; use one of '
                          + ", ".join(f'"{s}"' for s in CAMERA_SOURCES))
    device = raw.get("device", d.device)
    if isinstance(device, bool) or not isinstance(device, (int, str)):
        raise ConfigError("camera.device: expected a device number (0) or path "
                          f'("/dev/video0"), got {_shown(device)}')
    if isinstance(device, int) and device < 0:
        raise ConfigError(f"camera.device: {device} is negative; use 0 for the first camera")
    path: str | None = None
    if "path" in raw:
        path = str(_path(_str(raw["path"], "camera.path", "a folder or video path"), base_dir, "camera.path"))
    if source == "replay" and not path:
        raise ConfigError('camera.path: missing; source "replay" needs the folder of '
                          "images or the video file to play")
    width = _int(raw.get("width", d.width), "camera.width", 64, 4608, "a width in pixels")
    height = _int(raw.get("height", d.height), "camera.height", 48, 3456,
                  "a height in pixels")
    fps = _float(raw.get("fps", d.fps), "camera.fps", 0.5, 120.0, "frames per second")
    focus = _float(raw.get("focus", d.focus), "camera.focus", 0.0, 32.0,
                   "a lens position in dioptres (1 / distance in metres)")
    exposure = _int(raw.get("exposure_us", d.exposure_us), "camera.exposure_us", 100,
                    1_000_000, "an exposure time in microseconds")
    if exposure > 1e6 / fps:
        raise ConfigError(f"camera.exposure_us: {exposure} µs is longer than one frame at {fps:g} "
                          f"fps ({1e6 / fps:.0f} µs); shorten the exposure or lower camera.fps")
    gains = raw.get("awb_gains", list(d.awb_gains))
    if (not isinstance(gains, list) or len(gains) != 2
            or any(isinstance(g, bool) or not isinstance(g, (int, float)) for g in gains)):
        raise ConfigError("camera.awb_gains: expected two numbers [red_gain, blue_gain], "
                          "e.g. [1.8, 1.6]")
    for g in gains:
        if not 0.0 < g <= 32.0:
            raise ConfigError(f"camera.awb_gains: {g} is out of range; gains lie in (0, 32]")
    return CameraConfig(source=source, device=device, path=path, width=width,
                        height=height, fps=fps, focus=focus, exposure_us=exposure,
                        awb_gains=(float(gains[0]), float(gains[1])))


def _web(value: Any) -> WebConfig:
    raw = _table(value, "web")
    _check_keys(raw, _WEB_KEYS, "web.")
    d = WebConfig()
    host = _str(raw.get("host", d.host), "web.host",
                'an address in quotes ("0.0.0.0" for the whole LAN, "127.0.0.1" for this '
                "machine only)").strip()
    if not host:
        raise ConfigError('web.host: empty; use "0.0.0.0" (the whole LAN) or "127.0.0.1"')
    port = _int(raw.get("port", d.port), "web.port", 1, 65535, "a TCP port")
    return WebConfig(host=host, port=port)
