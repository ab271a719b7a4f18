"""The tie policies: how items of equal score within one query's list are ranked.

One owner for the policies' names, former names, what each does and what it supports; every other
module (ranking, streaming, all-vs-all, measures, protocols, the command line and the dashboard)
asks a :class:`TiePolicy` instead of comparing strings. A policy given as text is checked once,
by :meth:`TiePolicy.parse`, at an edge — the command line's ``--ties``, the dashboard's settings
and links (:mod:`dashboard.settings`, :mod:`dashboard.permalink`) and the public
:func:`metrics.judge` — and travels inside as a :class:`TiePolicy`. docs/conventions.md's table
of the policies is written from :attr:`TiePolicy.in_a_group`.

* ``stable`` — input order (the run file's lines, a matrix's columns);
* ``id`` — item id ascending, as Müller's FMP text puts it (numeric order when every id is an
  integer, otherwise string order);
* ``trec9`` — trec_eval 9.x and pytrec_eval: scores compared after rounding to float32 (they keep
  them as C ``float``), ties broken by item id *descending* (``strcmp``); ``trec`` is its former
  name, still accepted;
* ``trec10`` — trec_eval 10: scores compared as double, ties by item id descending;
* ``optimistic``, ``pessimistic``, ``expected`` — tie-aware (McSherry & Najork 2008): relevant
  items first or last in each group of equal scores, or each measure's exact mean over every order
  of the group (:mod:`metrics.ranking.tie_aware`). The ranking is made ``stable`` and each judged
  item keeps its group.
"""

from __future__ import annotations

from enum import StrEnum

from metrics.errors import InputError


class TiePolicy(StrEnum):
    """A tie policy. Being a ``str``, it prints, hashes and compares as its name."""

    STABLE = "stable"
    ID = "id"
    TREC9 = "trec9"
    TREC10 = "trec10"
    OPTIMISTIC = "optimistic"
    PESSIMISTIC = "pessimistic"
    EXPECTED = "expected"

    @classmethod
    def parse(cls, text: str) -> TiePolicy:
        """The policy named ``text`` (or one of its former names; a policy is its own name), or an
        InputError listing them."""
        name = ALIASES.get(text, text)
        try:
            return cls(name)
        except ValueError:
            raise InputError(f"unknown tie policy {text!r}; use one of "
                             f"{', '.join(cls.names())}") from None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(p.value for p in cls)

    @classmethod
    def orderings(cls) -> tuple[TiePolicy, ...]:
        """The policies that put tied items in one order (not tie-aware)."""
        return tuple(p for p in cls if not p.tie_aware)

    @classmethod
    def ordering_names(cls) -> tuple[str, ...]:
        """The names of :meth:`orderings` (what the dashboard's box offers)."""
        return tuple(p.value for p in cls.orderings())

    @property
    def tie_aware(self) -> bool:
        return self in (TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC, TiePolicy.EXPECTED)

    @property
    def reorders(self) -> bool:
        """Whether the policy puts each tie group of a judged ranking in a new order."""
        return self in (TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC)

    @property
    def ordering(self) -> TiePolicy:
        """The policy the ranking itself is made with: ``stable`` under a tie-aware policy."""
        return TiePolicy.STABLE if self.tie_aware else self

    @property
    def float32(self) -> bool:
        """Whether scores are compared as float32 (trec_eval 9.x, pytrec_eval)."""
        return self is TiePolicy.TREC9

    @property
    def id_descending(self) -> bool:
        """Whether equal scores are ordered by item id descending (every trec_eval)."""
        return self in (TiePolicy.TREC9, TiePolicy.TREC10)

    @property
    def description(self) -> str:
        return DESCRIPTIONS[self]

    @property
    def in_a_group(self) -> str:
        """The order it gives a group of equal scores, in full (docs/conventions.md's table)."""
        return IN_A_GROUP[self]

    @classmethod
    def help_text(cls, policies: tuple[TiePolicy, ...] | None = None) -> str:
        """A clause per policy (all, or those offered), for the command line's --ties and the
        dashboard's box."""
        offered = tuple(cls) if policies is None else policies
        former = [f"{old} is {new}'s former name" for old, new in ALIASES.items()
                  if new in offered]
        if TiePolicy.EXPECTED in offered:
            former.append("'python -m metrics measures' says which measures support expected")
        return ("; ".join(f"{p} = {p.description}" for p in offered)
                + (f" ({'; '.join(former)})" if former else ""))


ALIASES = {"trec": TiePolicy.TREC9}   # former names, still accepted

DESCRIPTIONS = {
    TiePolicy.STABLE: "equal scores keep the order of the input (the run file's lines, the "
                      "matrix's columns)",
    TiePolicy.ID: "equal scores ordered by item id ascending (numerically when every id is a "
                  "number)",
    TiePolicy.TREC9: "as trec_eval 9.x and pytrec_eval: scores compared as float32, equal ones "
                     "ordered by item id descending",
    TiePolicy.TREC10: "as trec_eval 10: scores compared as double, equal ones ordered by item id "
                      "descending",
    TiePolicy.OPTIMISTIC: "relevant items first within each group of equal scores",
    TiePolicy.PESSIMISTIC: "relevant items last within each group of equal scores",
    TiePolicy.EXPECTED: "the exact mean of each measure over every order of the tied items "
                        "(McSherry & Najork 2008)",
}

# what the policy does inside a group of equal scores, with the details the short descriptions
# above leave out (docs/generate.py writes docs/conventions.md's table of the policies from these)
IN_A_GROUP = {
    TiePolicy.STABLE: "input order (the run file's lines, the matrix's columns)",
    TiePolicy.ID: "item id ascending (numerically when every id is an integer), as FMP's text "
                  "says",
    TiePolicy.TREC9: "as trec_eval 9.x and pytrec_eval: scores compared as float32 (scores that "
                     "differ only past float32's precision tie), ties broken by item id "
                     "descending",
    TiePolicy.TREC10: "as trec_eval 10 (2023): scores compared as double, ties broken by item id "
                      "descending",
    TiePolicy.OPTIMISTIC: "judged items first, highest grade first; unjudged last",
    TiePolicy.PESSIMISTIC: "unjudged first, then judged items by grade, lowest first (negative "
                           "\"pooled but not judged\" grades before grade 0)",
    TiePolicy.EXPECTED: "no order: each measure's exact mean over every order of the tied items",
}
