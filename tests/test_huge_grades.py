"""Grades beyond what 2^g fits in a double (the issue's 1024 and up), end to end: the command line
prints ERR, GAP and nDCG(form=burges) with exit status 0 and nothing on stderr (no NumPy
warning), refuses DCG(form=burges) in one line with exit status 2, and the app's Data, Query
explorer and Compare pages show the values without an exception.

Values are checked against exact arithmetic in test_measures_graded.py; here, that they reach
the user."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apptest import app
from dashboard.settings import DataSource

ROOT = Path(__file__).resolve().parents[1]
RUN = b"q1 Q0 d1 1 3 a\nq1 Q0 d0 2 2 a\nq1 Q0 d2 3 1 a\nq2 Q0 d3 1 1 a\n"
OTHER = b"q1 Q0 d0 1 3 b\nq1 Q0 d1 2 2 b\nq1 Q0 d2 3 1 b\nq2 Q0 d3 1 1 b\n"
QRELS = b"q1 0 d0 1500\nq1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2000\n"
MEASURES = "ERR,GAP,nDCG(form=burges),EP,nDCG"


def run_cli(tmp_path, measures: str):
    (tmp_path / "a.run").write_bytes(RUN)
    (tmp_path / "q.qrels").write_bytes(QRELS)
    return subprocess.run([sys.executable, "-m", "metrics", "evaluate", str(tmp_path / "a.run"),
                           str(tmp_path / "q.qrels"), "--measures", measures, "--format",
                           "json", "--per-query"], cwd=ROOT, capture_output=True, text=True)


def test_the_command_line_prints_err_gap_and_ndcg_burges_for_grades_beyond_1023(tmp_path):
    done = run_cli(tmp_path, MEASURES)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    per_query = json.loads(done.stdout)["per_query"]
    # gmax is the whole truth's, 2000. q1 ranks d1 (1) above d0 (1500): d1 stops a share
    # 2^-1999 − 2^-2000 of the users, none in a double, d0 a share 2^-500 at rank 2, so ERR is
    # 2^-501; q2 ranks its only item, grade 2000, first: every user stops there
    assert per_query["q1"]["ERR"] == pytest.approx(2.0 ** -501, rel=1e-12)
    assert per_query["q2"]["ERR"] == 1.0 and per_query["q2"]["GAP"] == 1.0
    assert all(value is not None and 0 <= value <= 1 for row in per_query.values()
               for value in row.values())


def test_the_command_line_refuses_dcg_burges_beyond_a_double_in_one_line(tmp_path):
    done = run_cli(tmp_path, "DCG(form=burges)")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "up to 1023" in done.stderr, done.stderr


def test_the_app_pages_show_err_and_gap_for_grades_beyond_1023():
    upload = DataSource.of_upload("runs+qrels", (("runs", "a.run", RUN), ("runs", "b.run", OTHER),
                                                 ("qrels", "q.qrels", QRELS)),
                                  None, False, "cosine")
    for page in ("pages/data.py", "pages/explorer.py", "pages/compare.py"):
        at = app(page, upload=upload, sample="upload", measures=MEASURES)
        assert not at.exception, (page, at.exception)
        assert not at.error, (page, [e.value for e in at.error])
