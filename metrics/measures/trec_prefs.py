"""trec_eval 10's preference measures (``prefs_*``): how many of the preferences judged between
pairs of items (:mod:`metrics.loaders.trec_prefs`) a ranking fulfils, as trec_eval counts them
(form_prefs_counts.c, m_prefs_*.c, read line by line; their quirks kept).

The judged items of a query get internal ranks: the retrieved ones 0, 1, ... in ranking order,
then the others in item-id (strcmp) order. A judgment group with one subgroup is a list of
equivalence classes (items of one level), each preferred to every lower one; a group with
several subgroups is a preference matrix, each subgroup's levels ordered, closed under
transitivity. A preference A > B is *fulfilled* (both retrieved, A first), *possible* (both
retrieved), *implied* (exactly one retrieved: fulfilled when it is A) or *not occurring*
(neither). Each measure is one ratio of these counts; trec_eval leaves a value at 0 where it
would divide by 0.

These measures read preference judgments, not graded ones, so they are not in the registry's
table of measures of a judged ranking: the ``trec-eval`` command computes them from the ranked
item ids of each query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

import numpy as np

from metrics.errors import InputError
from metrics.loaders.trec_prefs import Preference

LONG_MEASURES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
PREFS_MEASURES = (*LONG_MEASURES, "prefs_simp", "prefs_pair", "prefs_avgjg",
                  "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
                  "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
                  "prefs_avgjg_imp")


@dataclass
class Group:
    """One judgment group's counts, and its preferences: equivalence classes (level, internal
    ranks ascending), or the preference matrix with each item's level (-1: not in the group)."""

    classes: list[tuple[float, list[int]]] | None = None
    matrix: np.ndarray | None = None
    levels: np.ndarray | None = None
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    not_occurring: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0


@dataclass
class QueryPrefs:
    """A query's groups; ``counts[i, j]``: preferences i > j over all groups; n judged items,
    the first ``retrieved`` of them retrieved."""

    groups: list[Group] = field(default_factory=list)
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    judged: int = 0
    retrieved: int = 0


def query_prefs(prefs: list[Preference], ranking: list[bytes]) -> QueryPrefs:
    """The counts of one query (form_prefs_counts): ``ranking`` the retrieved item ids in rank
    order (after -M)."""
    judged_items = {p.item for p in prefs}
    retrieved = [item for item in ranking if item in judged_items]
    rank = {item: i for i, item in enumerate(retrieved)}
    for item in sorted(judged_items - set(retrieved)):
        rank[item] = len(rank)
    n, r = len(rank), len(retrieved)
    entries = sorted(((p.group, p.subgroup, -p.level, rank[p.item], p) for p in prefs),
                     key=lambda e: e[:4])
    out = QueryPrefs(counts=np.zeros((n, n), dtype=np.int64), judged=n, retrieved=r)
    for _, of_group in groupby(entries, key=lambda e: e[0]):
        of_group = list(of_group)
        subgroups = len({e[1] for e in of_group})
        group = Group()
        if subgroups > 1:
            _matrix_group(group, of_group, n, r, out.counts)
        else:
            _class_group(group, of_group, r, out.counts)
        out.groups.append(group)
    return out


def _class_group(group: Group, entries: list, r: int, counts: np.ndarray) -> None:
    """form_jg_ec and add_ec_pref_to_jg: classes in level order, each pair of classes counted."""
    group.classes = [(-key, [e[3] for e in members])
                     for key, members in groupby(entries, key=lambda e: e[2])]
    for c1, (level, ranks1) in enumerate(group.classes):
        found = sum(1 for x in ranks1 if x < r)   # ascending: the retrieved come first
        if level > 0.0:
            group.num_rel_ret += found
            group.num_rel += len(ranks1)
        else:
            group.num_nonrel_ret += found
            group.num_nonrel += len(ranks1)
        a = np.asarray(ranks1)
        for _, ranks2 in group.classes[c1 + 1:]:
            b = np.asarray(ranks2)
            if np.intersect1d(a, b).size:
                raise InputError("trec_eval.form_prefs_counts: an item occurs with different "
                                 "levels in one subgroup")
            i, j = np.meshgrid(a, b, indexing="ij")
            np.add.at(counts, (i.ravel(), j.ravel()), 1)
            first = i < j
            group.ful_ret += int((first & (j < r)).sum())
            group.ful_imp += int((first & (j >= r) & (i < r)).sum())
            group.not_occurring += int((first & (i >= r)).sum())
            group.poss_ret += int((~first & (i < r)).sum())
            group.poss_imp += int((~first & (i >= r) & (j < r)).sum())
            group.not_occurring += int((~first & (i >= r) & (j >= r)).sum())
    group.poss_ret += group.ful_ret
    group.poss_imp += group.ful_imp


def _matrix_group(group: Group, entries: list, n: int, r: int, counts: np.ndarray) -> None:
    """form_jg_pa, add_transitives and add_pa_pref_to_jg."""
    matrix = np.zeros((n, n), dtype=bool)
    levels = np.full(n, -1.0)
    for k, (_, subgroup, key, rank_i, pref) in enumerate(entries):
        if (levels[rank_i] > 0.0 and pref.level == 0.0) or (levels[rank_i] == 0.0
                                                              and pref.level > 0.0):
            raise InputError(f"trec_eval.form_prefs_counts: item "
                             f"{pref.item.decode(errors='replace')!r} has both level 0 and a "
                             f"level above 0")
        levels[rank_i] = pref.level
        for later in entries[k + 1:]:
            if later[1] != subgroup:
                break
            if later[2] != key:   # a lower level of the same subgroup
                matrix[rank_i, later[3]] = True
    closure = matrix | np.eye(n, dtype=bool)
    while True:   # every item reachable: the matrix multiplied by itself until it stays
        step = (closure.astype(np.int64) @ closure.astype(np.int64)) > 0
        if (step == closure).all():
            break
        closure = step
    np.fill_diagonal(closure, False)
    if (closure & closure.T).any():
        raise InputError("trec_eval.form_prefs_counts: preferences in conflict in one "
                         "judgment group")
    group.matrix, group.levels = closure, levels
    group.num_rel_ret = int((levels[:r] > 0.0).sum())
    group.num_nonrel_ret = int((levels[:r] == 0.0).sum())
    group.num_rel = group.num_rel_ret + int((levels[r:] > 0.0).sum())
    group.num_nonrel = group.num_nonrel_ret + int((levels[r:] == 0.0).sum())
    counts += closure
    top, bottom = closure[:r], closure[r:]
    group.poss_ret = int(np.tril(top[:, :r], -1).sum())
    group.ful_ret = int(np.triu(top[:, :r], 1).sum())
    group.ful_imp = int(top[:, r:].sum())
    group.poss_imp = int(bottom[:, :r].sum())
    group.not_occurring = int(bottom[:, r:].sum())
    group.poss_ret += group.ful_ret
    group.poss_imp += group.ful_imp


def _ratio(a: float, b: float) -> float:
    """a / b as C divides doubles: inf or NaN where b is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _pairs(q: QueryPrefs, implied: bool, all_pairs: bool) -> float:
    """prefs_pair: the mean over item pairs with a preference of the share of their
    preferences that the ranking fulfils; pairs of two retrieved items, and with ``implied``
    of one retrieved item and one not; with ``all_pairs`` the pairs of two items not retrieved
    count too, as fulfilling none."""
    c, r = q.counts, q.retrieved
    both = c + c.T
    terms = []
    upper = np.triu(both[:r, :r] > 0, 1)
    i, j = np.nonzero(upper)   # row by row, as trec_eval's loops
    terms.append(c[i, j] / both[i, j])
    if implied:
        i, j = np.nonzero(both[:r, r:] > 0)
        terms.append(c[i, j + r] / both[i, j + r])
    values = np.concatenate(terms) if terms else np.zeros(0)
    pairs = len(values)
    if all_pairs:
        pairs += int(np.triu(both[r:, r:] > 0, 1).sum())
    total = float(np.cumsum(values)[-1]) if len(values) else 0.0
    return total / pairs if pairs else 0.0


def _per_group(q: QueryPrefs, ful, poss) -> float:
    """prefs_avgjg: the mean over the groups of fulfilled / possible (0 for a group with none
    possible); 0 when the sum is not above 0."""
    total = 0.0
    for g in q.groups:
        if poss(g):
            total += _ratio(ful(g), poss(g))
    return total / len(q.groups) if total > 0.0 else 0.0


def _rnonrel(q: QueryPrefs, retrieved_only: bool) -> float:
    """prefs_avgjg_Rnonrel(_ret): as prefs_avgjg with the non-relevant items of each group
    counted as if there were as many as relevant ones (R): R − N fulfilled preferences added
    for each relevant item where there are fewer (N), the first R kept where more."""
    total = 0.0
    for g in q.groups:
        rel, nonrel = (g.num_rel_ret, g.num_nonrel_ret) if retrieved_only else \
            (g.num_rel, g.num_nonrel)
        if rel >= nonrel:
            if retrieved_only:
                ful, poss = g.ful_ret, g.poss_ret
            else:
                ful = g.ful_ret + g.ful_imp
                poss = g.poss_ret + g.poss_imp + g.not_occurring
            ful += g.num_rel_ret * (rel - nonrel)
            poss += g.num_rel * (rel - nonrel)
        else:
            ful, poss = _recount(g, q.retrieved, q.judged, retrieved_only)
        total += _ratio(ful, poss)
    return total / len(q.groups) if total > 0.0 else 0.0


def _recount(g: Group, r: int, n: int, retrieved_only: bool) -> tuple[int, int]:
    """m_prefs_avgjg_Rnonrel(_ret).c's recalculate: the group's preferences again, the
    non-relevant items past the first R left out."""
    ful = poss = 0
    if g.classes is not None:
        keep = g.num_rel_ret if retrieved_only else g.num_rel
        last = g.classes[-1][1][:keep]   # the lowest class, taken as the non-relevant one
        # reading stops at the first item not retrieved under _ret; past the class it reads on
        if len(last) < keep and not (retrieved_only and any(x >= r for x in last)):
            raise InputError(f"prefs_avgjg_Rnonrel{'_ret' if retrieved_only else ''}: the "
                             f"lowest level has {len(last)} items, fewer than the {keep} "
                             f"relevant ones that trec_eval reads from it (it reads past its "
                             f"data, so its value is undefined); the non-relevant items are "
                             f"split over several levels (a negative level?)")

        def count(ranks1, ranks2):
            nonlocal ful, poss
            for x in ranks1:
                if retrieved_only and x >= r:
                    break
                for y in ranks2:
                    if retrieved_only and y >= r:
                        break
                    if x < y and (retrieved_only or x < r):
                        ful += 1
                    else:
                        poss += 1
        for c1, (_, ranks1) in enumerate(g.classes):
            for _, ranks2 in g.classes[c1 + 1:len(g.classes) - 1]:
                count(ranks1, ranks2)
        for _, ranks1 in g.classes:   # the lowest class with its own first R too, as trec_eval
            count(ranks1, last)
        return ful, poss + ful
    levels, a = g.levels, g.matrix
    seen, first_discarded = 0, (r if retrieved_only else n)
    for i in range(r if retrieved_only else n):
        if levels[i] == 0.0:
            seen += 1
            if seen == g.num_rel + 1:
                first_discarded = i
                break
    kept = ~((np.arange(n) >= first_discarded) & (levels == 0.0))
    b = a & kept[:, None] & kept[None, :]
    ful = int(np.triu(b[:r, :r], 1).sum())
    poss = int(np.tril(b[:r, :r], -1).sum())
    if not retrieved_only:
        ful += int(b[:r, r:].sum())
        poss += int(b[r:, :].sum())
    return ful, poss + ful


def prefs_values(q: QueryPrefs, names=PREFS_MEASURES) -> dict[str, float]:
    """The prefs_* measures ``names`` of one query, as trec_eval computes them."""
    groups = q.groups
    ful_ret = sum(g.ful_ret for g in groups)
    ful_imp = sum(g.ful_imp for g in groups)
    poss_ret = sum(g.poss_ret for g in groups)
    poss_imp = sum(g.poss_imp for g in groups)
    poss = poss_ret + poss_imp + sum(g.not_occurring for g in groups)
    formulas = {
        "prefs_num_prefs_poss": lambda: float(poss),
        "prefs_num_prefs_ful": lambda: float(ful_ret + ful_imp),
        "prefs_num_prefs_ful_ret": lambda: float(ful_ret),
        "prefs_simp": lambda: _ratio(ful_ret + ful_imp, poss) if poss else 0.0,
        "prefs_pair": lambda: _pairs(q, implied=True, all_pairs=True),
        "prefs_avgjg": lambda: _per_group(
            q, lambda g: g.ful_ret + g.ful_imp,
            lambda g: g.poss_ret + g.poss_imp + g.not_occurring),
        "prefs_avgjg_Rnonrel": lambda: _rnonrel(q, retrieved_only=False),
        "prefs_simp_ret": lambda: _ratio(ful_ret, poss_ret) if poss_ret else 0.0,
        "prefs_pair_ret": lambda: _pairs(q, implied=False, all_pairs=False),
        "prefs_avgjg_ret": lambda: _per_group(q, lambda g: g.ful_ret, lambda g: g.poss_ret),
        "prefs_avgjg_Rnonrel_ret": lambda: _rnonrel(q, retrieved_only=True),
        "prefs_simp_imp": lambda: (_ratio(ful_ret + ful_imp, poss_ret + poss_imp)
                                   if poss_ret + poss_imp else 0.0),
        "prefs_pair_imp": lambda: _pairs(q, implied=True, all_pairs=False),
        "prefs_avgjg_imp": lambda: _per_group(q, lambda g: g.ful_ret + g.ful_imp,
                                              lambda g: g.poss_ret + g.poss_imp),
    }
    return {name: formulas[name]() for name in names}
