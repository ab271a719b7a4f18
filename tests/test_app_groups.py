"""The Groups page (AppTest): its link. (Groups of queries by metadata: test_app_metadata.py.)"""

from apptest import address_params, linked


def test_a_groups_link_restores_grouping_measure_group_and_systems():
    at = linked("pages/groups.py", dataset="versions", measures="AP,P@10", group_by="R_q",
                measure="P@10", group="5", systems=["cqt_net", "transformer"])
    assert not at.exception and not at.error and not at.warning
    assert at.selectbox(key="group_measure").value == "P@10"
    assert at.selectbox(key="group_open_box").value == "5"
    assert any(b.label == "Open the 12 queries" for b in at.button)
    params = address_params(at)
    assert (params["group_by"], params["measure"], params["group"], params["systems"]) == \
        (["R_q"], ["P@10"], ["5"], ["cqt_net", "transformer"])


def test_a_p_value_below_double_precision_prints_as_every_table_prints_it():
    # 40 queries of one relevant item "r": b ranks it first, a second or third, so every
    # difference of AP is 1/2 or 2/3 and the paired t-test's p is far below 1e-16 (scipy says
    # how far); the page prints it as "< 1e-16", never "0" or a long exponent
    import numpy as np
    from scipy import stats

    from apptest import app, grid_data, upload_of

    queries = [f"q{i:02d}" for i in range(40)]
    run_a = "".join(f"{q} Q0 {d} {rank} {3 - rank} a\n" for i, q in enumerate(queries)
                    for rank, d in enumerate(["x", "r", "y"] if i % 2 else ["x", "y", "r"]))
    run_b = "".join(f"{q} Q0 {d} {rank} {3 - rank} b\n" for q in queries
                    for rank, d in enumerate(["r", "x", "y"]))
    qrels = "".join(f"{q} 0 r 1\n{q} 0 x 0\n{q} 0 y 0\n" for q in queries).encode()
    ap_a = np.array([1 / 2 if i % 2 else 1 / 3 for i in range(40)])
    p = stats.ttest_rel(np.ones(40), ap_a).pvalue
    assert 0 < p < 1e-16, p
    at = app("pages/groups.py", upload=upload_of({"a.run": run_a.encode(), "b.run": run_b.encode()},
                                                 qrels), sample="upload", measures="AP",
             group_by="R_q")
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    tests = next(t for t in map(grid_data, at.main.dataframe) if "p" in t.columns)
    assert tests["p"].tolist() == ["< 1e-16"], tests
    assert tests["p (Holm over groups)"].tolist() == ["< 1e-16"], tests
