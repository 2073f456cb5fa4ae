"""The voice's worker: a queue and one thread, so speech never blocks the table.

``Voice`` takes announcements (``pi.voice.spoken``) and sounds, makes each sentence with
the language's speech program and hands the samples to a sink, one after the other
(never two at once). While one sentence plays the next is made, so the first word of an
announcement waits only for its first sentence. A newer batch of announcements (the
table moved on) drops those still waiting, and the one being said stops after its
current sentence.

Sinks: ``Speaker`` plays through ``aplay`` (ALSA) or ``paplay`` (PulseAudio/PipeWire);
``WavFolder`` writes one numbered WAV per announcement and ``index.jsonl`` (tests, CI,
``dicetable replay --speak``). Both get the same samples by the same path.

``TableVoice`` follows a ``pi.table.Table``: after each change it takes the engine's
public view (no seat: nobody's secrets) and submits what changed.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from pi.voice.sounds import sound
from pi.voice.spoken import Announcement, announcements
from pi.voice.synth import RATE, SpeechError, wav_bytes

log = logging.getLogger(__name__)

#: Silence after each sentence, after a sentence's first clause, and after the sounds.
SENTENCE_GAP_S = 0.25
CLAUSE_GAP_S = 0.08
SOUND_GAP_S = 0.1
#: Announcements submitted closer together than this are one moment of the table (see Voice).
MERGE_S = 1.5

#: A first sentence longer than this (characters) is made in two parts, its first clause
#: alone, so that the first word waits only for a few syllables of synthesis.
FIRST_PART = {"ja": 8, "en": 20}
_CLAUSE_END = re.compile(r"[;:、,；：]\s*")


@dataclass(frozen=True)
class Piece:
    """What the sink plays next: a sound (``sentence`` None) or part of a sentence;
    ``first``: the first part of its sentence (the voice may stop before it)."""

    text: str
    samples: np.ndarray
    sentence: str | None = None
    first: bool = True


def parts(sentence: str, lang: str) -> list[str]:
    """``sentence`` as its first clause and the rest, when it is long and has a clause
    boundary early enough; else the sentence whole."""
    if len(sentence) <= FIRST_PART[lang]:
        return [sentence]
    for match in _CLAUSE_END.finditer(sentence):
        if 2 <= match.end() <= len(sentence) * 0.6:
            return [sentence[:match.end()].rstrip(), sentence[match.end():]]
    return [sentence]


def render(announcement: Announcement, synth: Callable[[str], np.ndarray]) -> Iterator[Piece]:
    """The pieces of an announcement, in the order they are played: its sounds, then each
    sentence followed by a short pause (the first sentence's first clause made alone)."""
    for name in announcement.sounds:
        yield Piece(name, np.concatenate([sound(name), np.zeros(int(RATE * SOUND_GAP_S), np.float32)]))
    for index, sentence in enumerate(announcement.sentences):
        split = parts(sentence, announcement.lang) if index == 0 else [sentence]
        for k, text in enumerate(split):
            gap = SENTENCE_GAP_S if k == len(split) - 1 else CLAUSE_GAP_S
            yield Piece(text, np.concatenate([synth(text), np.zeros(int(RATE * gap), np.float32)]), sentence, k == 0)


# --- sinks ------------------------------------------------------------------------------------


class WavFolder:
    """Writes each announcement to ``DIR/NNNN-kind.wav`` and one line of ``DIR/index.jsonl``:
    the file, event number, language, kind, text said (and its sentences), the sounds
    before it and its duration in seconds."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.index = self.folder / "index.jsonl"
        self.count = 0
        self._pieces: list[np.ndarray] = []
        self._said: list[str] = []
        self._current: Announcement | None = None

    def begin(self, announcement: Announcement) -> None:
        self._current, self._pieces, self._said = announcement, [], []

    def play(self, piece: Piece) -> None:
        self._pieces.append(piece.samples)
        if piece.sentence is not None and piece.first:
            self._said.append(piece.sentence)

    def end(self) -> dict[str, Any]:
        a = self._current
        self.count += 1
        samples = np.concatenate(self._pieces) if self._pieces else np.zeros(0, np.float32)
        name = f"{self.count:04d}-{a.kind}.wav"
        (self.folder / name).write_bytes(wav_bytes(samples))
        joiner = "" if a.lang == "ja" else " "
        record = {"file": name, "event": a.number, "lang": a.lang, "kind": a.kind,
                  "text": joiner.join(self._said), "sentences": list(self._said), "sounds": list(a.sounds),
                  "seconds": round(len(samples) / RATE, 3)}
        with self.index.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._current = None
        return record

    def close(self) -> None:
        pass


class Speaker:
    """Plays each piece through ``command`` (``aplay -q`` or ``paplay``) as a WAV file; a
    piece starts when the one before has finished."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self._dir = tempfile.TemporaryDirectory(prefix="dicetable-speaker-")
        self._playing: subprocess.Popen | None = None
        self._count = 0
        self.error: dict[str, str] | None = None  # why the player failed (the host page shows it)

    def begin(self, announcement: Announcement) -> None:
        pass

    def play(self, piece: Piece) -> None:
        self._count += 1
        path = os.path.join(self._dir.name, f"{self._count % 4}.wav")
        self.wait()
        Path(path).write_bytes(wav_bytes(piece.samples))
        try:
            self._playing = subprocess.Popen([*self.command, path], stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as exc:
            log.warning("cannot play a sound with %s: %s", self.command[0], exc)
            self._playing = None

    def wait(self) -> None:
        if self._playing is None:
            return
        playing, self._playing = self._playing, None
        try:
            _, stderr = playing.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            playing.kill()
            playing.communicate()
            return
        if playing.returncode and self.error is None:  # a sound card the service may not open, ...
            detail = (stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
            log.warning("%s cannot play the voice: %s", self.command[0], detail)
            self.error = {"en": f"{self.command[0]} cannot play ({detail})",
                          "ja": f"{self.command[0]} で再生できません（{detail}）"}

    def end(self) -> None:
        pass

    def close(self) -> None:
        self.wait()
        self._dir.cleanup()


def audio_output() -> tuple[list[str] | None, dict[str, str] | None]:
    """(the command that plays a WAV file here, None) or (None, why the table is silent):
    ``afplay`` on a Mac, ``paplay`` when a PulseAudio/PipeWire server answers, else
    ``aplay`` when ALSA has a sound card."""
    if sys.platform == "darwin" and shutil.which("afplay"):
        return ["afplay"], None
    if shutil.which("paplay") and shutil.which("pactl"):
        try:
            if subprocess.run(["pactl", "info"], capture_output=True, timeout=3).returncode == 0:
                return ["paplay"], None
        except (OSError, subprocess.TimeoutExpired):
            pass
    try:
        cards = Path("/proc/asound/cards").read_text()
    except OSError:
        cards = ""
    if not cards.strip() or "no soundcards" in cards:
        return None, {"en": "no speaker found (no sound card and no PulseAudio/PipeWire server)",
                      "ja": "音声の出力先（スピーカー）が見つかりません"}
    if not shutil.which("aplay"):
        return None, {"en": "aplay is not installed (apt install alsa-utils)",
                      "ja": "aplay がインストールされていません（apt install alsa-utils）"}
    return ["aplay", "-q"], None


# --- the worker -------------------------------------------------------------------------------


class Voice:
    """The queue and the thread that speaks; ``reason`` set (``{"en", "ja"}``): silent, and
    the host page says why.

    ``synth(lang)`` gives the language's synthesiser (``pi.voice.synth.shared``); ``volume``
    0-100 scales the samples; ``muted`` says nothing and drops what waits.

    What is stale: a batch of announcements submitted ``merge_s`` or more before a newer
    one (the table moved on while it waited). Batches closer together than that are one
    moment of the table (a throw and the forced move the table sends after it): a newer
    one drops only their "whose turn" announcements.
    """

    def __init__(self, lang: str, sink: Any, synth: Callable[[str], Any] | None = None, volume: int = 80,
                 muted: bool = False, reason: dict[str, str] | None = None, merge_s: float = MERGE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from pi.voice import synth as synth_module

        self.lang = lang
        self.sink = sink
        self.volume = volume
        self.muted = muted
        self.reason = reason
        self._synth_for = synth or synth_module.shared
        if self.reason is None:
            try:
                self._synth_for(lang)
            except SpeechError as exc:
                self.reason = exc.words
        self._cond = threading.Condition()
        self._queue: deque[tuple[int, Any]] = deque()
        self._generation = 0
        self._stale_below = 0  # batches of an older generation are stale: dropped, cut after their sentence
        self._batches: dict[int, float] = {}  # generation -> when it was submitted
        self.merge_s = merge_s
        self._clock = clock
        self._busy = False
        self._closed = False
        self.said: list[str] = []  # every text handed to the sink, in order (the leak test reads it)
        self.on_piece: Callable[[Piece, Announcement], None] | None = None  # the benchmark's clock
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()

    @property
    def on(self) -> bool:
        return self.why_silent() is None

    def why_silent(self) -> dict[str, str] | None:
        """Why the voice says nothing (``{"en", "ja"}``), None when it speaks: no speech
        program, no audio device, turned off, or a player that failed."""
        if self.reason is not None:
            return self.reason
        if self.sink is None:
            return {"en": "no audio output", "ja": "音声の出力先がありません"}
        return getattr(self.sink, "error", None)

    def status(self) -> dict[str, Any]:
        return {"on": self.on, "reason": self.why_silent(), "volume": self.volume, "muted": self.muted,
                "lang": self.lang}

    def submit(self, items: list[Announcement]) -> None:
        """The table moved on: ``items`` go after what still waits of the same moment (see
        the class); stale announcements are dropped, and one being said stops after its
        sentence. A refused-press sound always stays."""
        if not self.on or self.muted:
            return
        with self._cond:
            now = self._clock()
            stale = [g for g, t in self._batches.items() if now - t >= self.merge_s]
            if stale:
                self._stale_below = max(self._stale_below, max(stale) + 1)
                self._batches = {g: t for g, t in self._batches.items() if g >= self._stale_below}
            self._generation += 1
            self._batches[self._generation] = now
            kept = [q for q in self._queue if isinstance(q[1], str)
                    or q[0] >= self._stale_below and q[1].kind != "turn"]
            self._queue = deque(kept + [(self._generation, a) for a in items])
            self._cond.notify_all()

    def sound(self, name: str) -> None:
        """Play sound ``name`` next (a refused button press)."""
        if not self.on or self.muted:
            return
        with self._cond:
            self._queue.appendleft((self._generation, name))
            self._cond.notify_all()

    def set_volume(self, volume: int) -> None:
        self.volume = volume

    def set_muted(self, muted: bool) -> None:
        with self._cond:
            self.muted = muted
            if muted:
                self._queue.clear()
                self._generation += 1
                self._stale_below = self._generation

    def pending(self) -> list[str]:
        """The texts and sounds waiting in the queue."""
        with self._cond:
            return [q[1] if isinstance(q[1], str) else q[1].text for q in self._queue]

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Until nothing waits and nothing is being said (tests, the benchmark)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
        self._thread.join(timeout=10)
        if self.sink is not None:
            self.sink.close()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._queue or self._closed)
                if self._closed:
                    return
                generation, item = self._queue.popleft()
                self._busy = True
            try:
                self._say(generation, item)
            except Exception:  # a speech program that fails must not stop the voice
                log.exception("the voice could not say %r", item)

    def _superseded(self, generation: int) -> bool:
        with self._cond:
            return generation < self._stale_below or self._closed or self.muted

    def _say(self, generation: int, item: Announcement | str) -> None:
        scale = self.volume / 100.0
        if isinstance(item, str):
            self.sink.begin(Announcement(0, self.lang, item, (), (item,)))
            self.sink.play(Piece(item, sound(item) * scale))
            self.sink.end()
            return
        synth = self._synth_for(item.lang)
        self.sink.begin(item)
        for index, piece in enumerate(render(item, synth)):
            if index and piece.sentence is not None and piece.first and self._superseded(generation):
                break
            if self.on_piece is not None:
                self.on_piece(piece, item)
            if piece.first:
                self.said.append(piece.sentence or piece.text)
            self.sink.play(dataclasses.replace(piece, samples=piece.samples * scale))
        self.sink.end()


class TableVoice:
    """Follows a table: after each change it reads the public view (``engine.view(state)``,
    no seat) and submits the announcements of what changed to ``voice``."""

    def __init__(self, table: Any, voice: Voice) -> None:
        self.table = table
        self.voice = voice
        self.seen = -1  # the table version last looked at
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._record = None
        self._state = None
        self._view: dict[str, Any] | None = None
        self._thread = threading.Thread(target=self._run, name="voice-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        version = -1
        while not self._stop.is_set() and not self.table.stopping:
            version = self.table.wait_for_change(version, timeout=0.5)
            try:
                self.look()
            except Exception:
                log.exception("the voice could not read the table")
            with self._cond:
                self.seen = version
                self._cond.notify_all()
        self.voice.close()

    def look(self) -> None:
        with self.table._lock:
            record, engine, state = self.table.record, self.table.engine, self.table.state
        if state is self._state:
            return
        view = engine.view(state) if state is not None else None
        before = self._view
        if record is not self._record:
            # A game the voice has not heard: a fresh one is announced from its start; one
            # resumed after a restart only says whose turn it is.
            before = None if view is None or not len(getattr(state, "events", ())) else {**view, "expects": {}}
        self._record, self._state, self._view = record, state, view
        if view is not None:
            self.voice.submit(announcements(before, view, self.voice.lang, len(getattr(state, "events", ()))))

    def wait_seen(self, version: int, timeout: float = 10.0) -> bool:
        """Until the table's ``version`` has been looked at."""
        with self._cond:
            return self._cond.wait_for(lambda: self.seen >= version, timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
