"""Metadata tables (issue 42, item 12): the time and peak memory of reading an item table, beside
the file's size — a CSV of 1 M rows, the same as Parquet, and Parquet tables written in one-row
groups (a footer within the 16 MB read, and one beyond it, refused before it is parsed). Each
read is its own process (max RSS from /usr/bin/time); a process that only imports what the
reader imports gives the floor that the table's memory is above."""

from __future__ import annotations

import time
from pathlib import Path

from harness import failure, fmt, job_command, mb, measure

COLUMNS = "item_id,title,artist,year,audio"


def make_metadata_workload(folder: Path, rows: int, one_row_groups: tuple[int, ...]) -> dict:
    """{label: path} of the item tables read (made once, kept in ``folder``)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    csv = folder / f"items_{rows}.csv"
    if not csv.exists():
        with csv.open("w") as out:
            out.write(COLUMNS + "\n")
            for i in range(rows):
                out.write(f"trk{i},Song number {i},Artist {i % 977},{1950 + i % 70},"
                          f"audio/trk{i}.mp3\n")
    paths[f"CSV, {rows:,} rows"] = csv
    table = pacsv.read_csv(csv, convert_options=pacsv.ConvertOptions(
        column_types={c: pa.string() for c in COLUMNS.split(",")}))
    parquet = folder / f"items_{rows}.parquet"
    if not parquet.exists():
        pq.write_table(table, parquet)
    paths[f"Parquet, {rows:,} rows (default row groups)"] = parquet
    for groups in one_row_groups:
        many = folder / f"items_{groups}_one_row_groups.parquet"
        if not many.exists():
            pq.write_table(table.slice(0, groups), many, row_group_size=1)
        paths[f"Parquet, {groups:,} one-row groups"] = many
    return paths


def job_metadata(path: str) -> dict:
    """Read one item table (``-``: only import what the reader imports): seconds, rows and the
    table's own memory (its columns, and its index with the hash that found the ids unique)."""
    import pandas  # noqa: F401
    import polars  # noqa: F401
    import pyarrow.compute  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    from metrics.errors import InputError
    from metrics.loaders.metadata import read_item_table

    if path == "-":
        return {}
    t0 = time.perf_counter()
    try:
        table = read_item_table(path)
    except InputError as exc:
        return {"read": time.perf_counter() - t0, "refused": str(exc)}
    return {"read": time.perf_counter() - t0, "rows": len(table),
            "held_mb": float(table.memory_usage(deep=True, index=True).sum()) / 2 ** 20}


def bench_metadata(paths: dict, repeats: int) -> dict:
    print("running the metadata tables", flush=True)
    floor = measure("imports", job_command("metadata", "-"), repeats)
    return {"floor": floor, "tables": {label: (path.stat().st_size, measure(
        label, job_command("metadata", str(path)), repeats)) for label, path in paths.items()}}


def report_metadata(result: dict) -> list[str]:
    floor = result["floor"]
    floor_mb = min((r["rss_mb"] for r in floor if not r["failed"]), default=float("nan"))
    lines = ["## Metadata tables: memory beside the file's size", "",
             "An item table read by `metrics.loaders.metadata.read_item_table`, each in its own "
             "process (medians; peak memory is the process's max RSS, its floor the same process "
             f"importing pandas, pyarrow and polars only: {mb(floor_mb)} MB). *Held* is the "
             "table's own memory, `memory_usage(deep=True)`: its Arrow columns (text and 8-byte "
             "offsets) and its index with pandas' hash of the ids, built while reading (it finds "
             "a repeated id, and every look-up uses it).", "",
             "| table | file MB | read (s) | held MB | peak MB | peak above the floor MB |",
             "| --- | --- | --- | --- | --- | --- |"]
    for label, (size, runs) in result["tables"].items():
        failed = failure(runs)
        ok = [r for r in runs if not r["failed"]]
        if failed or not ok:
            lines.append(f"| {label} | {mb(size / 2 ** 20)} | {failed} | | | |")
            continue
        run = sorted(ok, key=lambda r: r["wall"])[len(ok) // 2]
        peak = run["rss_mb"]
        if "refused" in run:
            lines.append(f"| {label} | {mb(size / 2 ** 20)} | refused in {fmt(run['read'])}: "
                         f"\"{run['refused'].split(': ', 1)[1][:110]}…\" | — | {mb(peak)} | "
                         f"{mb(peak - floor_mb)} |")
            continue
        lines.append(f"| {label} | {mb(size / 2 ** 20)} | {fmt(run['read'])} | "
                     f"{mb(run['held_mb'])} | {mb(peak)} | {mb(peak - floor_mb)} |")
    return lines + [""]
