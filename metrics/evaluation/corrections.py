"""The corrections for many comparisons: one owner for each one's name, title, description and
the p-values it gives, as :class:`~metrics.data.ties.TiePolicy` is for ties. A correction given
as text is checked once, by :meth:`Correction.parse`, at an edge (the command line's
``--correction``, the dashboard's settings and links), and travels inside as a
:class:`Correction`.

* ``holm`` — Holm's step-down over the family of paired t-tests (:func:`metrics.evaluation.stats.
  holm`);
* ``bh`` — Benjamini–Hochberg's false discovery rate over the same family
  (``scipy.stats.false_discovery_control``);
* ``tukey`` — Tukey's honestly significant difference over all pairs of systems on the residual
  of the two-way ANOVA without replication (systems × queries), as Sakai does for IR (Laboratory
  Experiments in Information Retrieval, 2018): every system ran the same queries, so the
  queries' own difficulty is taken out of the error, rather than treating the systems' values as
  independent samples (``scipy.stats.tukey_hsd``, a one-way test). With k systems and n queries,
  q = |ȳᵢ − ȳⱼ| / √(MSE / n), MSE the residual mean square with (k − 1)(n − 1) degrees of
  freedom, and p = P(Q > q) for the studentized range of k means
  (``scipy.stats.studentized_range``). Against the baseline and the best, its all-pairs p-values
  are read off.
"""

from __future__ import annotations

import warnings
from enum import StrEnum

import numpy as np

from metrics.errors import InputError
from metrics.evaluation.stats import holm, paired_test


class Correction(StrEnum):
    """A correction for many comparisons. Being a ``str``, it prints, hashes (the dashboard's
    caches) and writes to JSON and links as its name."""

    HOLM = "holm"
    BH = "bh"
    TUKEY = "tukey"

    @classmethod
    def parse(cls, text: str) -> Correction:
        """The correction named ``text`` (a correction is its own name), or an InputError listing
        them."""
        try:
            return cls(text)
        except ValueError:
            raise InputError(f"unknown correction {text!r}; use one of "
                             f"{', '.join(cls.names())}") from None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(c.value for c in cls)

    @property
    def title(self) -> str:
        """Its short name, for a radio button and a chart's title."""
        return TITLES[self]

    @property
    def description(self) -> str:
        """What it is, in a clause: the command line's help, captions, a paper table's caption."""
        return DESCRIPTIONS[self]

    @classmethod
    def help_text(cls) -> str:
        """A clause per correction, for the command line's --correction."""
        return "; ".join(f"{c} = {c.description}" for c in cls)

    @property
    def tests_all_pairs_at_once(self) -> bool:
        """Whether a pair's p comes from one test of all pairs of systems (Tukey's studentized
        range of all k means), whatever the family it is read for, not from adjusting a family of
        paired t-tests."""
        return self is Correction.TUKEY

    def adjust(self, p_values: list[float | None]) -> list[float | None]:
        """A family's p-values corrected (None, an undefined test, stays None and is not counted):
        Holm's step-down or Benjamini–Hochberg. Tukey's HSD adjusts no p-values: its p is a test
        of all pairs at once (:meth:`all_pairs`)."""
        if self is Correction.HOLM:
            return holm(p_values)
        if self is not Correction.BH:
            raise ValueError(f"{self.title} adjusts no p-values: its p comes from all pairs at "
                             f"once")
        from scipy.stats import false_discovery_control

        known = [i for i, p in enumerate(p_values) if p is not None]
        adjusted: list[float | None] = [None] * len(p_values)
        if known:
            values = false_discovery_control([p_values[i] for i in known], method="bh")
            for i, value in zip(known, np.atleast_1d(values)):
                adjusted[i] = float(value)
        return adjusted

    def all_pairs(self, values: dict[str, np.ndarray], seed: int) -> np.ndarray:
        """Every pair of systems' p, the k(k − 1)/2 pairs one family: a symmetric k × k matrix in
        the order of ``values``, 1 on the diagonal, NaN where undefined (with Tukey, everywhere
        when :meth:`why_undefined` says why). ``values``: each system's values on the same
        queries."""
        if self.tests_all_pairs_at_once:
            return tukey_p_values(values)
        names = list(values)
        k = len(names)
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        raw = [paired_test(values[names[i]], values[names[j]], "t", seed)[1] for i, j in pairs]
        p = np.ones((k, k))
        for (i, j), value in zip(pairs, self.adjust(raw)):
            p[i, j] = p[j, i] = np.nan if value is None else value
        return p

    def why_undefined(self, values: dict[str, np.ndarray]) -> str | None:
        """Why the correction's test has no p for any pair of these systems (Tukey's HSD without
        error or degrees of freedom, :func:`why_tukey_undefined`), or None. A paired t-test of
        Holm's or BH's family is undefined pair by pair (:func:`metrics.evaluation.stats.
        why_undefined`)."""
        return why_tukey_undefined(values) if self.tests_all_pairs_at_once else None

    def against(self, values: dict[str, np.ndarray], reference: str, seed: int,
                all_pairs: np.ndarray | None = None) -> dict[str, float | None]:
        """Every other system's p against ``reference``: its k − 1 paired t-tests one family, or
        read off the test of all pairs (``all_pairs``: :meth:`all_pairs` when already computed,
        as for a leaderboard's baseline and best). None where undefined."""
        names = list(values)
        others = [s for s in names if s != reference]
        if self.tests_all_pairs_at_once:
            p = self.all_pairs(values, seed) if all_pairs is None else all_pairs
            r = names.index(reference)
            return {s: _finite_or_none(p[r, names.index(s)]) for s in others}
        raw = [paired_test(values[reference], values[s], "t", seed)[1] for s in others]
        return dict(zip(others, self.adjust(raw)))


TITLES = {Correction.HOLM: "Holm", Correction.BH: "Benjamini–Hochberg",
          Correction.TUKEY: "Tukey's HSD"}

DESCRIPTIONS = {
    Correction.HOLM: "Holm's step-down correction of paired t-tests",
    Correction.BH: "Benjamini–Hochberg correction of paired t-tests",
    Correction.TUKEY: "Tukey's HSD over all pairs of systems, paired by query (on the residual of "
                      "the two-way ANOVA systems × queries)",
}


# quad's warning that an integral is "probably divergent, or slowly convergent" is printed where
# the studentized range's cdf is a sliver (about 1e-11 with 50 systems and 30 queries, p within
# 1e-10 of 1): off by at most its size, it cannot change a p that close to 1. Where the sliver is
# larger than this, a warning means the value is not to be trusted, and the p is undefined
TRUSTED_TAIL = 1e-6


def tukey_p_values(values: dict[str, np.ndarray]) -> np.ndarray:
    """Tukey's HSD p-values of every pair of systems, paired by query: the residual mean square of
    the two-way ANOVA without replication (systems × queries) is the error (a symmetric matrix, 1
    on the diagonal; NaN off it where the test is undefined, :func:`why_tukey_undefined`)."""
    table = np.vstack([np.asarray(v, dtype=np.float64) for v in values.values()])
    k, n = table.shape
    mse = _residual_mean_square(table)
    if mse is None or mse == 0:
        p = np.full((k, k), np.nan)
        np.fill_diagonal(p, 1.0)
        return p
    p = np.ones((k, k))
    system_means = table.mean(axis=1)
    df = (k - 1) * (n - 1)
    for i in range(k):
        for j in range(i + 1, k):
            diff = abs(system_means[i] - system_means[j])
            if diff == 0:
                continue                    # equal means: nothing differs (q = 0, p = 1)
            p[i, j] = p[j, i] = studentized_range_sf(diff / np.sqrt(mse / n), k, df)
    return p


def why_tukey_undefined(values: dict[str, np.ndarray]) -> str | None:
    """Why Tukey's HSD has no p for any pair of these systems (each one's values on the same
    queries), or None: fewer than two queries leave the residual no degree of freedom; no
    residual at all (every system a constant shift of every other on every query, as for the
    paired t-test when every difference is equal) leaves q = difference / 0."""
    table = np.vstack([np.asarray(v, dtype=np.float64) for v in values.values()])
    mse = _residual_mean_square(table)
    if mse is None:
        return (f"{'no query has' if table.shape[1] == 0 else 'only one query has'} a value for "
                f"every system; Tukey's HSD needs two, so that the residual of the two-way "
                f"ANOVA has (k − 1)(n − 1) degrees of freedom")
    if mse == 0:
        return ("every system is a constant shift of every other on every query, so the "
                "residual of the two-way ANOVA is 0: no error for q to divide by")
    return None


def _residual_mean_square(table: np.ndarray) -> float | None:
    """The residual mean square of the two-way ANOVA without replication of ``table`` (systems ×
    queries); 0 where the residual is no larger than the rounding of the means it subtracts;
    None with fewer than two queries (no degree of freedom)."""
    k, n = table.shape
    if n < 2:
        return None
    residual = (table - table.mean(axis=1)[:, None] - table.mean(axis=0)[None, :]
                + table.mean())
    mse = float((residual ** 2).sum()) / ((k - 1) * (n - 1))
    # a residual no larger than the rounding of the means it subtracts is none (each system a
    # constant shift of another): taken as 0, not as an error of 1e-17 with its own p
    if np.sqrt(mse) <= 16 * np.finfo(np.float64).eps * max(1.0, float(np.abs(table).max())):
        return 0.0
    return mse


def studentized_range_sf(q: float, k: int, df: int) -> float:
    """P(Q > q) for the studentized range of ``k`` means with ``df`` degrees of freedom
    (scipy.stats.studentized_range), without the integration warning scipy prints where the
    cdf is a sliver (:data:`TRUSTED_TAIL`); NaN where it warns of a larger one."""
    from scipy.integrate import IntegrationWarning
    from scipy.stats import studentized_range

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IntegrationWarning)
        p = float(studentized_range.sf(q, k, df))
    doubtful = any(issubclass(w.category, IntegrationWarning) for w in caught)
    return np.nan if doubtful and min(p, 1 - p) > TRUSTED_TAIL else p


def _finite_or_none(value) -> float | None:
    return float(value) if np.isfinite(value) else None
