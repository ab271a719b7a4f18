"""``python -m metrics trec-eval`` against the trec_eval 10.0 binary built from
tests/trec_eval_source (the ``trec_eval_binary`` fixture): stdout byte for byte and the exit
status, on trec_eval's own test suite (every case of its Makefile's ``quicktest``, with its
flags) and on generated cases (graded and negative grades, scores tied as float32 but not as
double, unjudged items, queries on one side only, a query with no relevant item). A difference
is reported at its first line. Every case of the suite is byte-identical, -R prefs,
qrels_prefs and qrels_jg and -Z included.
"""

from __future__ import annotations

import re
import shlex
import subprocess

import numpy as np
import pytest

from metrics.cli import main
from trec_eval_binary import SOURCE


def quicktest_cases() -> list[tuple[list[str], str]]:
    """(trec_eval's arguments, the out file they are checked against) of the Makefile's
    quicktest target."""
    makefile = (SOURCE / "Makefile").read_text()
    target = makefile.split("\nquicktest:", 1)[1].split("\n\n", 1)[0]
    return [(shlex.split(m.group(1)), m.group(2))
            for m in re.finditer(r"\./trec_eval (.*?) \| diff - test/(\S+)", target)]


def case_id(args: list[str]) -> str:
    return " ".join(args)


def ours(args: list[str], capsys) -> tuple[int, str]:
    """Our command in this process: (exit status, stdout)."""
    capsys.readouterr()
    status = main(["trec-eval", *args])
    return status, capsys.readouterr().out


def theirs(binary, args: list[str], cwd) -> tuple[int, str]:
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, cwd=cwd)
    return done.returncode, done.stdout


def assert_same(our: tuple[int, str], their: tuple[int, str]) -> None:
    """Same stdout, byte for byte, and the same exit status; the first differing line named."""
    our_lines, their_lines = our[1].split("\n"), their[1].split("\n")
    for number, (a, b) in enumerate(zip(our_lines, their_lines), 1):
        if a != b:
            pytest.fail(f"line {number} differs:\n  trec_eval: {b!r}\n  ours:      {a!r}")
    if len(our_lines) != len(their_lines):
        longer, who = (their_lines, "trec_eval") if len(their_lines) > len(our_lines) else \
            (our_lines, "ours")
        pytest.fail(f"line {min(len(our_lines), len(their_lines))}: only {who} goes on, with "
                    f"{longer[min(len(our_lines), len(their_lines)) - 1]!r}")
    assert our[0] == their[0], f"exit status {our[0]}, trec_eval's {their[0]}"


QUICKTEST = quicktest_cases()


def test_the_makefile_lists_every_out_file():
    """Each test/out.* file of trec_eval's suite is checked by some case of its quicktest."""
    checked = {out for _, out in QUICKTEST}
    assert checked == {p.name for p in (SOURCE / "test").glob("out.*")}


@pytest.mark.parametrize("args", [pytest.param(a, id=f"{out}: {case_id(a)}")
                                  for a, out in QUICKTEST])
def test_trec_eval_test_suite(args, trec_eval_binary, capsys, monkeypatch):
    monkeypatch.chdir(SOURCE)
    assert_same(ours(args, capsys), theirs(trec_eval_binary, args, SOURCE))


# ---- generated cases ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Qrels and a run, seeded: 8 queries of 40 retrieved items; grades -1 to 3 (-1: pooled, not
    judged) and unjudged items; q3's scores tie as float32 but not as double (1 + k·1e-9), and
    q5's tie exactly (the order falls to the item ids); q6 has no relevant item (R = 0), q7 is
    in the qrels only (between others in strcmp order, so -q lines come before it) and q8 in
    the run only."""
    rng = np.random.default_rng(43)
    folder = tmp_path_factory.mktemp("generated")
    qrels, run = [], []
    for q in ("q1", "q10", "q2", "q3", "q4", "q5", "q6", "q7", "q8"):
        items = [f"d{i:03d}" for i in rng.permutation(60)[:50]]
        if q != "q8":
            for item in items[:35]:
                grade = 0 if q == "q6" else int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))
                qrels.append(f"{q} 0 {item} {grade}")
        if q == "q7":
            continue
        retrieved = items[10:50]   # the first 10 judged items are never retrieved
        for k, item in enumerate(retrieved):
            score = (1 + k * 1e-9 if q == "q3" else 5.0 if q == "q5" and k < 20 else
                     float(np.round(rng.normal(), 4)))
            run.append(f"{q} Q0 {item} {k + 1} {score!r} gen")
    # z-scores: a deviation of 0 with the value at the mean and off it; q3 lacks map and q10
    # num_ret, which trec_eval's searches find in the next query's first line (q7's map, q2's
    # num_ret); q7 is -c's; q4 and the rest are missing (-1000000)
    (folder / "zscores").write_text(
        "q1 map 0.2 0.1\nq1 P_5 0.4 0\nq10 map 0.3 0.0\nq2   num_ret\t40 0\n"
        "q3 gm_map -2 1.5\nq7 map 0.1 0.2\nq7 num_rel 12 3\nq1 iprec_at_recall_0.00 0.5 0.25\n")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    # judgment groups: q1 judged by group a alone, q2 by four (10 before 9 in strcmp order),
    # the others by a and b; each group judges most items, b and the rest with their own grades
    groups = ["# judgment groups"]
    for line in qrels:
        query, _, item, grade = line.split()
        for group in {"q1": ["a"], "q2": ["a", "b", "10", "9"]}.get(query, ["a", "b"]):
            if rng.random() < 0.8:
                judged = grade if group == "a" else int(rng.choice([-1, 0, 1, 2]))
                groups.append(f"{query} {group} {item} {judged}")
    (folder / "qrels_jg").write_text("\n".join(groups) + "\n")
    # preferences: group u2 one subgroup of levels (equivalence classes), group u1 two
    # subgroups (a partial order, closed under transitivity)
    prefs = ["# preferences"]
    for line in qrels:
        query, _, item, grade = line.split()
        if rng.random() < 0.7:
            prefs.append(f"{query} u2 s {item} {max(int(grade), 0) * 0.5}")
        if int(grade) >= 0 and rng.random() < 0.5:
            prefs.append(f"{query} u1 {'s1' if rng.random() < 0.5 else 's2'} {item} {grade}")
    (folder / "prefs").write_text("\n".join(prefs) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    return folder


REGISTERED_NOW = ["-m", "num_q", "-m", "runid", "-m", "num_ret", "-m", "num_rel", "-m",
                  "num_rel_ret", "-m", "map", "-m", "Rprec", "-m", "bpref", "-m", "recip_rank",
                  "-m", "P", "-m", "recall", "-m", "relstring", "-m", "infAP", "-m", "success",
                  "-m", "map_cut", "-m", "ndcg_cut", "-m", "ndcg", "-m", "set_P", "-m",
                  "set_recall", "-m", "set_F"]
GENERATED = [
    ["-q", "-c", *REGISTERED_NOW],
    ["-q", "-c", "-J", *REGISTERED_NOW],
    ["-q", "-c", "-M", "7", *REGISTERED_NOW],
    ["-q", "-c", "-l", "2", *REGISTERED_NOW],
    ["-c", "-n", "-q", "-m", "P.3,1", "-m", "ndcg_cut.4", "-m", "map"],
    ["-q", "-m", "P.5", "-m", "map"],            # q7 has no results: exit 4 after q1 ... q6
    ["-c", "-D", "0.q2", "-q", "-m", "map", "-m", "num_q"],
    ["-q", "-c", "-m", "all_trec"],
    # trec_eval prints -nan: -c scores q7 (no results) on its one-item ranking, which -J
    # empties, and iprec_at_recall_0.00 and 11pt_avg divide 0 by 0
    ["-q", "-c", "-J", "-m", "all_trec"],
    ["-q", "-c", "-M", "7", "-m", "all_trec"],
    ["-q", "-c", "-l", "2", "-m", "all_trec"],
    ["-c"],
    # parameters in trec_eval's syntax: gains less than 1 apart (its sort by the truncated
    # difference), a gain for grade 0, a negative gain, levels repeated, utility with -N, -M 0
    ["-q", "-c", "-m", "ndcg.1=0.5", "-m", "ndcg.0=1,2=2.5,3=0.2", "-m", "11pt_avg.0,.3,.3,.9"],
    ["-q", "-c", "-J", "-m", "ndcg.3=-1,1=4", "-m", "utility.1,-2,0.5,0.25", "-N", "500"],
    ["-q", "-c", "-J", "-l", "2", "-m", "11pt_avg.0.1,0.2", "-m", "iprec_at_recall.0.1,0.05"],
    ["-q", "-c", "-M", "0", "-m", "all_trec"],
    ["-q", "-c", "-m", "rbp.p=0.8", "-m", "rbp_resid.p=0.5", "-m", "rbp"],
    ["-q", "-c", "-J", "-m", "G.3=-1,1=4", "-m", "ndcg_rel.3=-1,1=4"],
    ["-q", "-c", "-M", "5", "-m", "G.0=1,2=2.5,3=0.2", "-m", "ndcg_rel.0=1,2=2.5,3=0.2"],
    ["-q", "-c", "-J", "-m", "Rndcg.3=-1,1=4"], ["-q", "-c", "-l", "2", "-m", "Rndcg.1=2,2=2"],
    ["-q", "-c", "-Z", "zscores"],
    ["-q", "-c", "-J", "-Z", "zscores", "-m", "all_trec"],
    ["-Z", "zscores", "-m", "map", "-m", "gm_map", "-q"],   # exit 4 at q7, after q6
]


JUDGMENT_GROUPS = [
    ["-q", "-c", "-m", "qrels_jg"],
    ["-q", "-c", "-J", "-m", "qrels_jg", "-m", "P_avgjg.3,7"],
    ["-q", "-c", "-M", "9", "-l", "2", "-m", "qrels_jg"],
    ["-q", "-m", "qrels_jg"],                         # exit 4 at q7
    ["-q", "-c", "-m", "Rprec_mult_avgjg.0.5", "-Z", "zscores"],
    ["-q", "-c", "-m", "map"],                        # map reads no judgment groups: exit 4
]


@pytest.mark.parametrize("args", GENERATED, ids=case_id)
def test_generated_cases(args, generated, trec_eval_binary, capsys, monkeypatch):
    monkeypatch.chdir(generated)
    full = [*args, "qrels", "run"]
    assert_same(ours(full, capsys), theirs(trec_eval_binary, full, generated))


@pytest.mark.parametrize("args", JUDGMENT_GROUPS, ids=case_id)
def test_generated_judgment_groups(args, generated, trec_eval_binary, capsys, monkeypatch):
    monkeypatch.chdir(generated)
    full = ["-R", "qrels_jg", *args, "qrels_jg", "run"]
    assert_same(ours(full, capsys), theirs(trec_eval_binary, full, generated))


PREFERENCES = [
    ["-R", "prefs", "-q", "-c", "-m", "all_prefs", "prefs"],
    ["-R", "prefs", "-q", "-c", "-M", "12", "-m", "all_prefs", "prefs"],
    ["-R", "prefs", "-q", "-m", "prefs", "prefs"],                       # exit 4 at q7
    ["-R", "prefs", "-q", "-c", "-m", "map", "prefs"],                   # map reads no prefs
    # the qrels as preferences: its grade -1 is a level of its own below 0 (the Rnonrel_ret
    # count stops at an unretrieved item before it reads past the lowest level)
    ["-R", "qrels_prefs", "-q", "-c", "-J", "-m", "prefs", "-m", "prefs_avgjg_Rnonrel_ret",
     "qrels"],
]


@pytest.mark.parametrize("args", PREFERENCES, ids=case_id)
def test_generated_preferences(args, generated, trec_eval_binary, capsys, monkeypatch):
    monkeypatch.chdir(generated)
    full = [*args, "run"]
    assert_same(ours(full, capsys), theirs(trec_eval_binary, full, generated))


def test_a_preference_trec_eval_reads_past_its_data_for_is_refused(generated, capsys,
                                                                  monkeypatch):
    """prefs_avgjg_Rnonrel of the qrels: the lowest level (-1) has fewer items than the
    relevant ones, which trec_eval reads from it (and past it): refused, exit 4."""
    monkeypatch.chdir(generated)
    capsys.readouterr()
    status = main(["trec-eval", "-R", "qrels_prefs", "-c", "-m", "prefs_avgjg_Rnonrel",
                   "qrels", "run"])
    captured = capsys.readouterr()
    assert status == 4 and captured.out == ""
    assert "reads past its data" in captured.err and captured.err.count("\n") == 1


def test_judgment_group_measures_need_their_format(generated, trec_eval_binary, capsys,
                                                   monkeypatch):
    monkeypatch.chdir(generated)
    full = ["-m", "map_avgjg", "qrels", "run"]
    assert_same(ours(full, capsys), theirs(trec_eval_binary, full, generated))


@pytest.mark.parametrize("text, line", [
    ("q1 a d1 1\nq1 a d2\n", 2),              # three fields: trec_eval's "Malformed line"
    ("q1 a d1 1\n\nq1 a d2 1\n", 2),          # a blank line is malformed too
    ("q1 a d1 1\nq1 b d1 x\n", 2),            # trec_eval reads x as 0: refused here
    ("# c\nq1 a d1 1\nq1 a d1 0\n", 3),       # one item twice in a group: duplicate docs
])
def test_a_bad_judgment_group_file_is_refused_naming_its_line(text, line, generated, tmp_path,
                                                              capsys, monkeypatch):
    (tmp_path / "jg").write_text(text)
    monkeypatch.chdir(generated)
    capsys.readouterr()
    assert main(["trec-eval", "-R", "qrels_jg", "-m", "map_avgjg", str(tmp_path / "jg"),
                 "run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert f"jg line {line}:" in captured.err


# ---- inputs as trec_eval reads them, and refuses ------------------------------------------------

@pytest.mark.parametrize("run, status", [
    ("q1 Q0 d1 1 2.0 tag and more fields\nq1 Q0 d2 2 1.0 tag\n", 0),   # results.trunc's kind
    ("q1 Q0 d1 1 2.0\n", 2),                                             # five fields
    ("q1 Q0 d1 1 2.0 tag\nq1 Q0 d1 2 1.0 tag\n", 4),                     # a document twice
])
def test_run_lines_as_trec_eval_reads_them(run, status, tmp_path, trec_eval_binary, capsys,
                                           monkeypatch):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "run").write_text(run)
    monkeypatch.chdir(tmp_path)
    args = ["-q", "-m", "map", "-m", "num_ret", "qrels", "run"]
    their = theirs(trec_eval_binary, args, tmp_path)
    assert their[0] == status
    our = ours(args, capsys)
    assert our[0] == status
    if status == 0:
        assert_same(our, their)


@pytest.mark.parametrize("missing", ["qrels", "run"])
def test_a_missing_file_exits_2_naming_it(missing, generated, trec_eval_binary, capsys,
                                          monkeypatch):
    """(Before: a missing run was an internal error, the fallback for long lines reading it.)"""
    monkeypatch.chdir(generated)
    args = ["nothing" if missing == "qrels" else "qrels", "nothing" if missing == "run" else "run"]
    capsys.readouterr()
    status = main(["trec-eval", *args])
    captured = capsys.readouterr()
    assert status == theirs(trec_eval_binary, args, generated)[0] == 2
    assert captured.err.count("\n") == 1 and "nothing" in captured.err
    assert "internal error" not in captured.err


@pytest.mark.parametrize("args", [["-m", "no_such_measure"], ["-m", "P."], ["-x"],
                                  ["-m", "P.0"], ["-m", "P.5,5"]])
def test_bad_options_exit_as_trec_eval(args, generated, trec_eval_binary, capsys, monkeypatch):
    monkeypatch.chdir(generated)
    full = [*args, "qrels", "run"]
    status, out = ours(full, capsys)
    their_status, their_out = theirs(trec_eval_binary, full, generated)
    assert (status, out) == (their_status, their_out)


@pytest.mark.parametrize("lines, ours_only", [
    ("q1 map 0.2\n", False),                  # three fields: trec_eval's "Malformed line 1"
    ("q1 map 0.2 0.1\n\nq2 map 0.2 0.1\n", False),   # a blank line is malformed too
    ("q1 map 0.2 0.1\nq1 map x 0.1\n", True),   # trec_eval reads x as 0: refused here
    ("q1 map 0.2 0.1\nq1 map 0.3 0.1\n", True),   # twice: trec_eval finds either
])
def test_a_bad_zscore_file_is_refused_naming_its_line(lines, ours_only, generated, tmp_path,
                                                      trec_eval_binary, capsys, monkeypatch):
    (tmp_path / "z").write_text(lines)
    monkeypatch.chdir(generated)
    args = ["-Z", str(tmp_path / "z"), "qrels", "run"]
    capsys.readouterr()
    status = main(["trec-eval", *args])
    captured = capsys.readouterr()
    assert status == 255 and captured.out == ""
    line = 2 if ours_only or "\n\n" in lines else 1
    assert captured.err.count("\n") == 1 and f"z line {line}:" in captured.err
    if not ours_only:
        assert theirs(trec_eval_binary, args, generated)[0] == 255


def test_evaluate_format_trec_prints_trec_evals_default_measures(trec_eval_binary, capsys,
                                                                 monkeypatch):
    """``evaluate --format trec`` without -m: trec_eval's default output under its names (runid
    and num_q, no measures of a run's queries, left out); before, it printed AP, P@10, ..."""
    monkeypatch.chdir(SOURCE)
    capsys.readouterr()
    assert main(["evaluate", "test/results.test", "test/qrels.test", "--format", "trec",
                 "--ties", "trec10"]) == 0
    our = capsys.readouterr().out
    status, their = theirs(trec_eval_binary, ["test/qrels.test", "test/results.test"], SOURCE)
    their = "".join(line for line in their.splitlines(keepends=True)
                    if not line.startswith(("runid ", "num_q ")))
    assert_same((0, our), (status, their))


def test_trec_eval_loads_none_of_the_other_commands_modules(tmp_path):
    """``trec-eval`` is handed on before the other commands' modules load (their tests,
    leaderboard, power, provenance and argparse: some 40 ms of a W1 run it never uses); in a
    fresh process, as a user runs it."""
    import sys
    from pathlib import Path

    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    probe = ("import sys; from metrics.cli import main; "
             "status = main(['trec-eval', '-m', 'map', 'qrels', 'run']); "
             "print(status, sorted(m for m in ('metrics.cli.commands', 'metrics.evaluation.stats', "
             "'metrics.evaluation.leaderboard', 'argparse') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, env={"PYTHONPATH": str(Path(__file__).resolve().parents[1]),
                                          "PATH": "/usr/bin:/bin"})
    assert done.stdout.splitlines() == ["map                   \tall\t1.0000", "0 []"], done.stderr
