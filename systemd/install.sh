#!/usr/bin/env bash
# Install or update dicetable as a service on Raspberry Pi OS Bookworm.
# Run as root from the checkout in /opt/dicetable:  sudo /opt/dicetable/systemd/install.sh
# Safe to run again after `git pull`: it keeps the config and the data.
set -euo pipefail

PREFIX=/opt/dicetable
CONF_DIR=/etc/dicetable
CONF=$CONF_DIR/dicetable.toml
UNIT=/etc/systemd/system/dicetable.service
SRC=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" != 0 ]; then
    echo "run as root: sudo $0" >&2
    exit 1
fi
if [ "$SRC" != "$PREFIX" ]; then
    echo "clone dicetable to $PREFIX first (sudo git clone <repo> $PREFIX), then run $PREFIX/systemd/install.sh" >&2
    exit 1
fi

echo "== packages from apt (picamera2 and lgpio are not installed from PyPI; the voice: docs/voice.md)"
apt-get update
apt-get install -y python3-venv python3-picamera2 python3-lgpio git \
    espeak-ng open-jtalk open-jtalk-mecab-naist-jdic hts-voice-nitech-jp-atr503-m001 alsa-utils

echo "== service user dicetable (groups video, gpio, audio)"
if ! id dicetable >/dev/null 2>&1; then
    useradd --system --user-group --groups video,gpio,audio \
        --home-dir /var/lib/dicetable --no-create-home --shell /usr/sbin/nologin dicetable
else
    usermod --append --groups video,gpio,audio dicetable
fi

echo "== venv with the system site packages (to see apt's picamera2, libcamera, lgpio)"
if [ ! -x "$PREFIX/.venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$PREFIX/.venv"
fi
# The Pi's pinned set (numpy is apt's 1.24, which picamera2 and its helpers are built against),
# the same that `make test` tests.
"$PREFIX/.venv/bin/pip" install --quiet --constraint "$PREFIX/constraints/pi-bookworm.txt" "$PREFIX"

echo "== config in $CONF"
install -d -m 0750 -o root -g dicetable "$CONF_DIR"
if [ ! -e "$CONF" ]; then
    pin=$(python3 -c 'import secrets; print(f"{secrets.randbelow(10**6):06d}")')
    # Only the PIN's salted hash goes into the config; the PIN is shown once, here.
    hash_line=$(echo "$pin" | "$PREFIX/.venv/bin/dicetable" pin)
    grep -v '^host_pin = ' "$PREFIX/dicetable.example.toml" | sed -e "s|^# host_pin_hash = .*|$hash_line|" > "$CONF"
    chown root:dicetable "$CONF"
    chmod 0640 "$CONF"
    echo "   new config written; the host PIN is $pin (note it now: the config keeps only its hash;"
    echo "   to change it, run: dicetable pin, and replace the host_pin_hash line in $CONF)"
else
    echo "   keeping the existing config"
fi

echo "== service"
install -m 0644 "$PREFIX/systemd/dicetable.service" "$UNIT"
systemctl daemon-reload
systemctl enable dicetable.service
systemctl restart dicetable.service
sleep 2
systemctl --no-pager --lines=5 status dicetable.service || true
echo "== done: open http://$(hostname).local:8080/ on a phone; logs: journalctl -u dicetable -f"
