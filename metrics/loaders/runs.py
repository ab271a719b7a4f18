"""Loading runs and qrels: TREC files, CSV/TSV with a header, Parquet."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Sequence

import numpy as np

from metrics.data.idcolumn import IdColumn
from metrics.data.rows import WHOLE_LIMIT, whole_float_first, whole_float_ids, whole_numbers
from metrics.data.truth import GroundTruth
from metrics.data.run import Run
from metrics.loaders.fast import encode_grouped, read_columns, single_last_field, trec_header
from metrics.loaders.tables import Layout, Table, numeric_column, read_table, text_column
from metrics.loaders.line_bound import refuse_over_long_line
from metrics.loaders.text import PARQUET_MAGIC, Source, read_bytes, source_name
from metrics.loaders.trec_lines import (COMPILED, QRELS_LAYOUT, REPEATED_KEY, RUN_LAYOUT, Scanned,
                                        Scratch, scan_block)
from metrics.parallel import repeat_in_parts

RUN = Layout("run", trec=("query_id", None, "item_id", "rank", "score", "tag"),
             required=("query_id", "item_id", "score"), optional=("rank", "tag"),
             alternatives=(("query_id", "item_id", "rank"), ("query_id", "item_id")))
QRELS = Layout("qrels", trec=("query_id", None, "item_id", "relevance"),
               required=("query_id", "item_id", "relevance"))


@dataclass(frozen=True)
class TrecText:
    """How the lines of a TREC file read: its columns (:class:`Layout`, whose ``trec`` fields the
    polars reader reads), the one numeric column and its type, and the C reader's description of
    a line (:mod:`.trec_lines`)."""

    layout: Layout
    number: str
    dtype: str        # "float64" (scores) or "int64" (grades)
    c_layout: tuple


RUN_TEXT = TrecText(RUN, "score", "float64", RUN_LAYOUT)
QRELS_TEXT = TrecText(QRELS, "relevance", "int64", QRELS_LAYOUT)


@dataclass(frozen=True, eq=False)
class FastColumns:
    """TREC text as the polars reader read it: the id columns (polars strings), the numbers, and
    the text itself (for the tag, counted on its bytes)."""

    queries: object
    items: object
    numbers: np.ndarray
    text: bytes

    def tag(self) -> str | None:
        """The last field of every line when all lines share it (a run's tag), else None."""
        return single_last_field(self.text, len(self.numbers))


def read_trec_text(data, text: TrecText, scratch: Scratch | None = None
                   ) -> Scanned | FastColumns | None:
    """TREC text (a whole file, or a block of whole lines of one: bytes or a view of a reading
    buffer) read by the first reader that takes it without doubt, in the one order that every
    reader of TREC text follows (:func:`load_run`, :func:`load_qrels` and the stream of
    :mod:`.run_blocks`): the C reader (:mod:`.trec_lines`, where it is built), then polars
    (:mod:`.fast`); None when neither does, and the careful reader must: a whole file is then
    read by :func:`~.tables.read_table`, which names its first bad line, and a stream gives the
    file to the whole-file loader. Each reader gives the same values where it reads, so the
    order changes speed, never results or messages. Ids written as whole floats on the first
    line (``10.0``) are left to polars: only a reader of the whole column can decide them
    (:func:`~metrics.data.rows.whole_float_ids`)."""
    if COMPILED:
        scanned = scan_block(data, text.c_layout, scratch)
        if scanned is not None and not whole_float_first(*scanned.first_ids()):
            return scanned
    data = bytes(data)   # a view of a reading buffer, copied; bytes as they are
    if data[:len(PARQUET_MAGIC)] == PARQUET_MAGIC or trec_header(data):
        return None   # a header: the CSV reader's job
    fast = read_columns(data, text.layout.trec_kept, {text.number: text.dtype})
    if fast is None:
        return None
    numbers = fast[text.number]
    # -2^63 fits int64 but is refused: the careful reader says so, at its line
    if text.dtype == "int64" and (numbers < -WHOLE_LIMIT).any():
        return None
    return FastColumns(fast["query_id"], fast["item_id"], numbers, data)


def run_name(label: str) -> str:
    """A system's name: its file name without extension(s) (``bm25.run.gz`` → ``bm25``)."""
    stem = PurePath(label).name
    for suffix in (".gz", ".csv", ".tsv", ".txt", ".parquet", ".npy", ".run", ".trec", ".res"):
        stem = stem.removesuffix(suffix)
    return stem or label


def system_names(systems: Sequence[tuple[str, str]]) -> list[str]:
    """Distinct names for systems given as (name, file as given), in order: the one rule of the
    app and the command line. Each system is called by its name (its run's tag, or its file's name
    without extensions: :attr:`Run.system_name`); the systems that share a name are called by
    their file name without its extensions instead (two runs tagged ``sys``: ``alpha`` and
    ``beta``), then, if still shared, with its extensions (``run`` and ``run.trec``), then by the
    file as given (its folder too: ``a/run.trec`` and ``b/run.trec``); a name still shared gets
    `` (2)``, `` (3)``, … after its first holder, in order."""
    names = [name for name, _ in systems]
    for fallback in (run_name, lambda given: PurePath(given).name, str):
        shared = {n for n in names if names.count(n) > 1}
        names = [fallback(given) if n in shared else n
                 for n, (_, given) in zip(names, systems)]
    out: list[str] = []
    for name in names:
        unique, number = name, 1
        while unique in out or (unique != name and unique in names):
            number += 1
            unique = f"{name} ({number})"
        out.append(unique)
    return out


def load_run(source: Source, name: str | None = None) -> Run:
    """A run from a TREC file (``qid Q0 item rank score tag``), a CSV/TSV with header
    ``query_id,item_id,score[,rank]`` (or ``query_id,item_id[,rank]`` for a bare ranked list) or
    Parquet with those columns. The TREC rank column is ignored, as trec_eval ignores it; a bare
    list's ranks are whole numbers, read exactly.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The run: a path or the file's bytes.
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).

    Returns
    -------
    Run
        The scores (or ranks) of each query's items, not yet ranked; named after the file
        without its extension, with the TREC tag when every line has the same one.

    Raises
    ------
    InputError
        A line or row that is not a run's, named with its number.

    Examples
    --------
    >>> from metrics.loaders import load_run
    >>> run = load_run("sample_data/fmp/toy1.run")
    >>> len(run), run.name, run.tag
    (10, 'toy1', 'fmp_toy1')
    >>> load_run(b"q1 Q0 d1 1 0.9 s\\nq1 Q0 d2 2 0.5 s\\n", "mine.run").item_ids.tolist()
    ['d1', 'd2']
    """
    label = source_name(source, name)
    data = read_bytes(source, label)
    if not data.startswith(PARQUET_MAGIC):
        refuse_over_long_line(data, label)
    read = read_trec_text(data, RUN_TEXT)
    if isinstance(read, Scanned):
        query_codes, query_vocab, _ = _scanned_queries(read)
        run = Run.from_columns(query_codes, query_vocab, read.items, read.numbers,
                               name=run_name(label), source=label)
        return replace(run, tag=read.tag)
    if read is not None:
        run = Run.from_columns(*_fast_ids(read), read.numbers, name=run_name(label),
                               source=label)
        return replace(run, tag=read.tag())
    table = read_table(data, RUN, label)
    queries = text_column(table, "query_id")
    items = text_column(table, "item_id")
    scores = numeric_column(table, "score") if "score" in table.columns else None
    ranks = None
    if scores is None and "rank" in table.columns:
        ranks = _whole_column(table, "rank")
    run = Run.build(queries, items, scores, ranks, name=run_name(label), source=label)
    return replace(run, tag=_single_tag(table))


def _single_tag(table: Table) -> str | None:
    """The tag column's value when every row has the same one (not empty), else None."""
    tags = table.columns.get("tag")
    if tags is None or not len(tags):
        return None
    first = str(tags[0])
    return first if first and bool(np.all(tags == tags[0])) else None


def load_qrels(source: Source, name: str | None = None) -> GroundTruth:
    """Judgements from a TREC qrels file (``qid 0 item grade``), a CSV/TSV with header
    ``query_id,item_id,relevance`` or Parquet with those columns. Grades are whole numbers, exact
    64-bit integers on every path; 0 is judged not relevant; a negative grade is trec_eval's
    "pooled but not judged" (never relevant, not a judged non-relevant item for the bpref
    family), with a warning.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The judgements: a path or the file's bytes.
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).

    Returns
    -------
    GroundTruth
        Each query's judged items and grades, queries in the order they first appear, with the
        reader's warnings (repeated pairs, negative grades).

    Raises
    ------
    InputError
        A line or row that is not a judgement, named with its number.

    Examples
    --------
    >>> from metrics.loaders import load_qrels
    >>> truth = load_qrels("sample_data/fmp/toy1.qrels")
    >>> len(truth), truth.query_ids.tolist()
    (10, ['Q'])
    >>> print(load_qrels(b"q1 0 d1 1\\nq1 0 d2 -1\\n", "mine.qrels").warnings[0])
    ... # doctest: +ELLIPSIS
    mine.qrels: 1 negative grade(s): pooled but not judged, as in trec_eval (never relevant; ...
    """
    label = source_name(source, name)
    data = read_bytes(source, label)
    read = read_trec_text(data, QRELS_TEXT)
    if isinstance(read, Scanned):
        return _scanned_truth(read, label)
    if read is not None:
        return GroundTruth.from_columns(*_fast_ids(read), read.numbers, name=run_name(label),
                                        source=label)
    table = read_table(data, QRELS, label)
    return GroundTruth.build(text_column(table, "query_id"), text_column(table, "item_id"),
                             _whole_column(table, "relevance"), name=run_name(label),
                             source=label)


def _scanned_truth(scanned: Scanned, label: str) -> GroundTruth:
    """The ground truth of a qrels file read by the C reader (:mod:`.trec_lines`): queries coded
    in the order they first appear; when each query's lines stand together and none of them
    names an item twice (the reader's flags), no pair is looked at for repeats."""
    query_codes, query_vocab, one_run_each = _scanned_queries(scanned)
    return GroundTruth.from_columns(
        query_codes, query_vocab, scanned.items, scanned.numbers, name=run_name(label),
        source=label,
        no_repeats=one_run_each and not (scanned.run_flags & REPEATED_KEY).any())


def _scanned_queries(scanned: Scanned) -> tuple[np.ndarray, np.ndarray, bool]:
    """(query code of each line, query vocabulary in the order the queries first appear, whether
    each query's lines stand together) of TREC text read by the C reader."""
    names = scanned.query_names
    if len(set(names)) == len(names):
        vocab, run_codes = np.array(names, dtype=object), np.arange(len(names))
    else:
        import pandas as pd
        run_codes, vocab = pd.factorize(np.array(names, dtype=object), sort=False)
        vocab = np.asarray(vocab, dtype=object)
    return (repeat_in_parts(run_codes.astype(np.int64), scanned.query_lengths), vocab,
            len(vocab) == len(names))


def _whole_column(table: Table, name: str):
    """A column of whole numbers (grades, ranks) as exact int64, errors at their line or row."""
    return whole_numbers(table.columns[name], name, table.source, table.lines, table.unit, name)


def _fast_ids(fast: FastColumns):
    """(query codes, query vocabulary, item column) of the polars reader's id columns, whole-float
    ids read as the integers (see :func:`~metrics.data.rows.id_strings`)."""
    q_codes, q_vocab = encode_grouped(whole_float_ids(fast.queries))
    return q_codes, q_vocab, IdColumn(whole_float_ids(fast.items))
