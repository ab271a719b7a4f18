"""Every family of measures has its test module, and every registered measure a test named after
it there.

The convention (a measure's family, its test module, what names a test after a measure) is
set out in tests/measure_tests.py, which docs/generate.py also reads to name each measure's
tests in docs/measures.md.

The cross-cutting suites stay apart: oracle comparisons (test_oracles.py), properties
(test_properties.py), the source documents' worked examples (test_seed_examples.py), tie-aware
evaluation (test_tie_aware.py), names and aliases (test_measure_names.py)."""

from __future__ import annotations

import pytest

from measure_tests import TESTS, family, family_module, measures_named, named_tests
from metrics.measures.registry import REGISTRY


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
    module, named = named_tests(name)
    assert named, (f"{module.name} has no test named after {name}: name one "
                   f"test_{name.lower()}_… (see this module's docstring)")
