"""Extract the TinySOL index shipped in a mirdata wheel into ``sample_data/tinysol/items.csv``.

This item table (one row per note) is the only input of the ``tinysol/`` sample that comes from outside; it is
committed, so ``make_samples.py`` needs neither mirdata nor the network. To redo it::

    pip download "mirdata==0.3.6" --no-deps -d /tmp/mirdata
    python sample_data/extract_tinysol.py /tmp/mirdata/mirdata-0.3.6-py3-none-any.whl

mirdata 0.3.6 is the last release whose wheel holds ``tinysol_index_6.0.json`` (0.3.9 fetches it
at run time). Only the wheel's JSON is read (as a zip member); no mirdata code is imported.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

INDEX = "mirdata/datasets/indexes/tinysol_index_6.0.json"
OUT = Path(__file__).resolve().parent / "tinysol" / "items.csv"
HEADER = ["item_id", "title", "family", "instrument", "technique", "pitch", "dynamics"]


def notes_from_index(index: dict) -> list[list[str]]:
    """One row per note, titled like ``Bass Tuba F#1 pp``: the family, instrument and technique are the folders of the note's audio
    path (``audio/Brass/Bass_Tuba/ordinario/BTb-ord-F#1-pp-N-N.wav``); the pitch and the dynamics
    are the third and fourth fields of its id."""
    rows = []
    for note_id, entry in sorted(index["tracks"].items()):
        _, family, instrument, technique, _ = entry["audio"][0].split("/")
        fields = note_id.split("-")
        title = f"{instrument.replace('_', ' ')} {fields[2]} {fields[3]}"
        rows.append([note_id, title, family, instrument, technique, fields[2], fields[3]])
    return rows


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as archive:
        index = json.loads(archive.read(INDEX))
    rows = notes_from_index(index)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join(",".join(r) + "\n" for r in [HEADER, *rows]))
    print(f"{OUT}: {len(rows)} notes")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python sample_data/extract_tinysol.py mirdata-0.3.6-py3-none-any.whl")
    main(sys.argv[1])
