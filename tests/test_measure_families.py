"""Every family of measures has its test module, and every registered measure a test named after
it there.

A measure's family is the module of metrics/measures that registers it (set_based, rank_based,
interpolated, rank_biased, graded, confusion); its tests are in tests/test_measures_<family>.py.

The convention for naming a test after a measure: the test function's name, split at its
underscores, holds the measure's name lowercased as a run of consecutive words, with or without
underscores inside it. MedianRank: ``test_median_rank_…`` (or ``test_medianrank_…``); BprefStar:
``test_bpref_star_…``; infAP: ``test_infap_…``; nDCG: ``test_ndcg_…``; P: a word ``p`` of its own,
as in ``test_p_at_k_…``. Read from left to right, the longest run that spells a registered name
wins, so ``test_bpref_star_…`` names BprefStar and not Bpref, ``test_rbp_residual_…`` names
RBPResidual and not RBP, and ``test_num_rel_ret_…`` names NumRelRet and not NumRel. One test may
name several measures (``test_rbp_and_rbp_residual_…`` names RBP and RBPResidual). The test must
assert the measure's value (checked by review, not here).

The cross-cutting suites stay apart: oracle comparisons (test_oracles.py), properties
(test_properties.py), the source documents' worked examples (test_seed_examples.py), tie-aware
evaluation (test_tie_aware.py), names and aliases (test_measure_names.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import metrics.measures  # noqa: F401  (registers the measures)
from metrics.measures.registry import REGISTRY

TESTS = Path(__file__).resolve().parent
SPELLINGS = {name.lower(): name for name in REGISTRY}   # "medianrank" -> "MedianRank"


def family(name: str) -> str:
    """The module of metrics/measures that registers the measure: "rank_based" for MedianRank."""
    return REGISTRY[name].compute.__module__.rsplit(".", 1)[-1]


def family_module(family_name: str) -> Path:
    return TESTS / f"test_measures_{family_name}.py"


def defined_tests(path: Path) -> list[str]:
    """The names of the test functions defined at the top of a test module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]


def measures_named(test_name: str) -> set[str]:
    """The registered measures a test is named after, by the convention of this module."""
    words = test_name.split("_")[1:]
    named, start = set(), 0
    while start < len(words):
        for end in range(len(words), start, -1):   # the longest run first
            name = SPELLINGS.get("".join(words[start:end]))
            if name:
                named.add(name)
                start = end
                break
        else:
            start += 1
    return named


@pytest.mark.parametrize("test_name,named", [
    ("test_median_rank_agrees", {"MedianRank"}), ("test_medianrank_agrees", {"MedianRank"}),
    ("test_bpref_star_agrees", {"BprefStar"}), ("test_bpref_reads", {"Bpref"}),
    ("test_rbp_and_rbp_residual_agree", {"RBP", "RBPResidual"}),
    ("test_num_rel_ret_counts", {"NumRelRet"}), ("test_p_at_k_pads", {"P"}),
    ("test_ap_at_k_counts", {"AP"}), ("test_infap_by_hand", {"infAP"}),
    ("test_tp_fp_fn_and_tn", {"TP", "FP", "FN", "TN"}), ("test_mapping_of_apples", set()),
])
def test_the_naming_convention_reads_names_as_its_docstring_says(test_name, named):
    assert measures_named(test_name) == named


def test_every_family_has_a_test_module_and_every_such_module_a_family():
    families = {family(name) for name in REGISTRY}
    assert families >= {"set_based", "rank_based", "interpolated", "rank_biased", "graded",
                        "confusion"}
    for family_name in families:
        assert family_module(family_name).is_file(), family_name
    modules = {path.name for path in TESTS.glob("test_measures_*.py")}
    assert modules == {family_module(f).name for f in families}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_measure_has_a_test_named_after_it_in_its_family_module(name):
    module = family_module(family(name))
    named = [t for t in defined_tests(module) if name in measures_named(t)]
    assert named, (f"{module.name} has no test named after {name}: name one "
                   f"test_{name.lower()}_… (see this module's docstring)")
