"""Offline speech: a sentence in, samples out, from a speech program run as a subprocess.

- English: espeak-ng (Debian/Raspberry Pi OS package ``espeak-ng``).
- Japanese: Open JTalk (``open-jtalk``, ``open-jtalk-mecab-naist-jdic`` and the voice
  ``hts-voice-nitech-jp-atr503-m001``): it reads kanji, numbers and counters as a Japanese
  speaker expects (罠 ワナ, 魚 サカナ, 路線 ロセン, 12点 ジューニテン), where espeak-ng's
  Japanese says "Chinese letter" for every kanji. Why: docs/voice.md.

Nothing is downloaded at run time: the programs and their data come from the packages.
Every synthesiser gives mono float samples in -1..1 at ``RATE``; ``Cached`` keeps what
was said before (a table repeats "Aki's turn" all evening).
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
import threading
import wave
from collections import OrderedDict
from pathlib import Path

import numpy as np

#: The one sample rate of everything the voice plays (speech and sounds).
RATE = 22050
#: A speech program that takes longer than this for one sentence is given up on.
TIMEOUT_S = 20.0

OPEN_JTALK_DICTIONARIES = ("/var/lib/mecab/dic/open-jtalk/naist-jdic", "/usr/share/open_jtalk/dic")
OPEN_JTALK_VOICES = ("/usr/share/hts-voice/nitech-jp-atr503-m001/nitech_jp_atr503_m001.htsvoice",)
INSTALL = {
    "en": "apt install espeak-ng",
    "ja": "apt install open-jtalk open-jtalk-mecab-naist-jdic hts-voice-nitech-jp-atr503-m001",
}


class SpeechError(RuntimeError):
    """No speech for a language here (the program is missing or failed); the message says
    what to install. ``words`` is the message in English and Japanese for the host page."""

    def __init__(self, en: str, ja: str | None = None) -> None:
        super().__init__(en)
        self.words = {"en": en, "ja": ja or f"音声を作れません（{en}）"}


def read_wav(data: bytes) -> tuple[np.ndarray, int]:
    """(mono float samples, rate) of 16-bit PCM WAV bytes. espeak-ng writing to a pipe
    leaves the sizes in its header unset, so the data chunk is read to the end."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise SpeechError("the speech program did not write a WAV file")
    pos, rate, channels = 12, None, 1
    while pos + 8 <= len(data):
        chunk, size = data[pos:pos + 4], int.from_bytes(data[pos + 4:pos + 8], "little")
        if chunk == b"fmt ":
            channels = int.from_bytes(data[pos + 10:pos + 12], "little")
            rate = int.from_bytes(data[pos + 12:pos + 16], "little")
        elif chunk == b"data":
            body = data[pos + 8:pos + 8 + size] if pos + 8 + size <= len(data) else data[pos + 8:]
            body = body[: len(body) // 2 * 2]
            samples = np.frombuffer(body, dtype="<i2").astype(np.float32) / 32768.0
            if channels > 1:
                samples = samples[: len(samples) // channels * channels].reshape(-1, channels).mean(axis=1)
            if rate is None:
                raise SpeechError("the WAV file has no format chunk")
            return samples, rate
        pos += 8 + size + (size & 1)
    raise SpeechError("the WAV file has no data")


def resample(samples: np.ndarray, rate: int, to: int = RATE) -> np.ndarray:
    """``samples`` at ``rate`` as samples at ``to`` (linear interpolation)."""
    if rate == to or not len(samples):
        return samples.astype(np.float32)
    n = int(round(len(samples) * to / rate))
    return np.interp(np.arange(n) * (rate / to), np.arange(len(samples)), samples).astype(np.float32)


def wav_bytes(samples: np.ndarray, rate: int = RATE) -> bytes:
    """16-bit mono PCM WAV bytes of float ``samples``."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return out.getvalue()


def _run(args: list[str], text: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(args, input=text.encode("utf-8"), capture_output=True, timeout=TIMEOUT_S, check=True)
    except subprocess.TimeoutExpired:
        raise SpeechError(f"{Path(args[0]).name} took more than {TIMEOUT_S:.0f} s for one sentence") from None
    except subprocess.CalledProcessError as exc:
        detail = exc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise SpeechError(f"{Path(args[0]).name} failed ({detail[0]})") from None
    except OSError as exc:
        raise SpeechError(f"{Path(args[0]).name} cannot run ({exc.strerror})") from None


class Espeak:
    """espeak-ng: English (and the other languages it has, read letter by letter where
    it has no dictionary). The text goes in on stdin, so no sentence is read as an option."""

    name = "espeak-ng"

    def __init__(self, lang: str = "en", words_per_minute: int = 165) -> None:
        self.program = shutil.which("espeak-ng")
        if self.program is None:
            raise SpeechError(f"espeak-ng is not installed ({INSTALL['en']})",
                              f"espeak-ng がインストールされていません（{INSTALL['en']}）")
        self.lang = lang
        self.args = [self.program, "-v", lang, "-s", str(words_per_minute), "--stdin", "--stdout"]

    def __call__(self, text: str) -> np.ndarray:
        samples, rate = read_wav(_run(self.args, text).stdout)
        return resample(samples, rate)


class OpenJTalk:
    """Open JTalk with the NAIST dictionary and the NIT ATR503 male voice (Japanese),
    made at ``RATE`` directly (``-s``/``-p``), a little faster than its default pace."""

    name = "open_jtalk"

    def __init__(self, speed: float = 1.15) -> None:
        program = shutil.which("open_jtalk")
        dictionary = next((d for d in OPEN_JTALK_DICTIONARIES if os.path.isdir(d)), None)
        voice = next((v for v in OPEN_JTALK_VOICES if os.path.isfile(v)), None)
        if program is None or dictionary is None or voice is None:
            missing = [what for what, found in (("open_jtalk", program), ("its dictionary", dictionary),
                                                ("its voice", voice)) if found is None]
            raise SpeechError(f"Open JTalk is not installed ({', '.join(missing)} missing; {INSTALL['ja']})",
                              f"Open JTalk がインストールされていません（{INSTALL['ja']}）")
        self.lang = "ja"
        frame_period = round(RATE * 0.005)  # 5 ms frames, as the voice was trained
        self.args = [program, "-x", dictionary, "-m", voice, "-s", str(RATE), "-p", str(frame_period),
                     "-r", str(speed)]

    def __call__(self, text: str) -> np.ndarray:
        handle, path = tempfile.mkstemp(prefix="dicetable-voice-", suffix=".wav")
        os.close(handle)
        try:
            _run([*self.args, "-ow", path], text)
            samples, rate = read_wav(Path(path).read_bytes())
        except OSError as exc:
            raise SpeechError(f"open_jtalk wrote no sound ({exc.strerror})") from None
        finally:
            Path(path).unlink(missing_ok=True)
        return resample(samples, rate)


def synthesiser(lang: str):
    """The speech program of ``lang`` ("en": espeak-ng, "ja": Open JTalk); SpeechError
    saying what to install when it is missing."""
    if lang == "ja":
        return OpenJTalk()
    if lang == "en":
        return Espeak("en")
    raise SpeechError(f"no voice for the language {lang!r}; the table speaks ja or en")


class Cached:
    """A synthesiser that remembers the last ``size`` sentences it said."""

    def __init__(self, synth, size: int = 512) -> None:
        self.synth = synth
        self.name = getattr(synth, "name", type(synth).__name__)
        self.size = size
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, text: str) -> np.ndarray:
        with self._lock:
            if text in self._kept:
                self._kept.move_to_end(text)
                return self._kept[text]
        samples = self.synth(text)
        with self._lock:
            self._kept[text] = samples
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return samples


_SHARED: dict[str, Cached] = {}
_SHARED_LOCK = threading.Lock()


def shared(lang: str) -> Cached:
    """One cached synthesiser per language for the whole process (SpeechError when missing)."""
    with _SHARED_LOCK:
        if lang not in _SHARED:
            _SHARED[lang] = Cached(synthesiser(lang))
        return _SHARED[lang]
