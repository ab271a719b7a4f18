"""Which test checks which measure: a measure's tests live in the test module of its family and
are named after it. tests/test_measure_families.py holds every measure to this convention, and
docs/generate.py names each measure's tests in docs/measures.md from it.

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
assert the measure's value (checked by review, not here)."""

from __future__ import annotations

import ast
from pathlib import Path

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


def named_tests(name: str) -> tuple[Path, list[str]]:
    """The test module of the measure's family and the tests in it named after the measure."""
    module = family_module(family(name))
    return module, [t for t in defined_tests(module) if name in measures_named(t)]
