"""The corrections for many comparisons have one owner, :class:`Correction` (issue 41): its names,
titles and descriptions, its adjustment against statsmodels' multipletests, the command line that
parses --ties and --correction into their types at its door (a bad one refused in one line,
exit status 2), docs/command_line.md's table of the corrections, and the dashboard's caches, which
hash the types as they hashed the names."""

import re
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from metrics import InputError
from metrics.cli.parser import build_parser
from metrics.data.ties import TiePolicy
from metrics.evaluation.corrections import Correction

ROOT = Path(__file__).resolve().parents[1]
# p-values of a family of seven tests, one of them undefined (None: no spread in the differences)
RAW = [0.01, 0.04, None, 0.03, 0.005, 0.2, 0.04]


def test_names_titles_and_descriptions():
    # the strings the command line, the Leaderboard's radio and the captions printed before
    assert Correction.names() == ("holm", "bh", "tukey")
    assert [c.title for c in Correction] == ["Holm", "Benjamini–Hochberg", "Tukey's HSD"]
    assert [c.description for c in Correction] == [
        "Holm's step-down correction of paired t-tests",
        "Benjamini–Hochberg correction of paired t-tests",
        "Tukey's HSD over all pairs of systems, paired by query (on the residual of the two-way "
        "ANOVA systems × queries)"]
    assert Correction.parse("bh") is Correction.BH
    with pytest.raises(InputError, match="unknown correction 'bonferroni'; use one of holm, bh, "
                                         "tukey"):
        Correction.parse("bonferroni")


@pytest.mark.parametrize("correction, method", [(Correction.HOLM, "holm"),
                                                (Correction.BH, "fdr_bh")])
def test_adjustment_is_statsmodels_multipletests(correction, method):
    known = [p for p in RAW if p is not None]
    expected = iter(multipletests(known, method=method)[1])
    adjusted = correction.adjust(RAW)
    assert adjusted[2] is None          # an undefined test stays undefined and is not counted
    np.testing.assert_allclose([p for p in adjusted if p is not None], list(expected),
                               rtol=1e-12)


def test_known_values_of_holm_and_bh():
    # by hand: Holm multiplies the i-th smallest of m = 3 by m − i + 1 (and keeps the sequence
    # non-decreasing); BH multiplies it by m / i (and keeps it non-increasing from the top)
    assert Correction.HOLM.adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert Correction.BH.adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.04, 0.04])


def test_tukey_adjusts_no_p_values_it_tests_all_pairs():
    assert [c.tests_all_pairs_at_once for c in Correction] == [False, False, True]
    with pytest.raises(ValueError, match="Tukey's HSD adjusts no p-values"):
        Correction.TUKEY.adjust([0.01, 0.02])


def test_the_command_line_parses_choices_into_their_types():
    parser = build_parser()
    args = parser.parse_args(["evaluate", "r", "t"])
    assert args.ties is TiePolicy.STABLE
    assert parser.parse_args(["evaluate", "r", "t", "--ties", "trec"]).ties is TiePolicy.TREC9
    assert parser.parse_args(["power", "a", "b", "t", "--ties", "id"]).ties is TiePolicy.ID
    args = parser.parse_args(["compare", "a", "b", "t", "--correction", "bh"])
    assert args.correction is Correction.BH
    assert parser.parse_args(["compare", "a", "b", "t"]).correction is None


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "r", "t", "--ties", "nosuch"],
     "error: argument --ties: invalid choice: 'nosuch' (choose from 'stable', 'id', 'trec9', "
     "'trec10', 'optimistic', 'pessimistic', 'expected', 'trec') (see python -m metrics "
     "evaluate -h)\n"),
    (["compare", "a", "b", "t", "--correction", "bonferroni"],
     "error: argument --correction: invalid choice: 'bonferroni' (choose from 'holm', 'bh', "
     "'tukey') (see python -m metrics compare -h)\n"),
])
def test_a_bad_choice_is_refused_in_one_line_with_exit_status_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(argv)
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", message)


def test_the_usage_lists_the_choices_as_before():
    usage = build_parser()._subparsers._group_actions[0].choices["compare"].format_help()
    assert "[--correction {holm,bh,tukey}]" in usage
    assert "--ties {stable,id,trec9,trec10,optimistic,pessimistic,expected,trec}" in usage
    assert ("holm = Holm's step-down correction of paired t-tests; bh = Benjamini–Hochberg"
            in " ".join(usage.split()))


def test_docs_table_of_the_corrections_is_the_types():
    text = (ROOT / "docs" / "command_line.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|$", text, re.M)
    assert rows == [(c.value, c.title, c.description) for c in Correction]


def test_the_leaderboard_cache_hashes_a_correction_as_its_name(monkeypatch):
    # the Leaderboard's tests are computed once per correction: back to Holm after BH is the
    # cache's, whether the setting holds the radio's Correction or a link's name
    import metrics.evaluation.leaderboard as engine
    from apptest import app

    calls = []
    counted = engine.leaderboard

    def leaderboard(*args, **kwargs):
        calls.append(args[3])
        return counted(*args, **kwargs)

    monkeypatch.setattr(engine, "leaderboard", leaderboard)
    at = app("pages/leaderboard.py", sample="versions", measures="AP,P@5", ties="id",
             correction="holm")
    assert not at.exception and not at.error
    radio = at.radio(key="leaderboard_correction")
    radio.set_value(Correction.BH).run()
    radio.set_value(Correction.HOLM).run()
    assert not at.exception and not at.error
    assert calls == [Correction.HOLM, Correction.BH]
    assert all(isinstance(c, Correction) for c in calls)
