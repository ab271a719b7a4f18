"""Every command and output format carries the warnings about its inputs (issue 42, item 2):
``warning:`` lines on stderr beside text, a ``"warnings"`` list in JSON (and nothing on stderr)."""

import json

import pytest

from metrics.cli import main

# Run A: a duplicated (query, item) pair, a query the ground truth lacks (q9), and it lacks
# ground-truth queries q3 and q4. Run B retrieves no judged item at all (ids of another
# collection) and lacks q3 and q4 too. q4 judges nothing relevant.
RUN_A = """q1 Q0 d1 1 3.0 A
q1 Q0 d2 2 2.0 A
q1 Q0 d2 3 1.0 A
q2 Q0 d3 1 1.0 A
q9 Q0 d3 1 1.0 A
"""
RUN_B = """q1 Q0 x1 1 3.0 B
q2 Q0 x2 1 1.0 B
"""
QRELS = """q1 0 d1 1
q1 0 d2 0
q2 0 d3 1
q3 0 d5 1
q4 0 d6 0
"""
# each kind of warning the inputs above must give, as its words
EXPECTED = {
    "duplicates dropped": "a.run: 1 duplicated (query, item) pair(s) dropped",
    "run query not judged": "A: 1 run quer(ies) not in the ground truth were left out",
    "A's missing queries scored 0": "A: 2 ground-truth quer(ies) are not in the run and score 0",
    "B's missing queries scored 0": "B: 2 ground-truth quer(ies) are not in the run and score 0",
    "ids matching no judged item": "B: 2 of 2 quer(ies) retrieved no judged item at all",
    "no relevant item": "1 quer(ies) have no relevant item in the ground truth",
}
COMMANDS = [("compare", fmt) for fmt in ("table", "csv", "json", "latex", "markdown")] + \
           [("power", fmt) for fmt in ("table", "json")]


@pytest.fixture
def inputs(tmp_path):
    for name, text in (("a.run", RUN_A), ("b.run", RUN_B), ("t.qrels", QRELS)):
        (tmp_path / name).write_text(text)
    return [str(tmp_path / name) for name in ("a.run", "b.run", "t.qrels")]


def run(capsys, *argv) -> tuple[str, list[str]]:
    """(stdout, the warnings on stderr) of a command that succeeds."""
    assert main(list(argv)) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert all(line.startswith("warning: ") for line in lines), err
    return out, [line.removeprefix("warning: ") for line in lines]


def measure_options(command: str) -> list[str]:
    return ["--measure", "AP"] if command == "power" else ["-m", "AP"]


@pytest.mark.parametrize("command,fmt", COMMANDS)
def test_every_format_of_compare_and_power_carries_every_warning(capsys, inputs, command, fmt):
    out, on_stderr = run(capsys, command, *inputs, *measure_options(command), "--format", fmt)
    if fmt == "json":
        assert on_stderr == []   # a program reads stdout; the warnings are in it
        warnings = json.loads(out)["warnings"]
    else:
        warnings = on_stderr
    for kind, words in EXPECTED.items():
        assert sum(words in w for w in warnings) == 1, (kind, warnings)
    assert len(warnings) == len(EXPECTED)


@pytest.mark.parametrize("command", ["compare", "power"])
def test_the_json_warnings_are_the_tables_warnings(capsys, inputs, command):
    out, _ = run(capsys, command, *inputs, *measure_options(command), "--format", "json")
    _, table_warnings = run(capsys, command, *inputs, *measure_options(command))
    assert json.loads(out)["warnings"] == table_warnings


def test_compare_json_carries_the_query_tables_warning(capsys, inputs, tmp_path):
    table = tmp_path / "queries.csv"
    table.write_text("query_id,genre\nq1,rock\nq2,jazz\nnowhere,pop\n")
    out, on_stderr = run(capsys, "compare", *inputs, "-m", "AP", "--format", "json",
                         "--query-metadata", str(table), "--group-by", "genre")
    assert on_stderr == []
    assert any("1 of its 3 queries match nothing in the run or ground truth (first: 'nowhere')"
               in w for w in json.loads(out)["warnings"])


def test_evaluate_keeps_its_warnings_in_every_format(capsys, inputs):
    run_a, _, qrels = inputs
    out, on_stderr = run(capsys, "evaluate", run_a, qrels, "-m", "AP", "--format", "json")
    assert on_stderr == []
    warnings = json.loads(out)["warnings"]
    for fmt in ("table", "csv", "trec"):
        assert run(capsys, "evaluate", run_a, qrels, "-m", "AP", "--format", fmt)[1] == warnings
    assert len(warnings) == 4 and "duplicated" in warnings[0]
