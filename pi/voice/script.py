"""``dicetable replay --speak DIR SCRIPT`` and ``dicetable bench-voice``.

``speak_script`` plays a game script (docs/replay.md) through its engine and the table's
voice, with a ``WavFolder`` for the speaker: one numbered WAV per announcement and
``DIR/index.jsonl`` (event number, language, text, duration). Each event's announcements
are said in full before the next event (a script has no pauses to drop them in).

``bench-voice`` times, on this machine, a verdict's first word against the same verdict
reaching a phone: the demo appliance serves a live page to an HTTP client while its voice
speaks to WAV files; for each settled roll the clock starts when the table gets it, and
stops (a) when the first sentence of its verdict is handed to the speaker (synthesised,
ready to play) and (b) when the page's event stream has the new view.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from pi.voice.spoken import LANGUAGES, announcements

log = logging.getLogger(__name__)

FIRST_WORD_TARGET_MS = 500.0


def speak_script(stream: IO, folder: str | Path, lang: str) -> list[dict[str, Any]]:
    """Speak the script in ``stream`` into ``folder``; the index records. ``ScriptError``
    (pi.replay) for a script that cannot be played; ``SpeechError`` without the language's
    speech program."""
    import json

    import engines
    from engines.core import IllegalEvent, SetupError
    from pi.replay import ScriptError, read_script
    from pi.voice.synth import SpeechError
    from pi.voice.worker import Voice, WavFolder

    header, events = read_script(stream)
    try:
        game = engines.load(header["game"])
        state = game.setup(header["seats"], header["options"], header["seed"])
    except SetupError as exc:
        raise ScriptError(f"line {header['line']}: the first line cannot start a game: {exc}") from None
    except ValueError as exc:
        raise ScriptError(f"line {header['line']}: {exc}") from None
    sink = WavFolder(folder)
    sink.index.write_text("", encoding="utf-8")
    voice = Voice(lang, sink)
    if voice.reason is not None:
        voice.close()
        raise SpeechError(voice.reason["en"], voice.reason["ja"])
    try:
        before = None
        for number, event in [(header["line"], None), *events]:
            if event is not None:
                try:
                    state = game.apply(state, event)
                except IllegalEvent:
                    continue  # a refused event changes nothing and says nothing
            view = game.view(state)
            voice.submit(announcements(before, view, lang, number))
            voice.wait_idle()
            before = view
    finally:
        voice.close()
    return [json.loads(line) for line in sink.index.read_text(encoding="utf-8").splitlines()]


def run_speak(args: argparse.Namespace) -> int:
    """The ``--speak`` part of ``dicetable replay``."""
    from pi.replay import EXIT_BAD_SCRIPT, ScriptError
    from pi.voice.synth import SpeechError

    try:
        if args.script == "-":
            records = speak_script(getattr(sys.stdin, "buffer", sys.stdin), args.speak, args.lang)
        else:
            try:
                stream = open(args.script, "rb")
            except OSError as exc:
                raise ScriptError(f"cannot read {args.script}: {exc.strerror}") from None
            with stream:
                records = speak_script(stream, args.speak, args.lang)
    except ScriptError as exc:
        print(f"dicetable replay: {exc}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    except SpeechError as exc:
        print(f"dicetable replay --speak: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"dicetable replay --speak: cannot write the announcements to {args.speak} "
              f"({exc.strerror or exc}); give a folder that can be written", file=sys.stderr)
        return 1
    seconds = sum(r["seconds"] for r in records)
    print(f"{len(records)} announcements ({seconds:.0f} s of speech, {args.lang}) in {args.speak}/, "
          f"listed in {Path(args.speak) / 'index.jsonl'}")
    return 0


# --- bench-voice ------------------------------------------------------------------------------


def register(sub) -> None:
    p = sub.add_parser("bench-voice", help="time from a verdict to its first spoken word, beside a phone's view",
                       description="Start the demo appliance with its voice writing WAV files, play settled "
                       "rolls, and time each verdict's first word (synthesised, handed to the speaker) and "
                       "its arrival on a live page; also the speech programs' real-time factors.")
    p.add_argument("--rolls", type=int, default=15, help="settled rolls to time (default 15)")
    p.add_argument("--lang", choices=LANGUAGES, default=None, help="one language (default: both)")
    p.set_defaults(handler=bench_main)


def _first_words(lang: str, rolls: int) -> tuple[list[float], list[float]]:
    """(verdict -> first word ms, verdict -> phone view ms) over ``rolls`` settled rolls."""
    from gpiozero.pins.mock import MockFactory

    import engines
    from pi import config as config_module
    from pi.appliance import build
    from pi.bench import SEATS, SSEClient, _ensure_throw_due, _roll_for
    from pi.voice import attach

    spoken: list[float] = []  # when each verdict's first sentence was handed to the speaker
    cond = threading.Condition()
    with tempfile.TemporaryDirectory(prefix="dicetable-bench-voice-") as tmp:
        base = config_module.load(None)
        config = dataclasses.replace(base, data_dir=Path(tmp) / "data", language=lang)
        from vision.camera import SyntheticTable

        synthetic = SyntheticTable(size=(config.camera.width, config.camera.height))
        appliance = build(config, demo=True, pin_factory=MockFactory(), animate=False, camera=synthetic,
                          synthetic=synthetic, detector=None)
        table = appliance.table
        frame = synthetic.read()
        watcher = attach(table, config, wav_dir=Path(tmp) / "wav")

        def on_piece(piece: Any, item: Any) -> None:
            if item.kind != "turn" and piece.sentence == item.sentences[0] and piece.first:  # a verdict, a game's end
                with cond:
                    spoken.append(time.perf_counter())
                    cond.notify_all()

        watcher.voice.on_piece = on_piece
        from pi.voice.synth import synthesiser

        uncached = synthesiser(lang)  # every verdict made afresh: the worst case, not the cache's
        watcher.voice._synth_for = lambda _lang: uncached
        try:
            table.start_game(engines.GAMES[0], SEATS, {}, seed=1)
            port = appliance.serve_in_thread("127.0.0.1", 0)
            client = SSEClient("127.0.0.1", port)
            rng, ids = random.Random(1), iter(range(10**6, 10**7))
            first, phone = [], []
            for _ in range(rolls):
                exp = _ensure_throw_due(table, rng)
                watcher.wait_seen(table.version)  # the voice is quiet before the verdict
                watcher.voice.wait_idle()
                roll = _roll_for(exp, [], rng, ids)
                started = time.perf_counter()
                result = table.settled_roll(roll, frame)
                if not result["ok"]:
                    raise RuntimeError(f"the benchmark's roll was refused: {result['error']['en']}")
                arrived = client.wait_for(roll.dice[-1].id)
                with cond:
                    if not cond.wait_for(lambda: spoken and spoken[-1] >= started, 30):
                        raise RuntimeError("the verdict was never spoken")
                first.append((spoken[-1] - started) * 1000.0)
                phone.append((arrived - started) * 1000.0)
            client.close()
        finally:
            watcher.close()
            appliance.close()
    return first, phone


#: How much slower a Raspberry Pi 4 core (Cortex-A72, 1.5-1.8 GHz) runs this CPU-bound work
#: than a current x86 server core: published single-core scores put it at a fifth or less.
#: An assumption, not measured on a Pi (docs/voice.md).
PI4_SLOWER = 5.0

#: A typical verdict: its first clause (made alone, see pi.voice.worker.parts) and whole.
VERDICT = {"ja": "アキが2を振った; 場 2: セーフ, アキ プラス1。", "en": "Aki threw 2; table 2: safe, Aki +1."}


def _children_cpu_ms() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (used.ru_utime + used.ru_stime) * 1000.0


def _synthesis(lang: str) -> dict[str, float]:
    """Medians of 5 runs of the language's speech program (no cache): ``per_second`` (ms
    of wall time per second of speech), ``first``/``whole`` (wall ms for a verdict's first
    clause and whole sentence) and ``first_cpu`` (the CPU ms the program used for the first
    clause: what a slower CPU multiplies, whatever else runs beside it)."""
    from pi.voice.synth import RATE, synthesiser
    from pi.voice.worker import parts

    synth = synthesiser(lang)
    first = parts(VERDICT[lang], lang)[0]
    wall: dict[str, list[float]] = {first: [], VERDICT[lang]: []}
    cpu: list[float] = []
    seconds = 0.0
    for _ in range(5):
        for text in wall:
            started, cpu_before = time.perf_counter(), _children_cpu_ms()
            samples = synth(text)
            wall[text].append((time.perf_counter() - started) * 1000.0)
            if text == first:
                cpu.append(_children_cpu_ms() - cpu_before)
            else:
                seconds = len(samples) / RATE
    whole = statistics.median(wall[VERDICT[lang]])
    return {"per_second": whole / seconds, "first": statistics.median(wall[first]), "whole": whole,
            "first_cpu": statistics.median(cpu)}


def bench_main(args: argparse.Namespace) -> int:
    from pi.bench import _machine
    from pi.voice.synth import SpeechError

    logging.basicConfig(level=logging.WARNING)
    if args.rolls < 1:
        print("dicetable bench-voice: --rolls must be at least 1", file=sys.stderr)
        return 2
    print(f"dicetable bench-voice: {args.rolls} settled rolls -> first spoken word (voice to WAV, "
          f"no cache) and -> SSE client over HTTP (waitress, localhost)")
    print(f"machine: {_machine()}, load average {os.getloadavg()[0]:.1f}")
    ok = True
    for lang in [args.lang] if args.lang else list(LANGUAGES):
        try:
            synthesis = _synthesis(lang)
            first, phone = _first_words(lang, args.rolls)
        except SpeechError as exc:
            print(f"{lang}: no speech ({exc})")
            ok = False
            continue
        median = statistics.median(first)
        met = median <= FIRST_WORD_TARGET_MS
        ok = ok and met
        print(f"{lang}: verdict -> first word: median {median:.0f} ms, max {max(first):.0f} ms "
              f"(target <= {FIRST_WORD_TARGET_MS:.0f} ms: {'ok' if met else 'MISSED'}); "
              f"verdict -> phone view: median {statistics.median(phone):.1f} ms")
        print(f"{lang}: synthesis: {synthesis['per_second']:.0f} ms per second of speech; a verdict's first clause "
              f"{synthesis['first']:.0f} ms ({synthesis['first_cpu']:.0f} ms of CPU), the whole sentence "
              f"{synthesis['whole']:.0f} ms")
        print(f"{lang}: Raspberry Pi 4 estimate: the first clause's synthesis takes about "
              f"{synthesis['first_cpu'] * PI4_SLOWER:.0f} ms there ({PI4_SLOWER:.0f} x its CPU time here), "
              f"the first word about {(max(0.0, median - synthesis['first']) + synthesis['first_cpu']) * PI4_SLOWER:.0f} ms "
              f"after the verdict ({PI4_SLOWER:.0f} x (this machine's median less the clause's wall time, "
              f"plus its CPU time))")
    return 0 if ok else 1
