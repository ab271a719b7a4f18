"""The Groups page (AppTest): its link. (Groups of queries by metadata: test_app_metadata.py.)"""

import pytest

from apptest import address_params, chart_figures, linked


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


def test_ten_thousand_groups_of_two_queries_draw_a_bounded_chart_and_a_page_of_the_table(
        monkeypatch):
    # issue 42, item 13: 10,000 groups of two queries had taken 61 s, a bootstrap interval per
    # group and system (20,000 scipy calls) and a chart row per group. The chart shows the
    # groups that matter (largest, best, worst), the table a page, and the intervals are drawn
    # for those only; the means of every group come from a few vectorised calls
    import json

    import numpy as np

    from apptest import _framed, grid_data, upload_of

    groups, rng = 10_000, np.random.default_rng(42)
    queries = [f"q{i:05d}" for i in range(2 * groups)]
    runs = {}
    for name in ("a", "b"):
        scores = rng.random((len(queries), 3))
        runs[f"{name}.run"] = "".join(
            f"{q} Q0 d{d} {d + 1} {scores[i, d]:.6f} {name}\n" for i, q in enumerate(queries)
            for d in range(3)).encode()
    relevant = rng.integers(0, 3, len(queries))
    qrels = "".join(f"{q} 0 d{relevant[i]} 1\n" for i, q in enumerate(queries)).encode()
    table = ("query_id,genre\n" + "".join(f"{q},g{i // 2:05d}\n" for i, q in enumerate(queries))
             ).encode()
    source = upload_of(runs, qrels)
    source = type(source).of_upload("runs+qrels", (*source.files, ("queries", "queries.csv",
                                                                     table)))
    import metrics.evaluation.group_stats as engine

    drawn = []
    bootstrap_rows = engine.bootstrap_rows

    def counted(values, *args, **kwargs):   # how many intervals are drawn: a row each
        drawn.append(len(values))
        return bootstrap_rows(values, *args, **kwargs)

    monkeypatch.setattr(engine, "bootstrap_rows", counted)
    at = _framed("pages/groups.py")
    for key, value in dict(upload=source, sample="upload", measures="AP",
                           group_by="genre").items():
        at.session_state[key] = value
    at.run(timeout=40)   # it had taken 61 s
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    figure = chart_figures(at)[0]
    ticks = figure["layout"]["yaxis"]["ticktext"]
    assert len(figure["data"]) == 2 and len(ticks) <= 30, len(ticks)
    # intervals: the chart's groups and the table's first page of 200, for each system
    assert 2 * 200 <= sum(drawn) <= 2 * (30 + 200), drawn
    means, tests = (grid_data(d) for d in at.main.dataframe[:2])
    assert len(means) == 2 * 200 and means["genre"].iloc[0] == "g00000"
    assert len(tests) == 200
    # the largest groups hold two queries each, as every group does; the best group's mean AP
    # over both systems, by hand from the files: AP of one relevant item is 1 / its rank
    rank = {name: {} for name in ("a", "b")}
    for name, run in runs.items():
        for line in run.decode().splitlines():
            q, _, d, _, score, _ = line.split()
            rank[name[0]].setdefault(q, []).append((-float(score), d))
    ap = {s: np.array([1 / (1 + [d for _, d in sorted(rank[s][q])].index(f"d{relevant[i]}"))
                       for i, q in enumerate(queries)]) for s in rank}
    per_group = (ap["a"] + ap["b"]).reshape(groups, 2).mean(axis=1) / 2
    charted = per_group[[int(t.split()[0][1:]) for t in ticks]]
    assert list(charted) == sorted(charted, reverse=True)                    # best at the top
    assert charted[:10] == pytest.approx(np.sort(per_group)[::-1][:10])     # the 10 best
    assert charted[-10:] == pytest.approx(np.sort(per_group)[:10][::-1])    # the 10 worst
