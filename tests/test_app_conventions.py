"""The Conventions page (AppTest): every protocol and tie policy on FMP's toys."""

import pandas as pd

from apptest import app


def test_conventions_page_shows_every_protocol_and_tie_policy():
    from metrics.data.ties import TiePolicy
    TIE_POLICIES = TiePolicy.names()
    from metrics.evaluation.protocols import PROTOCOLS

    at = app("pages/conventions.py", sample="fmp", measures="AP,P@5")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # one tab per protocol, in the registry's order, then the tie-policy table
    tables = [d.value for d in at.main.dataframe]
    assert len(tables) == len(PROTOCOLS) + 1
    grid = pd.concat({name: t.set_index("printed as") for name, t in zip(PROTOCOLS, tables)})
    assert set(TIE_POLICIES) <= set(grid.columns)
    for name, protocol in PROTOCOLS.items():
        assert list(grid.loc[name].index) == [c.name for c in protocol.columns]
    # FMP's toys: relevant at ranks 1, 2, 4, 8 and 2, 3, 5, 6 (R_q = 4 each), no ties;
    # lists of 10 and 8 items. MusCALL (one paired item per query, a square matrix) and TTMR
    # (lists of at least 10) fail on them: empty, with the reason
    for name in ("muscall", "muscall-text-to-music", "ttmr"):
        assert grid.loc[name, list(TIE_POLICIES)].isna().all().all(), name
    assert grid.loc[("clap", "median_rank"), "stable"] == "1"      # floor(median(0, 1)) + 1
    assert grid.loc[("ttmr", "R@5"), "ours"] == "0.7500"           # (3/4 + 3/4)/2
    assert grid.loc[("clap", "median_rank"), "ours"] == "1.5000"   # median of 1 and 2
    # a count as an integer: toy1 has 4 relevant in its top 10 (ranks 1, 2, 4, 8), toy2 all 4
    # of its 8 items' relevant ones
    assert grid.loc[("mirex-cover", "Total covers in top 10"), "stable"] == "8"
    ties = tables[-1].set_index("measure")
    assert ties.loc["AP", "stable"] == "0.7104"    # (0.8125 + 0.60833…)/2, as printed
    assert not ties["changes with ties"].any()
    notes = " ".join(m.value for m in at.markdown)
    assert all(p in notes for p in TIE_POLICIES)
    assert "torch\\.median" in notes and "jackknife" in notes   # each difference, one line
    assert "exactly one item" in notes and "shorter than 10" in notes   # why none printed
