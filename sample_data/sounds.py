"""Short synthetic audio clips for the bundled samples (used by ``make_samples.py``).

Clips are mono 8-bit WAV at 4,000 samples per second, written with the standard library's
``wave``: small enough that five hundred of them add about 3.5 MB to the repository, and a format
every browser plays. The timbres are additive-synthesis caricatures (a bowed string is a bright
harmonic spectrum with vibrato, a piano a decaying one, a drum filtered noise): enough to hear
that two versions are one melody, or which family an excerpt's instruments belong to — not
realism. Every random draw comes from the generator the caller passes in, so the files are
byte-identical from run to run.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE = 4000             # samples per second: a low rate keeps the clips small (Nyquist 2 kHz)
NYQUIST = RATE / 2
MAJOR = [0, 2, 4, 5, 7, 9, 11]
MINOR = [0, 2, 3, 5, 7, 8, 10]


def write_wav(path: Path, signal: np.ndarray) -> None:
    """Unsigned 8-bit mono PCM, peak-normalised to 0.9 of full scale."""
    path.parent.mkdir(parents=True, exist_ok=True)
    peak = float(np.max(np.abs(signal))) or 1.0
    samples = np.clip(np.round(128 + 127 * 0.9 * signal / peak), 0, 255).astype(np.uint8)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(RATE)
        out.writeframes(samples.tobytes())


def hz(midi: float) -> float:
    return 440.0 * 2.0 ** ((midi - 69) / 12)


def _time(seconds: float) -> np.ndarray:
    return np.arange(int(round(seconds * RATE))) / RATE


def _harmonics(f0: float, t: np.ndarray, amplitudes, vibrato: float = 0.0) -> np.ndarray:
    """A sum of harmonics of ``f0`` (those below Nyquist), with an optional 5.5 Hz vibrato of
    ``vibrato`` semitones."""
    phase = 2 * np.pi * f0 * t
    if vibrato:
        phase = phase + vibrato * 0.0578 * f0 / 5.5 * np.sin(2 * np.pi * 5.5 * t)
    out = np.zeros_like(t)
    for n, a in enumerate(amplitudes, start=1):
        if n * f0 < NYQUIST * 0.95 and a:
            out += a * np.sin(n * phase)
    return out


def _envelope(t: np.ndarray, attack: float, decay: float | None, release: float = 0.03):
    """Attack ramp, then exponential decay (``decay`` seconds to 1/e) or a held level, and a short
    release so that notes do not click."""
    env = np.minimum(1.0, t / max(attack, 1e-3))
    if decay is not None:
        env = env * np.exp(-np.maximum(t - attack, 0) / decay)
    tail = t[-1] - t if len(t) else t
    return env * np.minimum(1.0, tail / release)


def _lowpass(x: np.ndarray, alpha: float) -> np.ndarray:
    """A one-pole low-pass filter (``alpha`` near 1: darker)."""
    out = np.empty_like(x)
    acc = 0.0
    for i, v in enumerate(x):
        acc = alpha * acc + (1 - alpha) * v
        out[i] = acc
    return out


def _noise(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n)


def note(timbre: str, midi: float, seconds: float, rng: np.random.Generator) -> np.ndarray:
    """One note of ``timbre`` (an instrument name, see ``TIMBRES``)."""
    t = _time(seconds)
    f0 = hz(midi)
    saw = [1 / n for n in range(1, 16)]
    if timbre in ("violin", "cello", "viola", "contrabass", "strings"):
        sig = _harmonics(f0, t, saw, vibrato=0.25) * _envelope(t, 0.08, None)
        sig += 0.03 * _lowpass(_noise(rng, len(t)), 0.6)          # bow noise
    elif timbre in ("acoustic_guitar", "guitar", "harp"):
        sig = _harmonics(f0, t, [1, 0.6, 0.45, 0.25, 0.2, 0.1, 0.08]) * _envelope(t, 0.005, 0.35)
    elif timbre == "electric_guitar":
        raw = _harmonics(f0, t, [1, 0.5, 0.35, 0.25, 0.15]) * _envelope(t, 0.005, 0.8)
        sig = np.tanh(4 * raw)                                      # overdrive
    elif timbre in ("flute", "winds"):
        sig = _harmonics(f0, t, [1, 0.2, 0.08], vibrato=0.15) * _envelope(t, 0.06, None)
        sig += 0.06 * _lowpass(_noise(rng, len(t)), 0.3) * _envelope(t, 0.06, None)   # breath
    elif timbre in ("clarinet", "clarinet_bb"):
        sig = _harmonics(f0, t, [1, 0, 0.55, 0, 0.35, 0, 0.2, 0, 0.1]) * _envelope(t, 0.04, None)
    elif timbre in ("oboe", "bassoon"):
        sig = _harmonics(f0, t, [0.5, 0.9, 1, 0.6, 0.4, 0.3, 0.2]) * _envelope(t, 0.04, None)
    elif timbre in ("saxophone", "sax_alto"):
        sig = _harmonics(f0, t, [1, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.15], vibrato=0.2)
        sig = np.tanh(1.5 * sig) * _envelope(t, 0.03, None)
    elif timbre in ("trumpet", "trumpet_c", "horn", "trombone", "bass_tuba", "brass"):
        bright = np.minimum(1.0, t / 0.08)                         # brass brightens as it speaks
        sig = (_harmonics(f0, t, [1, 0.3, 0.1]) + bright * _harmonics(f0, t, [0, 0.5, 0.5, 0.4,
                                                                             0.3, 0.25, 0.2]))
        sig *= _envelope(t, 0.05, None)
    elif timbre in ("piano", "keyboards"):
        sig = (_harmonics(f0, t, [1, 0.5, 0.3, 0.2, 0.1]) * _envelope(t, 0.003, 0.5)
               + _harmonics(f0, t, [0, 0, 0, 0, 0, 0.1, 0.08]) * _envelope(t, 0.003, 0.1))
    elif timbre in ("organ", "accordion"):
        sig = _harmonics(f0, t, [1, 0.7, 0.5, 0.5, 0.3, 0.3, 0.2, 0.2]) * _envelope(t, 0.02, None)
        if timbre == "accordion":
            sig = sig * (1 + 0.2 * np.sin(2 * np.pi * 6 * t))     # the bellows' beating
    elif timbre in ("congas", "percussion"):
        drop = f0 * (1 + 0.5 * np.exp(-t / 0.02))
        sig = np.sin(2 * np.pi * np.cumsum(drop) / RATE) * _envelope(t, 0.002, 0.12)
        sig += 0.3 * _noise(rng, len(t)) * _envelope(t, 0.001, 0.01)
    elif timbre == "drum_kit":
        sig = drum_hit(rng, t, int(round(midi)) % 3)
    else:
        raise ValueError(f"unknown timbre {timbre!r}")
    return sig


def drum_hit(rng: np.random.Generator, t: np.ndarray, kind: int) -> np.ndarray:
    """0: kick (a falling sine), 1: snare (noise and a tone), 2: hi-hat (bright noise)."""
    if kind == 0:
        freq = 55 + 90 * np.exp(-t / 0.03)
        return np.sin(2 * np.pi * np.cumsum(freq) / RATE) * _envelope(t, 0.002, 0.15)
    if kind == 1:
        return (0.7 * _noise(rng, len(t)) + 0.5 * np.sin(2 * np.pi * 190 * t)) \
            * _envelope(t, 0.001, 0.08)
    noise = _noise(rng, len(t))
    return 0.4 * (noise - _lowpass(noise, 0.5)) * _envelope(t, 0.001, 0.03)


def phrase(timbre: str, pitches, durations, rng: np.random.Generator,
           legato: float = 0.95) -> np.ndarray:
    """Notes one after another (``durations`` in seconds; a pitch of None is a rest)."""
    parts = []
    for midi, dur in zip(pitches, durations):
        sounding = note(timbre, midi, dur * legato, rng) if midi is not None else np.zeros(0)
        parts.append(np.concatenate([sounding, np.zeros(int(round(dur * RATE)) - len(sounding))]))
    return np.concatenate(parts)


# ---- cover songs: one melody per work, versions in other keys, tempi and timbres --------------

COVER_TIMBRES = ["piano", "violin", "flute", "clarinet", "trumpet", "acoustic_guitar",
                 "electric_guitar", "organ", "saxophone", "cello"]


def work_melody(rng: np.random.Generator, length: int = 7) -> tuple[list[int], list[float]]:
    """A work's melody: scale steps (semitones above the tonic) and durations in beats."""
    scale = MAJOR if rng.random() < 0.6 else MINOR
    degree, steps = 0, []
    for _ in range(length):
        steps.append(degree)
        degree = int(np.clip(degree + rng.choice([-2, -1, 1, 1, 2, 3, -3]), -2, 9))
    semitones = [12 * (d // 7) + scale[d % 7] for d in steps]
    beats = [float(b) for b in rng.choice([0.5, 0.5, 1.0, 1.0, 1.5], size=length)]
    beats[-1] = 1.5                                   # a held last note: the phrase ends
    return semitones, beats


def cover_version(melody, rng: np.random.Generator, departure: float) -> np.ndarray:
    """One version of a work: its own key, tempo and instrument; the further it departs (0.4 to
    1.2, as in the similarity scores), the more of its notes it changes."""
    semitones, beats = melody
    tonic = 57 + int(rng.integers(-5, 7))             # A3 ± a fourth
    beat = 60.0 / rng.uniform(160, 230)               # tempo in seconds per beat
    timbre = COVER_TIMBRES[int(rng.integers(len(COVER_TIMBRES)))]
    pitches = []
    for s in semitones:
        changed = rng.random() < 0.25 * (departure - 0.3)
        pitches.append(tonic + s + (int(rng.choice([-2, -1, 1, 2])) if changed else 0))
    return phrase(timbre, pitches, [b * beat for b in beats], rng)


# ---- instrument excerpts: each instrument plays a short figure in its own register ------------

REGISTER = {  # instrument: (lowest, highest) MIDI pitch of the figures it plays
    "violin": (67, 88), "cello": (43, 64), "acoustic_guitar": (52, 72),
    "electric_guitar": (52, 72), "flute": (72, 91), "clarinet": (55, 79),
    "saxophone": (56, 76), "trumpet": (60, 79), "drum_kit": (0, 2), "congas": (52, 60),
    "piano": (48, 84), "organ": (48, 72),
}


def instrument_excerpt(instruments: list[str], gains: list[float], rng: np.random.Generator,
                       seconds: float = 1.2) -> np.ndarray:
    """The instruments of one excerpt playing together, each louder the more salient it is."""
    total = np.zeros(int(round(seconds * RATE)))
    for name, gain in zip(instruments, gains):
        low, high = REGISTER[name]
        if name == "drum_kit":     # a rock beat: kick, hat, snare, hat
            step = seconds / 8
            pitches = [0, 2, 1, 2, 0, 2, 1, 2]
            durations = [step] * 8
        else:
            count = int(rng.integers(2, 6))
            pitches = list(rng.integers(low, high + 1, size=count))
            durations = list(np.full(count, seconds / count))
        part = phrase(name, pitches, durations, rng)
        part = part / (np.max(np.abs(part)) or 1.0)
        total[:len(part)] += gain * part[:len(total)]
    return total


# ---- text-to-music items: a short piece whose instrument, mood and genre can be heard ----------

LEAD_TIMBRE = {   # the text-to-music sample's instruments as the timbres above caricature them
    "piano": "piano", "acoustic guitar": "acoustic_guitar", "string ensemble": "strings",
    "synthesizer": "organ", "saxophone": "saxophone", "female vocals": "flute"}
MOOD_SOUND = {    # mood: (scale, beats a minute, tonic as a MIDI pitch)
    "calm": (MAJOR, 76, 60), "energetic": (MAJOR, 150, 62), "melancholic": (MINOR, 70, 57),
    "cheerful": (MAJOR, 132, 64), "dark": (MINOR, 88, 50), "dreamy": (MAJOR, 66, 65)}
BEAT_GENRES = {"rock": "drum_kit", "hip hop": "drum_kit", "electronic": "drum_kit",
               "latin": "congas"}   # the genres heard with a beat under the lead


def described_piece(genre: str, mood: str, instrument: str, rng: np.random.Generator,
                    seconds: float = 2.0) -> np.ndarray:
    """A text-to-music item: its lead instrument plays a phrase in its mood's scale, tempo and
    register, over a beat where its genre has one."""
    scale, tempo, tonic = MOOD_SOUND[mood]
    beat = 60.0 / tempo
    pitches, durations, total = [], [], 0.0
    degree = int(rng.integers(0, 5))
    while total < seconds - 1e-9:
        length = min(float(rng.choice([0.5, 1.0, 1.0, 2.0])) * beat, seconds - total)
        pitches.append(tonic + 12 * (degree // 7) + scale[degree % 7])
        durations.append(length)
        total += length
        degree = int(np.clip(degree + rng.choice([-2, -1, 1, 2]), 0, 9))
    total_samples = int(round(seconds * RATE))
    lead = phrase(LEAD_TIMBRE[instrument], pitches, durations, rng)[:total_samples]
    out = np.zeros(total_samples)
    out[:len(lead)] = lead / (np.max(np.abs(lead)) or 1.0)
    drum = BEAT_GENRES.get(genre)
    if drum is not None:
        hits = int(seconds / (beat / 2))
        kit = [0, 2, 1, 2] if drum == "drum_kit" else [55, 60, 55, 57]
        part = phrase(drum, [kit[i % 4] for i in range(hits)], [beat / 2] * hits, rng)
        part = part[:total_samples] / (np.max(np.abs(part)) or 1.0)
        out[:len(part)] += 0.5 * part
    return out
