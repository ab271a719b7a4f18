"""Every case of the bad-input catalogue ends as documented (tests/test_docs.py checks that
docs/bad_inputs.md is current)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bad_inputs import CASES, ROOT, run_case

sys.path.insert(0, str(Path(__file__).parent))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case):
    outcome, message = run_case(case)
    assert outcome == case.outcome, message
    assert case.words in message, message
    assert "\n" not in message
    if outcome == "error":
        assert message.startswith(case.file) or case.what in (
            "matrix+labels", "embeddings", "taxonomy", "power", "command", "edits"), message
        if case.line is not None:
            assert f"line {case.line}" in message, message


# a gzipped run that the command line streams holds a block at a time, so the bound on what a
# file read whole may expand to does not apply (tests/test_run_stream.py checks it is evaluated)
STREAMED = ("gzip expanding past the bound",)


@pytest.mark.parametrize("case", [c for c in CASES if c.outcome == "error" and c.what == "run"
                                  and c.name not in STREAMED], ids=lambda c: c.name)
def test_cli_exits_2_with_the_same_line(tmp_path, case):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    if case.make:
        (tmp_path / "made").mkdir()   # a folder of its own, away from the qrels
        bad = case.make(tmp_path / "made")
    else:
        bad = tmp_path / case.file
        bad.write_bytes(case.content)
    command = [sys.executable, "-m", "metrics", "evaluate", str(bad), str(qrels)]
    if case.unprivileged and os.geteuid() == 0:   # as a user: root reads any file
        if not shutil.which("setpriv"):
            pytest.skip("root, and no setpriv to drop the right to read any file")
        command = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
                   "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **dict(case.env)})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and case.words in done.stderr, done.stderr


def test_large_file_loads_through_the_fast_path(tmp_path):
    block = b"".join(b"q%d Q0 doc%d %d %.4f run\n" % (q, d, d, 100 - d / 10)
                     for q in range(100) for d in range(1, 1001))   # ~3.3 MB
    big = tmp_path / "big.run"
    with big.open("wb") as handle:
        handle.write(block)
        for copy in range(1, 100):   # the same lines for other queries: ~330 MB in all
            handle.write(re.sub(rb"(?m)^q", b"c%dq" % copy, block))
    qrels = tmp_path / "big.qrels"
    qrels.write_text("q1 0 doc5 1\nq2 0 doc900 1\n")
    assert big.stat().st_size > 300 * 2**20
    done = subprocess.run([sys.executable, "-m", "metrics", "evaluate", str(big), str(qrels),
                           "-m", "AP,RR", "-f", "json"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["aggregate"]["RR"] == pytest.approx((1 / 5 + 1 / 900) / 2)
    assert data["num_queries"] == 2
    assert any("9998 run quer(ies) not in the ground truth" in w for w in data["warnings"])


def test_same_inputs_and_seed_give_the_same_comparison(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"q{i} 0 d{i % 5} 1\n" for i in range(30)))
    runs = []
    for name, shift in (("a", 0), ("b", 1)):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"q{i} Q0 d{(d + shift * i) % 7} {d} {10 - d} x\n"
                                for i in range(30) for d in range(7)))
        runs.append(str(path))
    outputs = [subprocess.run([sys.executable, "-m", "metrics", "compare", *runs, str(qrels),
                               "-m", "AP", "-f", "json", "--seed", "7", "--resamples", "2000"],
                              cwd=ROOT, capture_output=True, text=True).stdout for _ in range(2)]
    assert outputs[0] == outputs[1]
    tests = json.loads(outputs[0])["tests"]
    assert {t["seed"] for t in tests} == {7}
