"""A table without a router (issue 27): the [wifi] keys and their messages, the Wi-Fi join
QR code on the host page (and nowhere public), and seat links that use the Pi's IP on the
interface that serves the phone, never a name that needs a router's DNS."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pi import config
from pi.config import ConfigError, WifiConfig
from pi.web import host
from tests.pi.conftest import SEATS3

REPO = Path(__file__).resolve().parents[2]
BASE = 'host_pin = "4821"\n'


def load(tmp_path: Path, text: str):
    path = tmp_path / "dicetable.toml"
    path.write_text(BASE + text, encoding="utf-8")
    return config.load(path)


def test_the_wifi_keys_load_and_default_to_none(tmp_path):
    assert load(tmp_path, "").wifi is None
    cfg = load(tmp_path, '[wifi]\nssid = "テーブル"\npassword = "dice; and: more"\n')
    assert cfg.wifi == WifiConfig("テーブル", "dice; and: more")
    assert cfg.wifi.join_text() == r"WIFI:T:WPA;S:テーブル;P:dice\; and\: more;;"


def test_the_examples_wifi_block_is_valid_once_uncommented(tmp_path):
    text = (REPO / "dicetable.example.toml").read_text(encoding="utf-8")
    block = re.search(r"^# \[wifi\]\n(# .*\n)+", text, re.M).group(0)
    cfg = load(tmp_path, "\n".join(line[2:] for line in block.splitlines()) + "\n")
    assert cfg.wifi.ssid == "dicetable"


@pytest.mark.parametrize("text, message", [
    ('[wifi]\nssid = "dicetable"\n', r"wifi.password: missing; \[wifi\] needs the ssid and password"),
    ('[wifi]\nssid = "dicetable"\npassword = "short"\n', r"wifi.password: a WPA2 password is 8 to 63 .* has 5 characters"),
    ('[wifi]\nssid = "dicetable"\npassword = "パスワードです長い"\n', r"wifi.password: .* some outside ASCII"),
    ('[wifi]\nssid = "dicetable"\npassword = 12345678\n', r"wifi.password: expected the Wi-Fi's password in quotes"),
    ('[wifi]\nssid = "あいうえおかきくけこさ"\npassword = "long enough"\n', r"wifi.ssid: .* 1 to 32 bytes"),
    ('[wifi]\nssid = ""\npassword = "long enough"\n', r"wifi.ssid: .* 1 to 32 bytes"),
    ('[wifi]\nssid = "dicetable"\npasword = "long enough"\n', r'wifi.pasword: unknown key; remove it \(did you mean "password"\?\)'),
    ('wifi = "dicetable"\n', r"wifi: expected a table"),
])
def test_a_wrong_wifi_key_is_named_with_its_fix(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load(tmp_path, text)


def test_links_use_the_address_that_serves_the_phone_not_a_name(monkeypatch):
    facing = {"10.42.0.23": "10.42.0.1", "192.168.1.40": "192.168.1.20"}
    monkeypatch.setattr(host, "address_facing", facing.get)
    monkeypatch.setattr(host, "lan_address", lambda: "192.168.1.20")
    # a name needs a router's DNS or mDNS: the hotspot's own address instead
    assert host.phone_root("http://dicetable.local:8080/", "0.0.0.0", "10.42.0.23") == "http://10.42.0.1:8080"
    assert host.phone_root("http://raspberrypi:8080/", "0.0.0.0", "192.168.1.40") == "http://192.168.1.20:8080"
    # an IP address the phone used already works
    assert host.phone_root("http://10.42.0.1:8080/", "0.0.0.0", "10.42.0.23") == "http://10.42.0.1:8080"
    # opened on the Pi itself: its LAN address (or the hotspot's, when that is its only network)
    assert host.phone_root("http://localhost:8080/", "0.0.0.0", "127.0.0.1") == "http://192.168.1.20:8080"
    # served on this machine only: no phone reaches it, the address stays
    assert host.phone_root("http://127.0.0.1:8080/", "127.0.0.1", "127.0.0.1") == "http://127.0.0.1:8080"
    # served on one address: that one
    assert host.phone_root("http://dicetable.local:8080/", "10.42.0.1", "10.42.0.23") == "http://10.42.0.1:8080"


def test_the_address_facing_a_phone_is_one_of_this_machines():
    assert host.address_facing("127.0.0.1") is None and host.address_facing("not an address") is None
    mine = host.interface_addresses()
    assert "127.0.0.1" in mine
    outward = host.address_facing("192.0.2.200")  # TEST-NET-1: only the route is looked up
    assert outward is None or outward in mine


@pytest.fixture
def appliance(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    cfg = dataclasses.replace(config, wifi=WifiConfig("dicetable", "pick-8-to-63"))
    built = build(cfg, demo=True, pin_factory=MockFactory(), camera=None, detector=None, animate=False,
                  test_config={"CSRF": False, "TESTING": True})
    assert built.table.start_game("alea", SEATS3, {}, seed=1)["ok"]
    yield built
    built.close()


def test_the_host_page_shows_the_wifi_join_code_and_seat_links_for_the_hotspot(appliance, monkeypatch):
    monkeypatch.setattr(host, "address_facing", lambda client: "10.42.0.1" if client == "10.42.0.23" else None)
    client = appliance.app.test_client()
    phone = {"base_url": "http://dicetable.local:8080", "environ_base": {"REMOTE_ADDR": "10.42.0.23"}}
    assert client.post("/host/login", data={"pin": appliance.config.host_pin}, **phone).status_code in (302, 303)
    client.set_cookie("lang", "en", domain="dicetable.local")
    page = client.get("/host", **phone).get_data(as_text=True)
    wifi = page[page.index('id="wifi"'):]
    assert page.index('id="wifi"') < page.index('id="seat-links"')  # join the Wi-Fi, then open a link
    assert "The table&#39;s Wi-Fi" in wifi and 'id="wifi-ssid">dicetable<' in wifi and "<svg" in wifi
    links = re.findall(r'class="seat-link"|href="(http[^"]+/seat/[^"]+)"', page)
    assert [u for u in links if u] and all(u.startswith("http://10.42.0.1:8080/seat/") for u in links if u)
    assert "dicetable.local" not in "".join(links)
    client.set_cookie("lang", "ja", domain="dicetable.local")
    assert "テーブルのWi-Fi" in client.get("/host", **phone).get_data(as_text=True)


def test_the_wifi_password_is_only_on_the_host_page(appliance):
    client = appliance.app.test_client()
    for path in ("/", "/healthz", "/api/state", "/host", "/history"):
        assert "pick-8-to-63" not in client.get(path).get_data(as_text=True), path
