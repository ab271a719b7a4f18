"""Serrà (2007): the measures of Table 2 under the paper's own conventions, and the errata.

Table 1 of the paper is damaged (its tabs are lost); the relevant positions and R_q used here are
the ones that every reproducible row of Table 2 agrees with, checked by hand
(docs/conventions.md). ``TABLE2_MEASURES`` maps each printed row to the registered measure that
reproduces it.
"""

from __future__ import annotations

from metrics.data.judged import JudgedRanking

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


def answer_set_grades(positions: list[int], length: int = ANSWER_SET_LENGTH) -> list[int]:
    """A 0/1 list of ``length`` ranks with 1 at the given 1-based relevant positions."""
    wanted = set(positions)
    return [1 if r in wanted else 0 for r in range(1, length + 1)]


def judged_answer_sets(positions: dict[str, list[int]] | None = None,
                       num_relevant: dict[str, int] | None = None,
                       length: int = ANSWER_SET_LENGTH,
                       collection_size: int = COLLECTION_SIZE) -> JudgedRanking:
    """Answer sets as a judged ranking: every listed item judged, |D| known."""
    positions = RELEVANT_POSITIONS if positions is None else positions
    num_relevant = NUM_RELEVANT if num_relevant is None else num_relevant
    names = list(positions)
    return JudgedRanking.from_relevance(
        [answer_set_grades(positions[n], length) for n in names],
        [num_relevant[n] for n in names], collection_size, names)


def table2(judged: JudgedRanking):
    """Serrà's Table 2 layout: one row per printed measure, one column per answer set."""
    import pandas as pd

    from metrics.evaluation.evaluate import evaluate

    result = evaluate(judged, list(TABLE2_MEASURES.values()))
    return pd.DataFrame({row: result.results[m].values for row, m in TABLE2_MEASURES.items()},
                        index=list(judged.query_ids)).T


def parse_positions(text: str, length: int, name: str = "answer set") -> list[int]:
    """'1 2 3 5' (spaces or commas) -> [1, 2, 3, 5], each a rank within 1..length, no repeats."""
    from metrics.errors import InputError

    positions = []
    for token in str(text or "").replace(",", " ").split():
        try:
            value = int(token)
        except ValueError:
            raise InputError(f"{name}: relevant position {token!r} is not a whole number") \
                from None
        if not 1 <= value <= length:
            raise InputError(f"{name}: relevant position {value} is outside 1..{length}")
        if value in positions:
            raise InputError(f"{name}: relevant position {value} is given twice")
        positions.append(value)
    return sorted(positions)
