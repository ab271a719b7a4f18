"""The Curves page (AppTest): ROC with each toy's collection, each system's mean curve."""

from apptest import app, chart_figures


def test_fmp_curves_draw_roc_with_each_toys_collection():
    import json

    at = app("pages/curves.py", sample="fmp", curve_tab="ROC")
    assert not at.exception and not at.error
    assert not [i.value for i in at.info if "collection size" in i.value]
    roc = [f for f in chart_figures(at)
           if "ROC along the ranking" in json.dumps(f, ensure_ascii=False)][0]
    names = " ".join(str(t.get("name")) for t in roc["data"])
    # toy1: relevant at 1, 2, 4, 8 of 10, six negatives: (6 + 6 + 5 + 2)/(4·6) = 19/24;
    # toy2: relevant at 2, 3, 5, 6 of 8, four negatives: (3 + 3 + 2 + 2)/(4·4) = 10/16
    assert f"AUC {19 / 24:.3f}" in names and f"AUC {10 / 16:.3f}" in names, names


def test_curves_draw_each_systems_mean_roc_and_say_only_what_is_drawn():
    import json

    at = app("pages/curves.py", sample="instruments", curve_tab="ROC")
    assert not at.exception and not at.error
    roc = [f for f in chart_figures(at)
           if "ROC along the ranking" in json.dumps(f, ensure_ascii=False)][0]
    names = [t.get("name") for t in roc["data"]]
    assert "mean: system_a" in names and "mean: system_b" in names
    assert "system_a: each query" in names and "system_b: each query" in names
    captions = " ".join(c.value for c in at.caption)
    assert "in its system's colour" in captions and "mean ROC curve" in captions
    many = app("pages/curves.py", sample="covers")        # 300 queries: means only
    captions = " ".join(c.value for c in many.caption)
    assert "Per-query lines are left out above 40 queries" in captions
    assert "Thin lines" not in captions
