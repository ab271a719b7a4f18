"""Serrà (2007): the measures of Table 2 under the paper's own conventions, and the errata.

Table 1 of the paper is damaged (its tabs are lost); the relevant positions and R_q used here are
the ones that every reproducible row of Table 2 agrees with, checked by hand
(docs/conventions.md). ``TABLE2_MEASURES`` maps each printed row to the registered measure that
reproduces it.
"""

from __future__ import annotations

import numpy as np

from metrics.data.judged import JudgedRanking
from metrics.data.truth import GradeCounts
from metrics.errors import InputError
from metrics.evaluation.cells import LARGEST_EXACT_INTEGER

ANSWER_SET_LENGTH = 14
COLLECTION_SIZE = 2054
RELEVANT_POSITIONS = {"A1": [4], "A2": [1, 2, 3, 5], "A3": [6, 7, 8, 10], "A4": [2, 4, 6, 8],
                      "A5": [1, 8, 9, 10], "A6": []}
NUM_RELEVANT = {"A1": 1, "A2": 7, "A3": 7, "A4": 14, "A5": 14, "A6": 4}

TABLE2_MEASURES = {
    "TP": "TP", "FP": "FP", "FN": "FN", "TN": "TN", "Accuracy": "Accuracy",
    "Sensitivity": "Sensitivity", "Specificity": "Specificity", "Fallout rate": "Fallout",
    "Precision": "P", "Recall": "R", "Break-even point": "BEP", "AP": "AP(norm=retrieved)",
    "F-measure": "F", "RR": "RR(form=serra)", "DCG": "DCG(form=jarvelin,base=e)",
    "bpref": "BprefUncapped", "bpref-10": "Bpref10", "bpref*": "BprefStar",
}

# (row, answer set) -> why the printed value differs from the computed one
ERRATA = {
    ("FN", "A6"): "printed 14, but FN = R_q − TP = 4 − 0 = 4, the only value consistent with the "
                  "printed TN = 2036 = |D| − |A| − FN",
    **{("Specificity", a): "the printed value disagrees with TN/(TN + FP), which must equal "
                           "1 − Fallout rate; the computed value follows the definition (A4 and "
                           "A5 happen to agree)"
       for a in ("A1", "A2", "A3", "A6")},
    **{("Break-even point", a): "the printed row was read off interpolated PR plots (0.1 for A6, "
                                "which retrieves nothing); the break-even point P(R_q) = R(R_q) "
                                "is computed exactly (A3 happens to agree)"
       for a in ("A1", "A2", "A4", "A5", "A6")},
    ("Sensitivity", "A4"): "printed truncated (0.285); 4/14 = 0.2857 rounds to 0.286",
    ("Sensitivity", "A5"): "printed truncated (0.285); 4/14 = 0.2857 rounds to 0.286",
    ("bpref*", "A2"): "printed truncated (0.564); the value is 0.5646",
    ("bpref*", "A3"): "printed truncated (0.428); the value is 3/7 = 0.4286",
    ("bpref*", "A5"): "printed truncated (0.239); the value is 0.2398",
    ("bpref", "A2"): "printed 0.550; (1/7)(3 + (1 − 1/7)) = 27/49 = 0.5510, one unit off in the "
                     "last digit",
    ("DCG", "A5"): "printed 2.371; 1 + 1/ln 8 + 1/ln 9 + 1/ln 10 = 2.3703, one unit off in the "
                   "last digit",
}


# The numbers the page takes. R_q and |D| are counts, never sizes of arrays (the judged ranking
# holds the relevant positions and the grade counts), up to LARGEST_EXACT_INTEGER: beyond it a
# double (the browser's numbers, and the measures' arithmetic) no longer holds every whole number
# exactly. |A| is the length of the curves drawn, one point per rank.
LONGEST_LIST = 1000


def judged_answer_sets(positions: dict[str, list[int]] | None = None,
                       num_relevant: dict[str, int] | None = None,
                       length: int = ANSWER_SET_LENGTH,
                       collection_size: int | None = COLLECTION_SIZE) -> JudgedRanking:
    """Answer sets as a judged ranking: every listed item judged (relevant at ``positions``,
    not relevant elsewhere), R_q relevant items in the collection, |D| known or None.

    Built from counts: the hits are the relevant positions, every other rank of a list is judged
    not relevant (``unlisted_judged``), and the ground truth is R_q relevant items and the rest
    of |D| (or, without |D|, the list's own) not relevant: nothing grows with R_q or |D|.
    Raises InputError for numbers that cannot describe answer sets (:func:`check_answer_sets`)."""
    positions = RELEVANT_POSITIONS if positions is None else positions
    num_relevant = NUM_RELEVANT if num_relevant is None else num_relevant
    check_answer_sets(positions, num_relevant, length, collection_size)
    names = list(positions)
    found = [len(positions[n]) for n in names]
    query, grade, count = [], [], []
    for q, n in enumerate(names):
        relevant = int(num_relevant[n])
        not_relevant = (length - found[q] if collection_size is None
                        else int(collection_size) - relevant)
        for g, c in ((0, not_relevant), (1, relevant)):
            if c:
                query.append(q)
                grade.append(g)
                count.append(c)
    counts = GradeCounts(np.array(query, dtype=np.int64), np.array(grade, dtype=np.int64),
                         np.array(count, dtype=np.int64), len(names))
    hit_ranks = np.array([r for n in names for r in positions[n]], dtype=np.int64)
    return JudgedRanking.from_hits(
        np.array(names, dtype=object), np.full(len(names), length, dtype=np.int64),
        np.repeat(np.arange(len(names)), found), hit_ranks, np.ones(len(hit_ranks), np.int64),
        counts, unlisted_judged=True, collection_sizes=collection_size, name="answer sets")


def check_answer_sets(positions: dict[str, list[int]], num_relevant: dict[str, int],
                      length: int, collection_size: int | None) -> None:
    """Refuse numbers that no answer sets can have, naming the answer set and what to fix: every
    count TP + FN + FP + TN = |D| adds up to must be a whole number from 0 to |D|."""
    _check_count("|A| (the answer list length)", length, 1, LONGEST_LIST)
    if collection_size is not None:
        _check_count("|D| (the collection size)", collection_size, 1, LARGEST_EXACT_INTEGER)
        if length > collection_size:
            raise InputError(f"|A| = {length:,} is larger than the collection |D| = "
                             f"{collection_size:,}: a list holds at most |D| items; lower |A| "
                             f"or raise |D|")
    for name, ranks in positions.items():
        where = f"answer set {name}"
        relevant = num_relevant.get(name)
        _check_count("R_q (relevant items in the collection)", relevant, 0, LARGEST_EXACT_INTEGER,
                     where)
        outside = [r for r in ranks if not 1 <= r <= length]
        if outside:
            raise InputError(f"relevant position {outside[0]} is outside 1..{length}",
                             source=where)
        if len(set(ranks)) < len(ranks):
            raise InputError("a relevant position is given twice", source=where)
        if len(ranks) > relevant:
            raise InputError(f"the list has {len(ranks)} relevant items but R_q is {relevant:,}:"
                             f" R_q counts every relevant item of the collection, retrieved or "
                             f"not; raise R_q to at least {len(ranks)}", source=where)
        if collection_size is None:
            continue
        if relevant > collection_size:
            raise InputError(f"R_q = {relevant:,} is larger than the collection |D| = "
                             f"{collection_size:,}: lower R_q or raise |D|", source=where)
        listed_not_relevant = length - len(ranks)
        if relevant + listed_not_relevant > collection_size:
            raise InputError(
                f"R_q = {relevant:,} relevant items and the list's {listed_not_relevant} "
                f"non-relevant ones are {relevant + listed_not_relevant:,} items, more than "
                f"|D| = {collection_size:,} (TN would be "
                f"{collection_size - relevant - listed_not_relevant:,}); lower R_q to at most "
                f"{collection_size - listed_not_relevant:,} or raise |D| to at least "
                f"{relevant + listed_not_relevant:,}", source=where)


def _check_count(what: str, value, low: int, high: int, where: str | None = None) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise InputError(f"{what} must be a whole number, not {value!r}", source=where)
    if not low <= value <= high:
        limit = (" (2^53 − 1, the largest count held exactly)"
                 if high == LARGEST_EXACT_INTEGER else "")
        raise InputError(f"{what} is {value:,}; give a whole number from {low:,} to "
                         f"{high:,}{limit}", source=where)


def answer_set_count(value, what: str, where: str) -> int:
    """A count typed in the page's table (a number, possibly a float or empty) as an int, or
    InputError: an empty cell, a fraction or a value beyond what a double holds are refused,
    never rounded."""
    if value is None or (isinstance(value, float) and value != value) or value == "":
        raise InputError(f"{what} is empty: give a whole number", source=where)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise InputError(f"{what} {value!r} is not a whole number", source=where) from None
    number = float(value)
    if not number.is_integer():
        raise InputError(f"{what} = {value} is not a whole number", source=where)
    if abs(number) > LARGEST_EXACT_INTEGER:
        raise InputError(f"{what} = {number:,.0f} is beyond {LARGEST_EXACT_INTEGER:,} "
                         f"(2^53 − 1), the largest count held exactly", source=where)
    return int(number)


def read_answer_sets(names, positions_texts, relevant_values, length,
                     collection_size) -> tuple[dict[str, list[int]], dict[str, int]]:
    """The page's table as (relevant positions, R_q) by answer set name, read as typed; raises
    InputError naming the row or answer set and what to fix. :func:`judged_answer_sets` checks
    that the numbers add up."""
    names = [str(n).strip() if n is not None and n == n else "" for n in names]
    if not names:
        raise InputError("there are no answer sets: add a row")
    for row, name in enumerate(names, 1):
        if not name:
            raise InputError(f"row {row} has no name: name every answer set (or delete the "
                             f"row)")
        if names.index(name) != row - 1:
            raise InputError(f"the name {name!r} is given twice: names must be unique")
    length = answer_set_count(length, "|A|", "the answer list length")
    if collection_size is not None:
        collection_size = answer_set_count(collection_size, "|D|", "the collection size")
    positions = {n: parse_positions(p if isinstance(p, str) else None, length, n)
                 for n, p in zip(names, positions_texts)}
    relevant = {n: answer_set_count(r, "R_q", f"answer set {n}")
                for n, r in zip(names, relevant_values)}
    return positions, relevant


def table2(judged: JudgedRanking):
    """Serrà's Table 2 layout: one row per printed measure, one column per answer set."""
    import pandas as pd

    from metrics.evaluation.evaluate import evaluate

    result = evaluate(judged, list(TABLE2_MEASURES.values()))
    return pd.DataFrame({row: result.results[m].values for row, m in TABLE2_MEASURES.items()},
                        index=list(judged.query_ids)).T


def parse_positions(text: str | None, length: int, name: str | None = None) -> list[int]:
    """'1 2 3 5' (spaces or commas) -> [1, 2, 3, 5], each a rank within 1..length, no repeats;
    an empty cell (None) is no relevant position."""
    where = "answer set" + (f" {name}" if name is not None else "")
    positions = []
    for token in str(text or "").replace(",", " ").split():
        try:
            value = int(token)
        except ValueError:
            raise InputError(f"relevant position {token!r} is not a whole number",
                             source=where) from None
        if not 1 <= value <= length:
            raise InputError(f"relevant position {value} is outside 1..{length}", source=where)
        if value in positions:
            raise InputError(f"relevant position {value} is given twice", source=where)
        positions.append(value)
    return sorted(positions)
