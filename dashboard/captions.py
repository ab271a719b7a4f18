"""Sentences the pages print about their numbers, computed from the numbers (no Streamlit)."""

from __future__ import annotations

from metrics.evaluation.stats import DEFAULT_RESAMPLES


def randomisation_method(n: int, resamples: int = DEFAULT_RESAMPLES) -> str:
    """What scipy.stats.permutation_test does for n paired differences: with 2ⁿ sign assignments
    no more than ``resamples`` it enumerates them all (an exact test), otherwise it draws
    ``resamples`` of them at random (seeded)."""
    if 2 ** n <= resamples:
        return f"exact (all 2^{n} = {2 ** n:,} sign assignments of the differences)"
    return f"{resamples:,} seeded random sign assignments of the differences"


def queries_averaged(total: int, undefined: dict[str, int]) -> tuple[int | str, list[str]]:
    """The number of queries a system's means are taken over, and, when measures differ, a
    sentence per measure that averages fewer than the others. ``undefined`` maps each measure
    to its count of queries without a value (left out of its mean)."""
    counts = {name: total - n for name, n in undefined.items()}
    if not counts:
        return total, []
    low, high = min(counts.values()), max(counts.values())
    if low == high:
        return low, []
    notes = [f"{name}: {count} of {total}" for name, count in counts.items() if count < high]
    return f"{low}–{high}", notes
