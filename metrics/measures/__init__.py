"""The measures of SPEC §4, registered by name in :data:`metrics.measures.registry.REGISTRY`.

Importing this package registers them all. Every function takes a
:class:`~metrics.data.judged.JudgedRanking`, a cutoff (or None) and its parameters, and returns one float
per query computed for all queries at once on the queries × ranks grade matrix; NaN marks a value
that is undefined for that query.
"""

# registration order is the order of `python -m metrics measures` and the README table
from metrics.measures import (set_based, rank_based, interpolated, rank_biased, graded, confusion)  # noqa: F401,I001
