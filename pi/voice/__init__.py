"""The table speaks: results announced aloud in the table's language, offline.

- ``pi.voice.spoken``: what is said, derived from the engines' public view and log;
- ``pi.voice.synth``: espeak-ng (English) and Open JTalk (Japanese) as subprocesses;
- ``pi.voice.sounds``: the chime, the reveal and the refused-press sound (numpy);
- ``pi.voice.worker``: the queue and thread that speak, the sinks (speaker, WAV folder),
  and ``TableVoice``, which follows a running table;
- ``pi.voice.script``: ``dicetable replay --speak`` and ``dicetable bench-voice``.

``attach(table, config)`` gives a table its voice: on where an audio device exists,
silent with the reason (shown on the host page) where none does. docs/voice.md says
which speech programs were chosen and why.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any


def attach(table: Any, config: Any, mute: bool = False, wav_dir: str | Path | None = None) -> Any:
    """Start ``table``'s voice (``table.voice``) with the config's ``[voice]`` settings:
    to ``wav_dir`` (or the folder in $DICETABLE_VOICE_WAV: tests, CI, the acceptance check)
    as WAV files, else to the audio device; ``mute`` starts it muted. Returns the
    ``TableVoice`` watcher; it stops with the table (or ``close()``)."""
    import os

    from pi.voice.worker import Speaker, TableVoice, Voice, WavFolder, audio_output

    wav_dir = wav_dir or os.environ.get("DICETABLE_VOICE_WAV") or None

    settings = getattr(config, "voice", None)
    enabled = getattr(settings, "enabled", True)
    volume = getattr(settings, "volume", 80)
    muted = mute or getattr(settings, "muted", False)
    sink, reason = None, None
    if not enabled:
        reason = {"en": "turned off in the config ([voice] enabled = false)",
                  "ja": "設定で切ってあります（[voice] enabled = false）"}
    elif wav_dir is not None:
        sink = WavFolder(wav_dir)
    else:
        command, reason = audio_output()
        sink = Speaker(command) if command else None
    voice = Voice(getattr(config, "language", "ja"), sink, volume=volume, muted=muted, reason=reason)
    table.voice = voice
    return TableVoice(table, voice)
