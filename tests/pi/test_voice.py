"""The table's voice (pi/voice, docs/voice.md): what is said, that nothing secret is said
early (the queue included), the sounds, the worker's queue, whole games spoken to WAV
files in both languages, `replay --speak`, the config and the host page's controls."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
import wave
from pathlib import Path

import numpy as np
import pytest

from pi.voice import attach, sounds, spoken
from pi.voice.spoken import Announcement, announcements, reading, speakable
from pi.voice.synth import RATE, SpeechError, read_wav, wav_bytes
from pi.voice.worker import Speaker, Voice, WavFolder
from tests.pi.conftest import SEATS3, FakeClock, declare

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _needs(lang: str) -> None:
    from pi.voice.synth import synthesiser

    try:
        synthesiser(lang)
    except SpeechError as exc:
        pytest.skip(f"no {lang} speech here: {exc} (.ci/browser installs it)")


def _samples(path: Path) -> np.ndarray:
    with wave.open(str(path)) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


# --- what is said ------------------------------------------------------------------------------


def test_names_in_latin_letters_are_read_in_katakana():
    assert [reading(n) for n in ("Aki", "Ben", "Chika", "Dai", "Kenta", "Akko", "Jack")] == \
        ["アキ", "ベン", "チカ", "ダイ", "ケンタ", "アッコ", "ジャック"]
    assert reading("森") == "森" and reading("Ann-Marie") == "Ann-Marie"  # not romaji: as it is


def test_long_runs_of_dice_are_left_out_and_symbols_said():
    line = "Ben threw 1 2 3 3 4; table 1 1 1 2 3 3 4 5 5 6 6 6 6: TRAP! escapes in order: Ben"
    assert speakable(line, "en") == "TRAP! escapes in order: Ben"
    assert speakable("Aki threw 2; table 2: safe, Aki +1", "en") == "Aki threw 2; table 2: safe, Aki +1"
    assert speakable("Judged: Aki 9 ✓ (target 8)", "en") == "Judged: Aki 9 hit (target 8)"
    ja = speakable("Akiが2を振った; 場 2: セーフ, Aki +1", "ja", ["Aki"])
    assert ja == "アキが2を振った; 場 2: セーフ, アキ プラス1"
    assert speakable("Akiがテープ1（2 3 6 4）を敷いた: red-1〜なし", "ja", ["Aki"]) == "アキがテープ1を敷いた: 赤-1からなし"
    assert speakable("Aki threw C2 Y4 Y4 Y4 R4", "en") == ""  # nothing left worth saying


def _views(script: str):
    """(event line, public view) after each accepted event of an example script."""
    import engines
    from pi.replay import read_script

    with (EXAMPLES / script).open("rb") as f:
        header, events = read_script(f)
    game = engines.load(header["game"])
    state = game.setup(header["seats"], header["options"], header["seed"])
    yield header["line"], game.view(state)
    for number, event in events:
        try:
            state = game.apply(state, event)
        except ValueError:
            continue
        yield number, game.view(state)


def test_a_reveal_comes_with_the_chime_and_the_reveal_sound_and_the_turn():
    views = list(_views("alea.jsonl"))
    said = []
    for (_, before), (number, after) in zip(views, views[1:]):
        said += announcements(before, after, "en", number)
    reveal = next(a for a in said if a.kind == "reveal")
    assert reveal.sounds == ("locked", "reveal") and reveal.text == "Declarations: Aki 1, Ben 0, Chika 2, Dan 3."
    after = said[said.index(reveal) + 1]
    assert after.kind == "turn" and after.text == "Aki's turn."
    assert said[-1].kind == "winner" and said[-1].sentences[-1] == "Game over: Aki wins with 11 points."
    assert [a.kind for a in said].count("reveal") == 4  # one per round, never a declaration before it


def test_an_undo_says_nothing_of_the_past():
    views = [v for _, v in _views("alea.jsonl")]
    undone = announcements(views[12], views[11], "en", 11)
    assert [a.kind for a in undone] in ([], ["turn"])


# --- nothing secret is spoken early: the leak test, queue included -------------------------------


class _Gate:
    """A synthesiser that waits for ``release`` before each sentence, so the queue can be
    looked at while announcements wait in it."""

    def __init__(self) -> None:
        self.release = threading.Semaphore(0)
        self.texts: list[str] = []
        self._asked = threading.Condition()

    def __call__(self, text: str) -> np.ndarray:
        with self._asked:
            self.texts.append(text)
            self._asked.notify_all()
        self.release.acquire(timeout=10)
        return np.full(RATE // 20, 0.2, np.float32)

    def wait_asked(self, count: int) -> bool:
        """Until ``count`` sentences have been asked for."""
        with self._asked:
            return self._asked.wait_for(lambda: len(self.texts) >= count, 10)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_secret_choice_is_spoken_or_queued_before_the_reveal(table, config, tmp_path, lang, monkeypatch):
    config = dataclasses.replace(config, language=lang)
    table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=5)
    gate = _Gate()
    # The gate speaks every language: the test needs no speech program installed.
    monkeypatch.setattr("pi.voice.synth.shared", lambda _lang: gate)
    watcher = attach(table, config, wav_dir=tmp_path / "wav")
    try:
        assert watcher.wait_seen(table.version)
        for _ in range(10):  # everything the game's start says, let through
            gate.release.release()
        assert watcher.voice.wait_idle()
        start = list(watcher.voice.said)
        assert start, "the game's start is announced"
        for seat, value in (("Aki", 3), ("Ben", 5)):
            assert declare(table, seat, value)["ok"]
            assert watcher.wait_seen(table.version)
            # Nothing waits in the queue and nothing more was said: a lock is not public.
            assert watcher.voice.pending() == [] and watcher.voice.said == start
        assert declare(table, "Chie", 1)["ok"]
        assert watcher.wait_seen(table.version)
        for _ in range(10):
            gate.release.release()
        assert watcher.voice.wait_idle()
        revealed = [t for t in watcher.voice.said if t not in start]
        names = ("Aki 3, Ben 5, Chie 1" if lang == "en" else "アキ 3, ベン 5, チエ 1")
        assert any(names in t for t in revealed)
        assert revealed[:2] == ["locked", "reveal"]  # the chime, the reveal sound, then the words
    finally:
        watcher.close()
        table.stop()


def test_the_voice_reads_only_the_public_view(table, config, tmp_path, monkeypatch):
    """Whatever the engine keeps for a seat, the voice asks for the view with no seat."""
    table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=5)
    asked = []
    view = table.engine.view
    monkeypatch.setattr(table.engine, "view", lambda state, seat=None: asked.append(seat) or view(state, seat))
    watcher = attach(table, config, wav_dir=tmp_path, mute=True)
    try:
        declare(table, "Aki", 2)
        assert watcher.wait_seen(table.version)
    finally:
        watcher.close()
    assert asked and set(asked) == {None}


def test_open_jtalk_reads_the_game_words_as_a_japanese_speaker_does(tmp_path):
    """Why Open JTalk (docs/voice.md): its dictionary reads the kanji of the games."""
    _needs("ja")
    from pi.voice.synth import OpenJTalk

    args = OpenJTalk().args
    for text, expected in (("罠", "ワナ"), ("魚", "サカナ"), ("路線", "ロセン"), ("12点", "ジューニテン"),
                           (reading("Chika") + "が3を振った", "チカガサンヲフッタ")):
        trace = tmp_path / "trace.txt"
        subprocess.run([*args, "-ow", str(tmp_path / "x.wav"), "-ot", str(trace)], input=text.encode(),
                       capture_output=True, timeout=30, check=True)
        analysis = trace.read_text(encoding="utf-8").split("[Text analysis result]")[1].split("[Output label]")[0]
        said = "".join(row.split(",")[9] for row in analysis.splitlines() if row.count(",") > 9)
        assert said.replace("’", "") == expected, text


# --- sounds --------------------------------------------------------------------------------------


def test_the_three_sounds_are_short_distinct_and_not_silent():
    made = {name: sounds.sound(name) for name in sounds.NAMES}
    for name, samples in made.items():
        assert 0.15 < len(samples) / RATE < 1.0, name
        assert np.sqrt(np.mean(samples ** 2)) > 0.05 and np.abs(samples).max() <= 1.0, name
    assert len({len(s) for s in made.values()}) == 3
    with pytest.raises(KeyError):
        sounds.sound("fanfare")


def test_wav_bytes_read_back():
    samples = sounds.sound("locked")
    back, rate = read_wav(wav_bytes(samples))
    assert rate == RATE and np.allclose(back, samples, atol=1e-3)


# --- the worker ---------------------------------------------------------------------------------


class _Recorder:
    """A sink that fails the test if two pieces ever play at once."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.active = False

    def begin(self, announcement):
        pass

    def play(self, piece):
        assert not self.active, "the voice talked over itself"
        self.active = True
        self.pieces.append(piece.text)
        self.active = False

    def end(self):
        pass

    def close(self):
        pass


def test_a_newer_batch_drops_what_waits_and_stops_the_current_one_after_its_sentence():
    gate = _Gate()
    sink = _Recorder()
    clock = FakeClock()
    voice = Voice("en", sink, synth=lambda lang: gate, clock=clock)
    try:
        old = [Announcement(1, "en", "verdict", ("one.", "two.", "three.")), Announcement(1, "en", "turn", ("Aki's turn.",))]
        voice.submit(old)
        gate.release.release()  # "one." is made; "two." waits in the synthesiser
        assert gate.wait_asked(2)
        clock.advance(5.0)  # the table moved on
        voice.submit([Announcement(2, "en", "verdict", ("new.",))])
        assert voice.pending() == ["new."]  # the old turn is dropped
        for _ in range(5):
            gate.release.release()
        assert voice.wait_idle()
    finally:
        voice.close()
    assert sink.pieces == ["one.", "new."]  # "two." was made but never played, "three." never made


def test_announcements_of_one_moment_are_all_said_but_the_stale_turn():
    """A throw and the forced move the table sends right after it: the verdict is said, the
    turn it named is not (the forced move's batch says whose turn it is now)."""
    gate = _Gate()
    sink = _Recorder()
    clock = FakeClock()
    voice = Voice("en", sink, synth=lambda lang: gate, clock=clock)
    try:
        voice.submit([Announcement(1, "en", "verdict", ("Aki threw 2.",)), Announcement(1, "en", "turn", ("Ben's turn.",))])
        clock.advance(0.01)
        voice.submit([Announcement(2, "en", "verdict", ("Ben passes.",)), Announcement(2, "en", "turn", ("Chie's turn.",))])
        for _ in range(5):
            gate.release.release()
        assert voice.wait_idle()
    finally:
        voice.close()
    assert sink.pieces == ["Aki threw 2.", "Ben passes.", "Chie's turn."]


def test_muted_says_nothing_and_a_refused_press_plays_its_sound(tmp_path):
    sink = WavFolder(tmp_path)
    voice = Voice("en", sink, synth=lambda lang: (lambda text: np.full(RATE // 10, 0.3, np.float32)))
    try:
        voice.set_muted(True)
        voice.submit([Announcement(1, "en", "verdict", ("hello.",))])
        voice.sound("refused")
        assert voice.wait_idle() and not sink.index.exists()
        voice.set_muted(False)
        voice.set_volume(50)
        voice.sound("refused")
        assert voice.wait_idle()
    finally:
        voice.close()
    record = json.loads(sink.index.read_text())
    assert record["kind"] == "refused" and record["sounds"] == ["refused"]
    peak = np.abs(_samples(tmp_path / record["file"])).max()
    assert 0.2 < peak < 0.3  # half of the sound's 0.5 peak


def test_a_refused_button_choice_plays_the_refused_sound(panel_and_table, tmp_path, config):
    panel, table = panel_and_table
    table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=5)
    sink = _Recorder()
    table.voice = Voice("en", sink, synth=lambda lang: (lambda text: np.zeros(10, np.float32)))
    try:
        table.buttons.on_lock("Aki", 6)  # ALEA's declarations go from 0 to 5
        assert table.voice.wait_idle()
    finally:
        table.voice.close()
    assert sink.pieces == ["refused"]


def test_the_speaker_plays_one_piece_after_the_other(tmp_path):
    log = tmp_path / "plays.txt"
    player = tmp_path / "player.py"
    player.write_text("import sys, time\n"
                      f"open({str(log)!r}, 'a').write(f'start {{time.monotonic()}}\\n')\n"
                      "time.sleep(0.05)\n"
                      f"open({str(log)!r}, 'a').write(f'end {{time.monotonic()}}\\n')\n")
    speaker = Speaker([sys.executable, str(player)])
    voice = Voice("en", speaker, synth=lambda lang: (lambda text: np.full(RATE // 20, 0.2, np.float32)))
    try:
        voice.submit([Announcement(1, "en", "verdict", ("one.", "two.", "three."))])
        assert voice.wait_idle()
    finally:
        voice.close()
    marks = log.read_text().split()
    assert marks[0::2] == ["start", "end"] * 3  # never two at once
    times = [float(t) for t in marks[1::2]]
    assert times == sorted(times)


def test_a_player_that_fails_silences_the_voice_with_its_reason(tmp_path):
    player = tmp_path / "player.py"
    player.write_text("import sys\nprint('audio open error: Permission denied', file=sys.stderr)\nsys.exit(1)\n")
    voice = Voice("en", Speaker([sys.executable, str(player)]),
                  synth=lambda lang: (lambda text: np.full(RATE // 20, 0.2, np.float32)))
    try:
        voice.submit([Announcement(1, "en", "verdict", ("one.", "two."))])
        assert voice.wait_idle()
        voice.sink.wait()
        status = voice.status()
        assert not status["on"] and "Permission denied" in status["reason"]["en"] and status["reason"]["ja"]
    finally:
        voice.close()


# --- whole games spoken to WAV files, both languages ----------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.jsonl")))
def test_a_whole_game_is_spoken_to_wav_files(tmp_path, script, lang):
    _needs(lang)
    from pi.voice.script import speak_script

    with (EXAMPLES / script).open("rb") as f:
        records = speak_script(f, tmp_path, lang)
    assert len(records) >= 5 and (tmp_path / "index.jsonl").exists()
    kinds = {r["kind"] for r in records}
    assert "verdict" in kinds and records[-1]["kind"] == "winner"
    views = list(_views(script))
    log = views[-1][1]["log"]
    names = [s["name"] for s in views[-1][1]["seats"]]
    heard = {spoken.sentence(s, lang) for s in (speakable(line[lang], lang, names) for line in log) if s}
    for number, record in enumerate(records, 1):
        assert record["file"] == f"{number:04d}-{record['kind']}.wav" and record["lang"] == lang
        samples = _samples(tmp_path / record["file"])
        assert abs(len(samples) / RATE - record["seconds"]) < 0.01
        assert record["seconds"] > 0.4
        rms = float(np.sqrt(np.mean(samples ** 2)))
        assert rms > 0.01, f"{record['file']} is silent"
        if record["kind"] in ("verdict", "reveal", "winner"):
            # Each sentence is one of the game log's lines as it is spoken: nothing made up.
            assert record["sentences"] and set(record["sentences"]) <= heard, record["text"]


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_demo_game_speaks_to_wav_files_what_its_log_says(tmp_path, lang):
    """The acceptance check in small: the demo appliance with $DICETABLE_VOICE_WAV, a game
    played through the table, every announcement compared with the game's log."""
    _needs(lang)
    import random

    from gpiozero.pins.mock import MockFactory

    from pi import config as config_module
    from pi.appliance import build
    from tests.pi.test_games import random_step

    config = dataclasses.replace(config_module.load(None), data_dir=tmp_path / "data", language=lang)
    appliance = build(config, demo=True, pin_factory=MockFactory(), animate=False, camera=None, detector=None)
    table = appliance.table
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("DICETABLE_VOICE_WAV", str(tmp_path / "wav"))
            watcher = attach(table, config)
        assert table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=11)["ok"]
        rng = random.Random(5)
        for _ in range(12):
            assert watcher.wait_seen(table.version) and watcher.voice.wait_idle()
            if not table.expects_now()["inputs"] or not random_step(table, rng):
                break
        assert watcher.wait_seen(table.version) and watcher.voice.wait_idle()
        view = table.engine.view(table.state)
    finally:
        appliance.close()
    records = [json.loads(line) for line in (tmp_path / "wav" / "index.jsonl").read_text().splitlines()]
    log = [spoken.sentence(s, lang) for s in (speakable(line[lang], lang, [s["name"] for s in SEATS3])
                                               for line in view["log"]) if s]
    told = [r for r in records if r["kind"] in ("verdict", "reveal", "winner")]
    assert len(told) >= 5 and any(r["kind"] == "reveal" for r in told)
    for record in told:
        assert float(np.sqrt(np.mean(_samples(tmp_path / "wav" / record["file"]) ** 2))) > 0.01
    # With time to speak between moves, the voice said the whole log, in order, once.
    assert [s for r in told for s in r["sentences"]] == log


def test_replay_speak_writes_the_announcements_and_says_what_is_wrong(tmp_path):
    _needs("en")
    script = EXAMPLES / "flyingdwarves.jsonl"
    out = tmp_path / "spoken"
    done = subprocess.run([sys.executable, "-m", "pi.cli", "replay", "--speak", str(out), "--lang", "en", str(script)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    assert lines and set(lines[0]) >= {"event", "lang", "text", "seconds"} and lines[0]["lang"] == "en"
    assert len(list(out.glob("*.wav"))) == len(lines)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    refused = subprocess.run([sys.executable, "-m", "pi.cli", "replay", "--speak", str(out), str(bad)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "line 1: not valid JSON" in refused.stderr and "Traceback" not in refused.stderr
    unwritable = subprocess.run([sys.executable, "-m", "pi.cli", "replay", "--speak", str(bad), "--lang", "en", str(script)],
                                capture_output=True, text=True, timeout=60)
    assert unwritable.returncode == 1 and "give a folder" in unwritable.stderr and "Traceback" not in unwritable.stderr


# --- config and the host page --------------------------------------------------------------------


def test_voice_config_is_validated():
    import tomllib

    from pi import config as config_module

    ok = config_module.from_dict(tomllib.loads('host_pin = "4821"\n[voice]\nvolume = 30\nmuted = true\n'))
    assert ok.voice == config_module.VoiceConfig(enabled=True, volume=30, muted=True)
    assert config_module.from_dict({"host_pin": "4821"}).voice == config_module.VoiceConfig()
    for text, says in (("[voice]\nvolume = 120", "voice.volume: 120 is out of range"),
                       ('[voice]\nenabled = "yes"', "voice.enabled: expected true or false"),
                       ("[voice]\nvolumes = 3", 'did you mean "volume"'),
                       ("voice = 3", "voice: expected a table")):
        with pytest.raises(config_module.ConfigError, match=says):
            config_module.from_dict(tomllib.loads('host_pin = "4821"\n' + text))


def test_the_example_config_holds_the_voice_keys():
    from pi import config as config_module

    example = Path(__file__).resolve().parents[2] / "dicetable.example.toml"
    assert config_module.load(example).voice == config_module.VoiceConfig()


def test_voice_off_in_the_config_is_silent_with_the_reason(table, config, tmp_path):
    from pi import config as config_module

    config = dataclasses.replace(config, voice=config_module.VoiceConfig(enabled=False))
    watcher = attach(table, config, wav_dir=tmp_path)
    try:
        assert not table.voice.on and "enabled = false" in table.voice.reason["en"]
    finally:
        watcher.close()
        table.stop()


@pytest.fixture
def host_client(table, config, tmp_path, monkeypatch):
    from pi.web import create_app

    # A silent synthesiser for the config's language (Japanese): no speech program needed.
    monkeypatch.setattr("pi.voice.synth.shared", lambda _lang: lambda text: np.zeros(RATE // 20, np.float32))
    table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=5)
    watcher = attach(table, config, wav_dir=tmp_path / "wav", mute=True)
    client = create_app(table, config, {"TESTING": True}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    yield client
    watcher.close()
    table.stop()


def test_host_page_mutes_and_sets_the_volume(host_client, table):
    assert host_client.post("/host/voice", json={"muted": 0}).status_code == 403  # the host only
    host_client.post("/host/login", data={"pin": "4821"})
    page = host_client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="voice"' in page and "Muted" in page and 'id="voice-mute"' in page
    answer = host_client.post("/host/voice", json={"muted": "0", "volume": 40})
    assert answer.status_code == 200 and answer.get_json()["voice"] == {
        "on": True, "reason": None, "volume": 40, "muted": False, "lang": "ja"}
    for bad in ({"volume": 101}, {"volume": "-3"}, {"volume": True}, {"muted": "maybe"}, {}):
        refused = host_client.post("/host/voice", json=bad)
        assert refused.status_code == 400 and set(refused.get_json()["error"]) == {"en", "ja"}
        assert table.voice.status()["volume"] == 40 and not table.voice.muted  # nothing changed
    form = host_client.post("/host/voice", data={"muted": "1"}, headers={"Accept": "text/html"})
    assert form.status_code == 302 and table.voice.muted
    ja = host_client.get("/host", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "ミュート解除" in ja and "音量 40%" in ja


def test_host_page_says_why_the_table_is_silent(table, config):
    from pi.web import create_app

    client = create_app(table, config, {"TESTING": True}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    client.post("/host/login", data={"pin": "4821"})
    page = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "The table is silent" in page and "the voice is not running" in page and 'id="voice-mute"' not in page
    refused = client.post("/host/voice", json={"muted": 1})
    assert refused.status_code == 409 and "not running" in refused.get_json()["error"]["en"]
