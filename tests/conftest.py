import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from anywhere: the project's `metrics`, never PyPI's
    sys.path.insert(0, str(ROOT))

# Judgments apply on every page (dashboard/judging.py): no test, and no server a test starts
# (they inherit the environment), may read or grow the judgments database of whoever runs the
# suite (by default in their data folder), nor leave one for the next run. A test that judges
# names its own file; everything else sees this empty one, made fresh for each session.
os.environ["MRE_JUDGMENTS"] = str(Path(tempfile.mkdtemp(prefix="mre_tests_")) / "judgments.sqlite")

# ranx, an oracle, runs its measures through numba, which compiles them on first use: over a
# minute and a half of a run of the suite on a fresh machine (nothing cached), for oracle cases of
# a few queries that its Python code computes in milliseconds, to the same numbers. Set before
# anything imports numba (it reads this once); the benchmarks, which time ranx, keep its JIT.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")


@pytest.fixture
def values_of():
    """``values_of(run, qrels, "P@5,R")``: our values per query, ``{"P@5": [...], "R": [...]}``,
    the queries in the ground truth's order, for a run ``{query: {item: score}}`` and a ground
    truth ``{query: {item: grade}}``; keyword arguments go to ``judge`` (``collection_size=``,
    ``ties=``)."""
    from metrics import GroundTruth, Run, evaluate, judge

    def compute(run, qrels, measures, **judge_args):
        judged = judge(Run.from_dict(run), GroundTruth.from_dict(qrels), **judge_args)
        return {name: r.values.tolist() for name, r in evaluate(judged, measures).results.items()}
    return compute


from trec_eval_binary import trec_eval_binary  # noqa: E402,F401  the oracle, built once per session
from postgres_server import postgres_server, postgres_url  # noqa: E402,F401  a throw-away PostgreSQL server
