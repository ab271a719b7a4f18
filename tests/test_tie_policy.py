"""The tie policies have one owner (metrics.data.ties.TiePolicy): names, former names, what each
does, and the help text the command line and the dashboard show."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics import GroundTruth, InputError, Run, judge
from metrics.data.ties import TiePolicy

ROOT = Path(__file__).resolve().parents[1]


def test_every_name_and_former_name_parses_to_one_policy():
    assert TiePolicy.parse("trec") is TiePolicy.TREC9
    assert TiePolicy.parse("expected") is TiePolicy.EXPECTED
    assert TiePolicy.parse(TiePolicy.ID) is TiePolicy.ID
    assert [p.value for p in TiePolicy] == ["stable", "id", "trec9", "trec10", "optimistic",
                                            "pessimistic", "expected"]
    assert TiePolicy.ordering_names() == ("stable", "id", "trec9", "trec10")


def test_an_unknown_policy_is_refused_once_with_the_list():
    with pytest.raises(InputError, match="unknown tie policy 'random'; use one of stable, id, "
                                         "trec9, trec10, optimistic, pessimistic, expected"):
        TiePolicy.parse("random")
    run = Run.from_dict({"q": {"a": 1.0, "b": 1.0}})
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    with pytest.raises(InputError, match="unknown tie policy"):
        judge(run, truth, ties="random")


def test_what_each_policy_does():
    assert [p.tie_aware for p in TiePolicy] == [False] * 4 + [True] * 3
    assert [p.ordering for p in TiePolicy] == [TiePolicy.STABLE, TiePolicy.ID, TiePolicy.TREC9,
                                               TiePolicy.TREC10] + [TiePolicy.STABLE] * 3
    assert [p for p in TiePolicy if p.float32] == [TiePolicy.TREC9]
    assert [p for p in TiePolicy if p.id_descending] == [TiePolicy.TREC9, TiePolicy.TREC10]
    assert [p for p in TiePolicy if p.reorders] == [TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC]


def test_the_former_name_ranks_as_trec9():
    # 0.1 and 0.1 + 1e-9 differ as doubles, tie as float32: trec9 breaks the tie by id descending
    run = Run.from_dict({"q": {"a": 0.1 + 1e-9, "b": 0.1}})
    truth = GroundTruth.from_dict({"q": {"a": 1, "b": 0}})
    for name in ("trec", "trec9"):
        judged = judge(run, truth, ties=name)
        assert judged.hit_ranks[judged.hit_grades == 1].tolist() == [2], name
    judged = judge(run, truth, ties="trec10")
    assert judged.hit_ranks[judged.hit_grades == 1].tolist() == [1]


def test_the_command_line_offers_every_policy_with_its_description():
    done = subprocess.run([sys.executable, "-m", "metrics", "evaluate", "-h"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    help_text = " ".join(done.stdout.split())
    for policy in TiePolicy:
        assert policy.value in help_text
        assert " ".join(policy.description.split())[:40] in help_text, policy
    assert "trec is trec9's former name" in help_text


def test_the_dashboard_help_names_only_the_policies_it_offers():
    text = TiePolicy.help_text(TiePolicy.orderings())
    assert all(p.value in text for p in TiePolicy.orderings())
    assert "optimistic" not in text and "expected" not in text
    assert np.all([p.description in TiePolicy.help_text() for p in TiePolicy])
